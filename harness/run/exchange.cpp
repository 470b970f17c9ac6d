// The order of one exchange:
//  1. the producer answers the request (with the TypeError fallback a consumer owes, VER-5);
//  2. the harness takes the handoff: names the struct for the guard arena, puts the deleter
//     trampoline in place (the ledger needs no cooperation), and judges what was handed over
//     against the request (judge_handoff);
//     a used-capsule case (LIFE-8) hands it over renamed as consumed, and ends there;
//  3. the reference validator decides whether the tensor is valid for this consumer;
//  4. the consumer imports and releases it; an unclaimed capsule is deleted as its destructor
//     would (LIFE-2);
//  5. the judge reads the ledger (judge_lifecycle), the import (judge_import) and the
//     allocations each party made (judge_ownership).
// No heap allocation: facts and findings are fixed-size.
#include "exchange.h"

#include <chrono>
#include <cstring>

#include "alloc_track.h"
#include "geometry.hpp"
#include "judge.h"
#include "phase.h"

namespace dlc {

CaseContext g_case_context;

namespace {

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void finish(CaseRecord* out, Verdict verdict, const Finding& f, const char* detail) {
  out->verdict = verdict;
  out->cls = f.cls;
  out->rule = f.rule;
  out->role = f.role;
  SafeText(out->detail, sizeof out->detail).add(f.any() ? f.words : detail);
}

// The struct kind a handoff carries, for the arena and the ledger.
abi::StructKind kind_of(const DLCHandoff& h, const Participant& producer, bool raw) {
  abi::StructKind kind = raw ? (producer.layout == "legacy"      ? abi::StructKind::legacy
                                : producer.layout == "versioned" ? abi::StructKind::versioned
                                                                 : abi::StructKind::variant)
                             : abi::struct_kind_of_name(h.name);
  if (kind == abi::StructKind::versioned && h.pointer != nullptr) {
    // Every major keeps version, manager_ctx and deleter in place (LAY-3): reading it is safe.
    if (static_cast<const abi::FrozenHead*>(h.pointer)->version.major != 1) {
      kind = abi::StructKind::foreign_major;
    }
  }
  return kind;
}

bool has_deleter(const DLCHandoff& h, abi::StructKind kind) {
  const auto* base = static_cast<const char*>(h.pointer);
  void* deleter = nullptr;
  if (kind == abi::StructKind::legacy) {
    std::memcpy(&deleter, base + abi::kLegacyDeleterOffset, sizeof deleter);
  } else if (kind == abi::StructKind::versioned || kind == abi::StructKind::foreign_major) {
    std::memcpy(&deleter, base + abi::kVersionedDeleterOffset, sizeof deleter);
  } else {
    return true;  // a variant layout: the mock reports its deleter calls to the host
  }
  return deleter != nullptr;
}

// A used capsule (LIFE-8): the harness plays the first importer, which renamed the capsule and
// owes the one deleter call; the consumer meets the capsule second. Fills *f and, on a pass,
// `words`.
void hand_used_capsule(const Participant& consumer, const DLCRequest& request,
                       const DLCHandoff& fresh, Finding* f, char* words, size_t words_len) {
  const bool versioned = std::strcmp(fresh.name, "dltensor_versioned") == 0;
  DLCHandoff used{versioned ? "used_dltensor_versioned" : "used_dltensor", fresh.pointer};
  const DLCPlugin& ct = *consumer.plugin.table;
  const char* label = consumer.label.c_str();
  DLCObservation obs{};
  char consumer_error[512] = {};
  int consume_rc = DLC_OK;
  {
    ScopedPhase phase("consume()", label, Party::consumer);
    consume_rc = ct.consume(consumer.plugin.state, &used, &request, &obs, consumer_error,
                            sizeof consumer_error);
  }
  if (ct.release != nullptr) {
    ScopedPhase phase("release()", label, Party::consumer);
    ct.release(consumer.plugin.state);
  }
  consumer_error[sizeof consumer_error - 1] = '\0';
  const DeleterLedger::Entry* entry = process_host().ledger.find(fresh.pointer);
  UsedCapsuleFacts uf;
  uf.used_name = versioned ? "used_dltensor_versioned" : "used_dltensor";
  uf.imported = consume_rc == DLC_OK;
  uf.consumer_error = consumer_error;
  uf.consumer_calls = entry != nullptr ? entry->calls : 0;
  uf.first_call_where = entry != nullptr ? entry->where[0] : nullptr;
  uf.consumer_label = label;
  if (uf.consumer_calls == 0) delete_unclaimed(fresh);  // the first importer's one call
  judge_used_capsule(uf, f);
  SafeText(words, words_len).add("refused the used capsule ").add(uf.used_name).add(": ")
      .add(consumer_error).add("; its deleter left to the first importer");
}

}  // namespace

bool create_plugin_states(std::vector<Participant>& participants, std::string* error) {
  for (Participant& p : participants) {
    if (p.plugin.table->create == nullptr || p.plugin.state != nullptr) continue;
    char message[512] = {};
    const int rc =
        p.plugin.table->create(&process_host().table, &p.plugin.state, message, sizeof message);
    if (rc != DLC_OK) {
      *error = p.plugin.path + ": create() failed with code " + std::to_string(rc) + ": " + message;
      return false;
    }
  }
  return true;
}

Role role_of(Party party) noexcept {
  return party == Party::producer   ? Role::producer
         : party == Party::consumer ? Role::consumer
                                    : Role::none;
}

void to_result(const CaseRecord& record, CaseResult* r) {
  r->verdict = record.verdict;
  r->finding_class = name_of(record.cls);
  r->role = record.cls == FindingClass::none ? "" : to_string(record.role);
  r->rule_id = id_of(record.rule);
  r->detail = record.detail;
  if (record.expectation_settled) r->expected = record.settled;
  r->seconds = record.micros / 1e6;
  r->handoff_seconds = record.handoff_micros / 1e6;
  r->severity = record.cls == FindingClass::none ? ""
                                                  : to_string(severity_of(record.cls, record.rule));
}

void run_exchange(const std::vector<Participant>& participants, const CaseDef& c,
                  CaseRecord* out) noexcept {
  const int64_t start = now_us();
  HostState& host = process_host();
  host.reset();
  alloc_track::begin_case();
  const Participant& producer = participants[c.producer];
  const TensorCase& t = tensor_catalogue()[c.tensor];
  g_case_context = CaseContext{c.raw, t.spec.misalign % 16 != 0,
                               c.used_capsule ? Rule::LIFE_8 : t.rule};
  Finding f;
  auto done = [&](Verdict v, const char* detail) {
    finish(out, v, f, detail);
    out->micros = static_cast<uint32_t>(now_us() - start);
  };
  if (c.unavailable_party >= 0) {  // a party cannot run on this machine (no device)
    done(Verdict::skip, participants[c.unavailable_party].unavailable.c_str());
    return;
  }
  if (c.header_cannot_say) {
    done(Verdict::skip, "n/a: the producer's declared header has no code for this dtype");
    return;
  }
  if (!c.in_producer_profile && !(producer.profile.features & DLC_FEATURE_TEST_LAYOUTS)) {
    done(Verdict::skip, "n/a: outside the producer's profile");
    return;
  }

  DLCRequest request{};
  request.tensor = t.spec;
  request.copy = t.copy;
  request.raw = c.raw ? 1 : 0;
  const Participant* consumer = c.consumer >= 0 ? &participants[c.consumer] : nullptr;
  if (c.override_request) {
    request.has_max_version = c.has_max_version;
    request.max_version = c.max_version;
  } else if (consumer != nullptr && !c.raw) {
    request.has_max_version = consumer->plugin.table->has_max_version;
    request.max_version = consumer->plugin.table->max_version;
  }
  // A host copy, asked as a host caller of DLPack 1.x asks it (dl_device is a keyword of 1.x
  // only; a consumer of device memory wants the tensor where it is). The TypeError fallback below
  // takes the ask back, so whether one is asked is read from the request each time.
  if (t.host_copy && consumer != nullptr && !consumer->real_device() &&
      request.has_max_version && request.max_version.major >= 1) {
    request.has_dl_device = 1;
    request.dl_device = {1, 0};
  }
  const auto host_copy_asked = [&request] {
    return request.has_dl_device != 0 && request.dl_device.device_type == 1;
  };

  // 0. The consumer's own keywords (plugin ABI 3): the stream it will read on (STRM-1,
  //    STRM-2), judged before anything is produced.
  StreamFacts sf;
  sf.device_type = t.spec.device.device_type;
  sf.producer_label = producer.label.c_str();
  if (consumer != nullptr && !c.raw && consumer->plugin.ask_slot() != nullptr) {
    sf.consumer_label = consumer->label.c_str();
    char ask_error[512] = {};
    int ask_rc = DLC_OK;
    {
      ScopedPhase phase("ask()", consumer->label.c_str(), Party::consumer);
      ask_rc = consumer->plugin.ask_slot()(consumer->plugin.state, t.spec.device, &request,
                                           ask_error, sizeof ask_error);
    }
    ask_error[sizeof ask_error - 1] = '\0';
    if (ask_rc != DLC_OK) {
      f.set(FindingClass::plugin_error)
          .add(consumer->label.c_str()).add(": ask() failed with code ").num(ask_rc).add(": ")
          .add(ask_error);
      f.role = Role::consumer;
      done(Verdict::fail, "");
      return;
    }
    request.tensor = t.spec;  // the harness's part of the request stays the harness's
    request.raw = 0;
    sf.has_stream = request.has_stream != 0;
    sf.stream = request.stream;
    judge_stream_ask(sf, &f);
    if (f.any()) {
      done(Verdict::fail, "");
      return;
    }
  }

  // A pending device write only races a consumer that reads device memory: with none, the
  // producer may write at once (a host consumer of a CUDA tensor refuses it unread).
  // A host copy is read on the host, from the device memory the write is pending on.
  if ((consumer == nullptr || !consumer->real_device()) && !host_copy_asked()) {
    request.tensor.options |= DLC_SPEC_NO_DEVICE_READ;
  }

  // 1. Produce, with the TypeError fallback a consumer owes old producers (VER-5).
  const char* producer_label = producer.label.c_str();
  DLCHandoff h{};
  char error[512] = {};
  const DLCPlugin& pt = *producer.plugin.table;
  int rc = DLC_OK;
  {
    ScopedPhase phase("produce()", producer_label, Party::producer);
    rc = pt.produce(producer.plugin.state, &request, &h, error, sizeof error);
  }
  bool fell_back = false;
  if (rc == DLC_ERR_TYPE && !c.raw && !c.override_request && producer.emits.major == 0) {
    request.has_max_version = 0;
    request.copy = -1;
    request.has_dl_device = 0;
    error[0] = '\0';
    ScopedPhase phase("produce()", producer_label, Party::producer);
    rc = pt.produce(producer.plugin.state, &request, &h, error, sizeof error);
    fell_back = true;
  }
  const int64_t produced_us = now_us();
  error[sizeof error - 1] = '\0';
  if (rc != DLC_OK) {
    RefusalFacts rf;
    rf.request = &request;
    rf.rc = rc;
    rf.error = error;
    rf.producer_version = producer.emits;
    rf.negotiation_only = consumer == nullptr;
    rf.in_profile = c.in_producer_profile && c.wishes_declared && c.request_valid &&
                    c.result.expected == Expectation::pass;
    rf.tensor_rule = t.rule;
    judge_refusal(rf, &f);
    // A declined wish for a representation (NULL shape, NULL data, NULL strides, byte_offset)
    // that the producer does not declare: a real exporter chooses its own (n/a).
    const bool declined_wish = consumer != nullptr && !c.wishes_declared && !f.any();
    char words[560];
    SafeText(words, sizeof words)
        .add(declined_wish ? "n/a: the request wished for a representation outside the producer's "
                             "profile, which it declined; "
                           : "")
        .add(consumer == nullptr ? "refused, as VER-4 allows for this caller: " : "producer refused")
        .add(consumer != nullptr && fell_back ? " (after the TypeError fallback of VER-5): " : "")
        .add(consumer != nullptr && !fell_back ? ": " : "")
        .add(error);
    if (declined_wish && c.result.expected == Expectation::pass) {
      out->expectation_settled = true;
      out->settled = Expectation::skip;
    }
    done(f.fails() ? Verdict::fail : (consumer == nullptr ? Verdict::pass : Verdict::skip), words);
    return;
  }

  // 2. What the producer handed over. The struct is named for the arena and its deleter
  //    interposed before anything else reads it.
  const abi::StructKind kind =
      h.pointer != nullptr && (c.raw || h.name != nullptr) ? kind_of(h, producer, c.raw)
                                                          : abi::StructKind::unknown;
  if (kind != abi::StructKind::unknown) {
    host.arena.tag_struct(h.pointer, kind);
    host.ledger.interpose(h.pointer, kind);
  }
  HandoffFacts hf;
  hf.request = &request;
  hf.handoff = h;
  hf.producer_version = producer.emits;
  hf.negotiation_only = consumer == nullptr;
  // A host copy is expected on the host (after the TypeError fallback, none was asked).
  DLCTensorSpec host_spec;
  hf.expected.spec = &t.spec;
  if (host_copy_asked()) {
    host_spec = t.spec;
    host_spec.device = {1, 0};
    hf.expected.spec = &host_spec;
  }
  // Device memory is never read on the host: its values are the consumer's to read on the device.
  hf.expected.digest_known = t.digest_known && !t.real_device;
  hf.expected.digest = t.digest;
  hf.expected.elements = t.elements;
  hf.expected.request_valid = c.request_valid;
  judge_handoff(hf, &f);
  if (f.fails() || consumer == nullptr) {
    delete_unclaimed(h);
    if (!f.fails()) {
      char words[128];
      SafeText(words, sizeof words).add("answered with ").add(h.name != nullptr ? h.name : "NULL");
      done(Verdict::pass, words);
    } else {
      done(Verdict::fail, "");
    }
    return;
  }

  if (c.used_capsule && h.name != nullptr) {
    char words[600] = {};
    hand_used_capsule(*consumer, request, h, &f, words, sizeof words);
    alloc_track::end_case(nullptr);
    done(f.fails() ? Verdict::fail : Verdict::pass, words);
    return;
  }

  // 3. The truth: is this tensor valid for a consumer of this version and profile?
  const DLCPlugin& ct = *consumer->plugin.table;
  ValidateResult truth;
  const bool truth_known = !c.raw;
  if (truth_known) {
    ValidateOptions options;
    options.level = Level::standard;
    options.consumer_version = ct.dlpack_version;
    // Validity is the rules' alone: a consumer may take more dimensions than its profile
    // promises (the profile decides what it must take).
    options.max_ndim = DLC_MAX_NDIM;
    validate(h, options, &truth);
  }
  const bool deleter_expected = c.raw ? true : has_deleter(h, kind);
  const void* managed = h.pointer;
  const char* offered = h.name;

  // 4. Import and release.
  const char* consumer_label = consumer->label.c_str();
  DLCObservation obs{};
  char consumer_error[512] = {};
  int consume_rc = DLC_OK;
  {
    out->handoff_micros = static_cast<uint32_t>(now_us() - produced_us);
    ScopedPhase phase("consume()", consumer_label, Party::consumer);
    consume_rc =
        ct.consume(consumer->plugin.state, &h, &request, &obs, consumer_error, sizeof consumer_error);
  }
  if (ct.release != nullptr) {
    ScopedPhase phase("release()", consumer_label, Party::consumer);
    ct.release(consumer->plugin.state);
  }
  consumer_error[sizeof consumer_error - 1] = '\0';
  const DeleterLedger::Entry* entry = host.ledger.find(managed);
  LifecycleFacts lf;
  lf.offered_name = c.raw ? nullptr : offered;
  lf.name_after = h.name;
  lf.imported = consume_rc == DLC_OK;
  lf.consumer_error = consumer_error;
  lf.deleter_expected = deleter_expected;
  lf.consumer_calls = entry != nullptr ? entry->calls : 0;
  lf.first_call_where = entry != nullptr ? entry->where[0] : nullptr;
  lf.second_call_where = entry != nullptr ? entry->where[1] : nullptr;
  lf.stray_calls = host.ledger.stray_calls();
  lf.stray_where = host.ledger.stray_where();
  lf.consumer_label = consumer_label;
  lf.other_major = kind == abi::StructKind::foreign_major;
  const bool unclaimed = !c.raw && h.name != nullptr && std::strncmp(h.name, "used_", 5) != 0 &&
                         lf.consumer_calls == 0;
  if (unclaimed) delete_unclaimed(DLCHandoff{offered, const_cast<void*>(managed)});

  // 5. Judge. An observation on the handoff (INFO) stands unless the exchange finds more.
  const Finding handoff_note = f;
  judge_lifecycle(lf, &f);
  if (!f.any() && t.real_device && consume_rc == DLC_OK && t.read_unwritten(obs)) {
    sf.read_before_write = true;  // values from before the producer's pending write
    sf.host_copy = host_copy_asked();
    if (sf.consumer_label[0] == '\0') sf.consumer_label = consumer_label;
    judge_stream_read(sf, &f);
  }
  if (!f.any()) {
    ImportFacts imp;
    imp.rc = consume_rc;
    imp.consumer_error = consumer_error;
    imp.raw = c.raw;
    imp.truth_known = truth_known;
    imp.truth = &truth;
    imp.must_accept = c.must_accept;
    imp.legacy_answer_to_versioned_ask = !c.raw && ct.has_max_version != 0 &&
                                         ct.max_version.major >= 1 && offered != nullptr &&
                                         std::strcmp(offered, "dltensor") == 0;
    imp.tensor_rule = t.rule;
    imp.spec = &t.spec;
    imp.observation = &obs;
    imp.digest_known = t.values_comparable();
    imp.digest = t.digest;
    imp.misreadings = t.misreadings.data();
    imp.misreading_count = t.misreadings.size();
    imp.elements = t.elements;
    imp.consumer_label = consumer_label;
    judge_import(imp, &f);
  }
  // An INFO observation of the import (a tensor breaking a producers-only rule, read right) must
  // not hide what the ownership checks find: it is kept aside and reported only if they are clean.
  Finding import_note;
  if (f.any() && !f.fails()) {
    import_note = f;
    f.clear();
  }
  if (!f.any()) {
    alloc_track::Summary summary;
    alloc_track::end_case(&summary);
    OwnershipFacts of;
    // A leak only counts once the producer's deleter has run.
    if (host.ledger.calls(managed) > 0) {
      of.producer_leaked_bytes = summary.producer_leaked_bytes;
      of.producer_leaked_blocks = summary.producer_leaked_blocks;
      of.producer_leak_site = summary.leak_site;
    }
    of.consumer_foreign_frees = summary.consumer_foreign_frees;
    of.consumer_foreign_bytes = summary.consumer_foreign_bytes;
    of.consumer_free_site = summary.free_site;
    of.producer_label = producer_label;
    of.consumer_label = consumer_label;
    judge_ownership(of, &f);
    if (!f.any() && host.devices.count() > 0) {
      DeviceMemoryFacts dm;
      dm.deleter_ran = host.ledger.calls(managed) > 0;
      dm.ledger = host.devices.verdict();
      dm.producer_label = producer_label;
      judge_device_memory(dm, &f);
    }
  } else {
    alloc_track::end_case(nullptr);
  }
  if (f.fails()) {
    done(Verdict::fail, "");
    return;
  }
  if (!f.any()) f = import_note.any() ? import_note : handoff_note;
  if (f.cls == FindingClass::read_only_exported_legacy && c.result.expected == Expectation::skip) {
    out->expectation_settled = true;
    out->settled = Expectation::pass;
  }
  char words[600];
  SafeText w(words, sizeof words);
  if (consume_rc == DLC_OK) {
    w.add("imported correctly");
  } else {
    w.add("refused cleanly: ").add(consumer_error);
  }
  if (fell_back) w.add(" (after the TypeError fallback of VER-5)");
  done(Verdict::pass, words);
}

}  // namespace dlc
