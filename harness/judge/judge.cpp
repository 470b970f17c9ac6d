// The judges of what crossed (the hand-off, the refusal, the lifecycle, the import; see judge.h)
// and of ownership; judge_faults.cpp judges a death and device memory. Words follow "expected X
// but found Y" wherever a comparison fits.
#include "judge.h"

#include <cstring>

#include "geometry.hpp"

namespace dlc {
namespace {

bool starts_with(const char* s, const char* prefix) {
  return s != nullptr && std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool same(const char* a, const char* b) {
  return a == b || (a != nullptr && b != nullptr && std::strcmp(a, b) == 0);
}

const char* or_dash(const char* s) { return s != nullptr ? s : "-"; }

SafeText& max_version_text(SafeText& t, const DLCRequest& rq) {
  if (!rq.has_max_version) return t.add("None");
  return t.version(rq.max_version.major, rq.max_version.minor);
}

bool equal_dtype(DLCDtype a, DLCDtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

SafeText& dtype_text(SafeText& t, DLCDtype d) {
  return t.add('(').unum(d.code).add(", ").unum(d.bits).add(", ").unum(d.lanes).add(')');
}

// Compares what the producer handed over with the request, field by field (the logical tensor:
// strides only where an extent exceeds 1, and NULL strides only for compact data).
void compare_with_request(const abi::Tensor& t, const DLCTensorSpec& spec, bool versioned,
                          DLCVersion version, Finding* out) {
  if (t.ndim != spec.ndim) {
    out->set(FindingClass::producer_violation, Rule::LAY_1).add("expected ndim ").num(spec.ndim)
        .add(" as requested but found ").num(t.ndim);
    return;
  }
  if (!equal_dtype(t.dtype, spec.dtype)) {
    // A complex type stated with the width of one part: `bits` is the pair's (DT-3).
    const bool one_part = t.dtype.code == spec.dtype.code && spec.dtype.code == abi::kCodeComplex &&
                          t.dtype.bits * 2 == spec.dtype.bits && t.dtype.lanes == spec.dtype.lanes;
    auto w = out->set(FindingClass::producer_violation, one_part ? Rule::DT_3 : Rule::DT_1);
    w.add("expected dtype ");
    dtype_text(w, spec.dtype).add(" as requested but found ");
    dtype_text(w, t.dtype);
    return;
  }
  if (t.device.device_type != spec.device.device_type || t.device.device_id != spec.device.device_id) {
    out->set(FindingClass::producer_violation, Rule::DEV_1).add("expected device (")
        .num(spec.device.device_type).add(", ").num(spec.device.device_id)
        .add(") as requested but found (").num(t.device.device_type).add(", ")
        .num(t.device.device_id).add(')');
    return;
  }
  if (spec.ndim == 0) return;
  if (t.shape == nullptr) {
    out->set(FindingClass::producer_violation, Rule::LAY_6).add("expected shape != NULL for ndim=")
        .num(spec.ndim).add(" but found NULL");
    return;
  }
  for (int i = 0; i < spec.ndim && i < DLC_MAX_NDIM; ++i) {
    if (t.shape[i] != spec.shape[i]) {
      out->set(FindingClass::producer_violation, Rule::LAY_1).add("expected shape[").num(i)
          .add("] = ").num(spec.shape[i]).add(" as requested but found ").num(t.shape[i]);
      return;
    }
  }
  // Without explicit strides the request is the logical tensor only (the values are compared
  // through the digest); an invalid request (a mock's test layout) has no strides to expect.
  if (!spec.has_strides) return;
  const geo::SpecGeometry want = geo::geometry(spec);
  if (!want.g.valid) return;
  if (t.strides == nullptr) {
    // NULL strides mean compact row-major (LAY-5): only right for compact data.
    const int64_t i = geo::first_noncompact_dim(spec.ndim, spec.shape, want.strides);
    if (i >= 0) {
      out->set(FindingClass::producer_violation, Rule::LAY_5)
          .add("expected strides[").num(i).add("] = ").num(want.strides[i])
          .add(" as requested but found NULL strides (compact row-major)");
    }
    (void)versioned;
    (void)version;
    return;
  }
  for (int i = 0; i < spec.ndim && i < DLC_MAX_NDIM; ++i) {
    if (spec.shape[i] > 1 && t.strides[i] != want.strides[i]) {
      out->set(FindingClass::producer_violation, Rule::LAY_4).add("expected strides[").num(i)
          .add("] = ").num(want.strides[i]).add(" as requested but found ").num(t.strides[i]);
      return;
    }
  }
}

}  // namespace

void judge_handoff(const HandoffFacts& f, Finding* out) noexcept {
  out->clear();
  const DLCRequest& rq = *f.request;
  const DLCHandoff& h = f.handoff;
  // 0. A malformed handoff is refused before anything reads it.
  if (!rq.raw && h.name == nullptr) {
    out->set(FindingClass::producer_violation, Rule::LIFE_1)
        .add("expected capsule name dltensor or dltensor_versioned but found NULL");
    return;
  }
  if (h.pointer == nullptr) {
    out->set(FindingClass::producer_violation, Rule::LIFE_1)
        .add("expected a tensor pointer but found NULL");
    return;
  }
  if (rq.raw) return;  // no capsule, no negotiation: the reader alone decides
  const bool versioned = std::strcmp(h.name, "dltensor_versioned") == 0;
  if (!versioned && std::strcmp(h.name, "dltensor") != 0) {
    out->set(FindingClass::producer_violation, Rule::LIFE_1)
        .add("expected capsule name dltensor or dltensor_versioned but found ").add(h.name);
    return;
  }
  // 1. The version the producer chose (VER-4) and wrote (VER-1).
  const bool legacy_caller = !rq.has_max_version || rq.max_version.major < 1;
  if (legacy_caller && versioned) {
    auto w = out->set(FindingClass::versioned_to_legacy_caller);
    w.add("expected capsule dltensor for max_version=");
    max_version_text(w, rq).add(" but found dltensor_versioned");
    return;
  }
  const DLCVersion own = f.producer_version;
  if (!legacy_caller && !versioned && own.major >= 1 && rq.max_version.major >= own.major) {
    auto w = out->set(FindingClass::negotiation_downgrade);
    w.add("expected dltensor_versioned for max_version=");
    max_version_text(w, rq).add(" (the producer speaks ").version(own.major, own.minor)
        .add(") but found dltensor");
    return;
  }
  DLCVersion version{0, 0};
  uint64_t flags = 0;
  const abi::Tensor* tensor = nullptr;
  if (versioned) {
    const auto* head = static_cast<const abi::FrozenHead*>(h.pointer);
    version = head->version;
    if (version.major > rq.max_version.major) {
      auto w = out->set(FindingClass::unsupported_version_returned);
      w.add("expected a version the caller supports (max_version=");
      max_version_text(w, rq).add(") but found ").version(version.major, version.minor);
      return;
    }
    if (version.major != own.major || version.minor != own.minor) {
      out->set(FindingClass::wrong_version_field).add("expected the producer's own version ")
          .version(own.major, own.minor).add(" but found ").version(version.major, version.minor);
      return;
    }
    if (version.major == 1) {
      const auto* m = static_cast<const abi::ManagedTensorVersioned*>(h.pointer);
      flags = m->flags;
      tensor = &m->dl_tensor;
    }
  } else {
    tensor = &static_cast<const abi::ManagedTensor*>(h.pointer)->dl_tensor;
  }
  if (f.negotiation_only) return;

  // 2. The flags the request implies (versioned structs of major 1 only: VER-2).
  const DLCTensorSpec* spec_or_null = f.expected.spec;
  const bool read_only = spec_or_null != nullptr && (spec_or_null->options & DLC_SPEC_READ_ONLY);
  if (versioned && version.major == 1) {
    if (rq.copy == 1 && (flags & abi::kFlagIsCopied) == 0) {
      out->set(FindingClass::producer_violation, Rule::FLAG_2)
          .add("expected IS_COPIED after copy=True but found flags ").hex(flags);
      return;
    }
    if (read_only && (flags & abi::kFlagReadOnly) == 0) {
      out->set(FindingClass::producer_violation, Rule::FLAG_1B)
          .add("expected READ_ONLY for immutable data but found flags ").hex(flags);
      return;
    }
    if (version.minor >= 2 && tensor->ndim != 0 && tensor->strides == nullptr) {
      out->set(FindingClass::producer_violation, Rule::LAY_5).add("expected strides != NULL for ndim=")
          .num(tensor->ndim).add(" (DLPack >= 1.2) but the producer emitted NULL");
      return;
    }
  } else if (!versioned && !legacy_caller && read_only) {
    auto w = out->set(FindingClass::producer_violation, Rule::FLAG_1B);
    w.add("expected a versioned capsule with READ_ONLY for immutable data (max_version=");
    max_version_text(w, rq).add(") but found dltensor, which cannot carry the flag");
    return;
  }
  if (spec_or_null == nullptr) return;
  const DLCTensorSpec& spec = *spec_or_null;
  if (tensor == nullptr) return;

  // 3. The reference validator for a request that was valid, then every field against the
  //    request, and only then the values: a struct that lies about its shape must not make the
  //    harness read past the producer's memory.
  if (f.expected.request_valid) {
    ValidateResult r;
    ValidateOptions options;
    options.level = Level::standard;
    options.consumer_version = versioned ? version : DLCVersion{1, 3};
    validate(h, options, &r);
    if (const Violation* v = r.first_refusal(true)) {
      out->set(FindingClass::producer_violation, v->rule)
          .add("the reference validator refuses what the producer handed over: ").add(v->message);
      return;
    }
  }
  // Immutable data to a legacy caller: refusing is one right answer; a legacy capsule is the
  // other, and it cannot say READ_ONLY (FLAG-1). Noted at INFO once nothing else is wrong.
  const bool read_only_as_legacy = !versioned && legacy_caller && read_only;
  auto note_read_only_as_legacy = [&] {
    if (read_only_as_legacy && !out->any()) {
      out->set(FindingClass::read_only_exported_legacy)
          .add("immutable data exported as a legacy dltensor, which cannot say READ_ONLY: the ")
          .add("consumer may write it (refusing with BufferError is the other choice)");
    }
  };
  if (!f.expected.compare_fields) return note_read_only_as_legacy();
  compare_with_request(*tensor, spec, versioned, version, out);
  if (out->any() || !f.expected.request_valid || !f.expected.digest_known) {
    return note_read_only_as_legacy();
  }
  ValidateResult full;
  ValidateOptions options;
  options.level = Level::full;
  options.consumer_version = versioned ? version : DLCVersion{1, 3};
  validate(h, options, &full);
  const DLCObservation& seen = full.observation;
  const bool values_wrong = !seen.data_not_read && (seen.digest != f.expected.digest ||
                                                    seen.elements_read != f.expected.elements);
  if (values_wrong && f.expected.encoding_digest_known &&
      seen.digest == f.expected.encoding_digest && seen.digest != f.expected.digest) {
    // Every field matched the request and the values are exactly the right ones stored another
    // way: the element encoding is what breaks (DT-3), not the layout (LAY-4).
    out->set(FindingClass::producer_violation, Rule::DT_3)
        .add("expected the requested values in DLPack's element encoding (digest ")
        .hex(f.expected.digest)
        .add(") but found them ")
        .add(f.expected.encoding)
        .add(" (digest ")
        .hex(seen.digest)
        .add(')');
  } else if (values_wrong) {
    out->set(FindingClass::producer_violation, Rule::LAY_4)
        .add("expected the requested values (")
        .unum(f.expected.elements)
        .add(" elements, digest ")
        .hex(f.expected.digest)
        .add(") but found ")
        .unum(seen.elements_read)
        .add(" elements with digest ")
        .hex(seen.digest);
  }
  note_read_only_as_legacy();
}

void judge_destructor(const DestructorFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.calls_before == 0 || f.calls_after <= f.calls_before) return;
  out->set(FindingClass::destructor_ignores_name)
      .add("expected the capsule destructor to leave the deleter of a capsule named ")
      .add(f.used_name)
      .add(" alone (its consumer had called it) but it called it ")
      .unum(f.calls_after - f.calls_before)
      .add(" more time(s)");
}

void judge_refusal(const RefusalFacts& f, Finding* out) noexcept {
  out->clear();
  const DLCRequest& rq = *f.request;
  const DLCVersion own = f.producer_version;
  if (f.rc == DLC_ERR_TYPE) {
    // Only a producer that predates max_version may raise TypeError, and only for a keyword.
    if (own.major >= 1 && rq.has_max_version) {
      out->set(FindingClass::producer_violation, Rule::VER_5)
          .add("expected a tensor or BufferError from a producer of DLPack ")
          .version(own.major, own.minor).add(" but found TypeError: ").add(f.error);
    }
    return;
  }
  if (f.rc != DLC_ERR_BUFFER) {
    out->set(FindingClass::plugin_error).add("produce() returned ").num(f.rc).add(": ").add(f.error);
    out->role = Role::producer;
    return;
  }
  const bool legacy_caller = !rq.has_max_version || rq.max_version.major < 1;
  if (f.negotiation_only) {
    // A legacy caller may be refused (VER-4, since 2025); a caller of the producer's major or a
    // newer one must get a tensor.
    if (!legacy_caller && own.major >= 1 && rq.max_version.major >= own.major) {
      auto w = out->set(FindingClass::negotiation_refused);
      w.add("expected a tensor for max_version=");
      max_version_text(w, rq).add(" but the producer refused: ").add(f.error);
    }
    return;
  }
  if (f.in_profile) {
    out->set(FindingClass::export_refused, f.tensor_rule)
        .add("expected the producer to export a tensor inside its profile but it refused: ")
        .add(f.error);
  }
}

void judge_lifecycle(const LifecycleFacts& f, Finding* out) noexcept {
  out->clear();
  const char* who = f.consumer_label;
  const bool raw = f.offered_name == nullptr;
  const bool taken = raw || starts_with(f.name_after, "used_");
  if (!raw) {
    if (starts_with(f.name_after, "used_") && !same(f.name_after + 5, f.offered_name)) {
      out->set(FindingClass::capsule_misnamed).add("expected capsule ").add(f.offered_name)
          .add(" renamed to used_").add(f.offered_name).add(" but found ").add(f.name_after)
          .add(" (").add(who).add(')');
      return;
    }
    if (!taken && !same(f.name_after, f.offered_name)) {
      out->set(FindingClass::capsule_misnamed).add("expected capsule ").add(f.offered_name)
          .add(" renamed to used_").add(f.offered_name).add(" or left alone but found ")
          .add(or_dash(f.name_after)).add(" (").add(who).add(')');
      return;
    }
    if (f.imported && !taken) {
      out->set(FindingClass::capsule_not_renamed).add("expected the capsule renamed to used_")
          .add(f.offered_name).add(" on import but found ").add(f.offered_name).add(" (")
          .add(who).add(" imported the tensor without taking it)");
      return;
    }
    if (!taken && f.consumer_calls > 0) {
      out->set(FindingClass::capsule_not_renamed).add("expected the capsule renamed to used_")
          .add(f.offered_name).add(" before the deleter call from ").add(or_dash(f.first_call_where))
          .add(" of ").add(who).add(" but found ").add(f.offered_name)
          .add(": its destructor deletes the tensor again");
      return;
    }
  }
  if (f.stray_calls > 0) {
    out->set(FindingClass::stray_deleter_call)
        .add("expected deleter calls only on the struct handed out but found ")
        .unum(f.stray_calls).add(" on a pointer never handed out (a copy of the struct?), from ")
        .add(or_dash(f.stray_where)).add(" of ").add(who);
    return;
  }
  if (!f.deleter_expected) return;  // LIFE-4: a NULL deleter is not called
  if (f.consumer_calls > 1) {
    out->set(FindingClass::deleter_called_twice).add("expected exactly one deleter call but found ")
        .unum(f.consumer_calls).add(": first call from ").add(or_dash(f.first_call_where))
        .add(", second call from ").add(or_dash(f.second_call_where)).add(" of ").add(who);
    return;
  }
  if (taken && f.consumer_calls == 0) {
    auto w = out->set(FindingClass::deleter_never_called, f.other_major ? Rule::VER_2 : Rule::none);
    w.add("expected exactly one deleter call after ")
        .add(f.imported ? "release" : "a refusal")
        .add(" but found none: ")
        .add(who)
        .add(" took the tensor (");
    if (f.imported) {
      w.add("imported it) and leaks it");
    } else {
      w.add("refused it: ").add(f.consumer_error).add(')');
    }
  }
}

void judge_used_capsule(const UsedCapsuleFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.imported) {
    out->set(FindingClass::accepted_invalid, f.foreign_name ? Rule::LIFE_1 : Rule::LIFE_8)
        .add("expected ").add(f.consumer_label).add(" to refuse a capsule named ")
        .add(or_dash(f.used_name))
        .add(f.foreign_name ? " (no DLPack name)" : " (consumed already)")
        .add(" but it imported it (deleter calls: ").unum(f.consumer_calls).add(')');
    return;
  }
  if (f.consumer_calls > 0) {
    out->set(FindingClass::deleter_called_twice, Rule::LIFE_3)
        .add("expected no deleter call on a capsule named ").add(or_dash(f.used_name))
        .add(f.foreign_name ? ", which its producer still owns," : ", whose first importer owes the one call,")
        .add(" but found ").unum(f.consumer_calls)
        .add(" from ").add(or_dash(f.first_call_where)).add(" of ").add(f.consumer_label)
        .add(", which refused it: ").add(f.consumer_error);
  }
}

void judge_device_refusal(const DeviceRefusalFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.buffer_error) return;
  out->set(FindingClass::wrong_refusal_exception, Rule::DEV_3)
      .add("expected BufferError from ").add(f.consumer_label)
      .add(" refusing a tensor on device type ").num(f.device_type)
      .add(", which it cannot access, but found ").add(f.consumer_error)
      .add(" (python_spec.rst v1.0 to v1.3: 'it is recommended to raise a BufferError'")
      .add(std::strncmp(f.consumer_error, "TypeError", 9) == 0
               ? "; v0.7 and v0.8 recommended TypeError, which this library follows)"
               : ")");
}

void judge_import(const ImportFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.rc != DLC_OK) {
    if (f.rc != DLC_ERR_BUFFER) {
      out->set(FindingClass::plugin_error).add("consume() of ").add(f.consumer_label)
          .add(" returned ").num(f.rc).add(": ").add(f.consumer_error);
      out->role = Role::consumer;
      return;
    }
    if (f.raw && f.must_accept) {
      out->set(FindingClass::rejected_valid, f.tensor_rule)
          .add("expected the raw pointer to import but the reader refused it: ")
          .add(f.consumer_error);
      return;
    }
    // A size of 2^63 bytes or more may be refused, whatever else the tensor is (LAY-10).
    const bool must_take = f.truth_known && f.truth->accepted && f.must_accept &&
                           !f.truth->size_band;
    if (must_take && f.legacy_answer_to_versioned_ask) {
      out->set(FindingClass::rejected_valid, Rule::VER_4)
          .add("expected the consumer, which asks with max_version, to take the legacy struct a "
               "legacy producer answers with, but it refused it: ")
          .add(f.consumer_error);
      return;
    }
    if (must_take) {
      out->set(FindingClass::rejected_valid, f.tensor_rule)
          .add("expected a valid tensor inside the consumer's profile to import but it refused: ")
          .add(f.consumer_error);
    }
    return;
  }
  // A tensor that breaks only rules binding producers (DEV-2) may be taken; it is read like any
  // other, and an import that reads it right is an INFO observation.
  const Violation* producers_rule = nullptr;
  if (f.truth_known && !f.truth->accepted) {
    const Violation* v = f.truth->first_consumer_must();
    producers_rule = v == nullptr ? f.truth->first_must() : nullptr;
    if (producers_rule == nullptr) {
      out->set(FindingClass::accepted_invalid, v != nullptr ? v->rule : Rule::none)
          .add("expected a refusal of an invalid tensor but it was imported: ")
          .add(v != nullptr ? v->message : "");
      return;
    }
  }
  const DLCObservation& obs = *f.observation;
  if (f.spec == nullptr) {
    // The fuzzers compare the data only: their inputs may have more dimensions than a spec holds.
  } else if (const DLCTensorSpec& spec = *f.spec; obs.ndim != spec.ndim) {
    out->set(FindingClass::wrong_metadata).add("expected ndim ").num(spec.ndim)
        .add(" but the consumer saw ").num(obs.ndim);
    return;
  } else {
    for (int i = 0; i < spec.ndim && i < DLC_MAX_NDIM; ++i) {
      if (obs.shape[i] != spec.shape[i]) {
        out->set(FindingClass::wrong_metadata).add("expected shape[").num(i).add("] = ")
            .num(spec.shape[i]).add(" but the consumer saw ").num(obs.shape[i]);
        return;
      }
    }
    if (!equal_dtype(obs.dtype, spec.dtype)) {
      auto w = out->set(FindingClass::wrong_metadata);
      w.add("expected dtype ");
      dtype_text(w, spec.dtype).add(" but the consumer saw ");
      dtype_text(w, obs.dtype);
      return;
    }
  }
  const bool values_wrong = f.digest_known && !obs.data_not_read &&
                            (obs.digest != f.digest || obs.elements_read != f.elements);
  for (size_t i = 0; values_wrong && obs.elements_read == f.elements && i < f.misreading_count;
       ++i) {
    const KnownMisreading& m = f.misreadings[i];
    if (m.digest == 0 || obs.digest != m.digest) continue;
    // Exactly the values of one known misreading: its rule's (LAY-5, DT-3), not LAY-4's.
    out->set(FindingClass::wrong_data, m.rule)
        .add("expected ")
        .unum(f.elements)
        .add(" ")
        .add(m.expected)
        .add(" (digest ")
        .hex(f.digest)
        .add(") but ")
        .add(f.consumer_label)
        .add(" ")
        .add(m.misread);
    return;
  }
  if (values_wrong) {
    out->set(FindingClass::wrong_data)
        .add("expected ")
        .unum(f.elements)
        .add(" elements with the producer's values (digest ")
        .hex(f.digest)
        .add(") but ")
        .add(f.consumer_label)
        .add(" read ")
        .unum(obs.elements_read)
        // Not the consumer's digest: a misread past the tensor reads whatever lies there.
        .add(obs.digest != f.digest ? " with other values" : " with the same values")
        .add(" (byte_offset, strides or lanes misread?)");
    return;
  }
  if (producers_rule != nullptr) {
    out->set(FindingClass::producer_rule_accepted, producers_rule->rule)
        .add(f.consumer_label)
        .add(" imported a tensor that breaks a rule binding producers only, and read it right: ")
        .add(producers_rule->message);
  }
}

void judge_ownership(const OwnershipFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.producer_leaked_blocks > 0) {
    out->set(FindingClass::deleter_leaks)
        .add("expected the deleter of ")
        .add(f.producer_label)
        .add(" to free everything produce() allocated but found ")
        .unum(f.producer_leaked_bytes)
        .add(" bytes in ")
        .unum(f.producer_leaked_blocks)
        .add(f.producer_leaked_blocks == 1 ? " block" : " blocks")
        .add(" still allocated, the first from ")
        .add(or_dash(f.producer_leak_site));
    return;
  }
  if (f.consumer_foreign_frees > 0) {
    out->set(FindingClass::frees_unowned)
        .add("expected ")
        .add(f.consumer_label)
        .add(" to free only what it allocated but found ")
        .unum(f.consumer_foreign_frees)
        .add(f.consumer_foreign_frees == 1 ? " free" : " frees")
        .add(" of ")
        .unum(f.consumer_foreign_bytes)
        .add(" bytes it does not own, the first from ")
        .add(or_dash(f.consumer_free_site));
  }
}

}  // namespace dlc
