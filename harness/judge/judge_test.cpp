// The judges, table-driven: each row is the facts of one exchange and the class and rule it must
// be judged with (the same wherever the facts come from: the matrix, a fuzz target, the bridge).
#include "judge.h"

#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"

namespace {

std::string verdict(const dlc::Finding& f) {
  if (!f.any()) return "none";
  return std::string(dlc::name_of(f.cls)) + " " + dlc::id_of(f.rule);
}

// Runs one judge on a table row's facts and checks the row's expected "class RULE" (or "none").
template <class Row, class Facts>
void expect_verdict(const Row& row, const Facts& facts, void (*judge)(const Facts&, dlc::Finding*)) {
  dlc::Finding out;
  judge(facts, &out);
  INFO(row.what << ": " << out.words);
  CHECK(verdict(out) == row.expected);
}

struct Tensor {
  int64_t shape[2] = {2, 3};
  int64_t strides[2] = {3, 1};
  float data[6] = {0, 1, 2, 3, 4, 5};
  dlc::abi::ManagedTensorVersioned versioned{};
  dlc::abi::ManagedTensor legacy{};
  DLCTensorSpec spec{};
  Tensor() {
    const dlc::abi::Tensor t{data, {1, 0}, 2, {2, 32, 1}, shape, strides, 0};
    versioned.version = {1, 3};
    versioned.dl_tensor = t;
    legacy.dl_tensor = t;
    spec.dtype = {2, 32, 1};
    spec.ndim = 2;
    spec.shape[0] = 2;
    spec.shape[1] = 3;
    spec.device = {1, 0};
  }
  uint64_t digest() const { return dlc_digest_update(dlc_digest_init(), data, sizeof data); }
};

}  // namespace

TEST_CASE("judge: every finding class names a rule of the table or carries its case's", "[unit]") {
  for (const dlc::ClassInfo& c : dlc::all_classes()) {
    INFO(c.name);
    CHECK(dlc::class_from_name(c.name) == c.cls);
    if (c.rule != dlc::Rule::none) CHECK(dlc::rule_from_id(dlc::id_of(c.rule)) == c.rule);
  }
  for (const dlc::RuleInfo& r : dlc::all_rules()) CHECK(dlc::rule_from_id(r.id) == r.rule);
  // Severity reads the table: a crash is always MUST, an ignored READ_ONLY always INFO.
  CHECK(dlc::severity_of(dlc::FindingClass::crash, dlc::Rule::LAY_9) == dlc::Severity::must);
  CHECK(dlc::severity_of(dlc::FindingClass::read_only_ignored, dlc::Rule::none) ==
        dlc::Severity::info);
  CHECK(dlc::severity_of(dlc::FindingClass::producer_violation, dlc::Rule::FLAG_1B) ==
        dlc::Severity::should);
  CHECK(dlc::severity_of(dlc::FindingClass::rejected_valid, dlc::Rule::LAY_7) ==
        dlc::Severity::should);
  // Memory safety is MUST whatever the rule of the case: a reader never argues about it.
  size_t memory_safety = 0;
  for (const dlc::ClassInfo& info : dlc::all_classes()) {
    if (!dlc::is_memory_safety(info.cls)) continue;
    ++memory_safety;
    const dlc::FindingClass cls = info.cls;
    INFO(dlc::info(cls).name);
    CHECK(dlc::severity_of(cls, dlc::Rule::none) == dlc::Severity::must);
    for (const dlc::RuleInfo& rule : dlc::all_rules()) {  // no sub-clause lowers one
      INFO(rule.id);
      CHECK(dlc::severity_of(cls, rule.rule) == dlc::Severity::must);
    }
  }
  CHECK(memory_safety == 18);  // the list the issue named, use after free, a destructor's 2nd call
  CHECK_FALSE(dlc::is_memory_safety(dlc::FindingClass::accepted_invalid));
  // A sub-clause weighs what its sentence says, apart from the rest of its rule (clauses.def).
  CHECK(dlc::severity_of(dlc::FindingClass::deleter_never_called, dlc::Rule::none) ==
        dlc::Severity::should);  // LIFE-3: "should call the deleter"
  CHECK(dlc::severity_of(dlc::FindingClass::deleter_never_called, dlc::Rule::VER_2) ==
        dlc::Severity::must);  // "the consumer must call the deleter" on another major
  CHECK(dlc::severity_of(dlc::FindingClass::accepted_invalid, dlc::Rule::LIFE_8) ==
        dlc::Severity::must);  // a used capsule's struct is read
  CHECK(dlc::severity_of(dlc::FindingClass::accepted_invalid, dlc::Rule::DEV_1) ==
        dlc::Severity::should);  // refusing an unknown device type is derived
  CHECK(dlc::severity_of(dlc::FindingClass::producer_violation, dlc::Rule::DEV_1) ==
        dlc::Severity::must);  // the enum is a definition
  CHECK(dlc::severity_of(dlc::FindingClass::wrong_refusal_exception, dlc::Rule::DEV_3) ==
        dlc::Severity::should);  // "it is recommended to raise a BufferError"
  CHECK(dlc::severity_of(dlc::FindingClass::wrong_refusal_exception, dlc::Rule::STRM_3) ==
        dlc::Severity::must);  // "this function must raise BufferError"
  CHECK(dlc::severity_of(dlc::FindingClass::no_max_version_asked, dlc::Rule::VER_5) ==
        dlc::Severity::info);  // consumers may hold off
  // Each class says whose finding it is, or that the judge says (a crash: where it happened).
  CHECK(dlc::info(dlc::FindingClass::deleter_leaks).role == dlc::Role::producer);
  CHECK(dlc::info(dlc::FindingClass::accepted_invalid).role == dlc::Role::consumer);
  CHECK(dlc::info(dlc::FindingClass::crash).role == dlc::Role::none);
  dlc::Finding f;
  f.set(dlc::FindingClass::wrong_data);
  CHECK(f.role == dlc::Role::consumer);
  // The rule table says whom a rule binds (DEV-2: producers only).
  CHECK(dlc::info(dlc::Rule::DEV_2).producers_only);
  CHECK_FALSE(dlc::info(dlc::Rule::LAY_4).producers_only);
}

TEST_CASE("judge: lifecycle (LIFE-1, LIFE-3)", "[unit]") {
  struct Row {
    const char* what;
    const char* after;
    bool imported;
    uint32_t calls;
    uint32_t stray;
    bool deleter;
    const char* expected;
  };
  const Row rows[] = {
      {"imported, renamed, deleted once", "used_dltensor", true, 1, 0, true, "none"},
      {"refused without taking it", "dltensor", false, 0, 0, true, "none"},
      {"took it and never deleted", "used_dltensor", true, 0, 0, true,
       "deleter-never-called LIFE-3"},
      {"refused after taking it, never deleted", "used_dltensor", false, 0, 0, true,
       "deleter-never-called LIFE-3"},
      {"deleted twice", "used_dltensor", true, 2, 0, true, "deleter-called-twice LIFE-3"},
      {"deleted a copy", "used_dltensor", true, 1, 1, true, "stray-deleter-call LIFE-3"},
      {"imported without renaming", "dltensor", true, 1, 0, true, "capsule-not-renamed LIFE-1"},
      {"deleted without renaming", "dltensor", false, 1, 0, true, "capsule-not-renamed LIFE-1"},
      {"renamed to another name", "used_dltensor_versioned", true, 1, 0, true,
       "capsule-misnamed LIFE-1"},
      {"a NULL deleter is not owed", "used_dltensor", true, 0, 0, false, "none"},
  };
  for (const Row& row : rows) {
    dlc::LifecycleFacts f;
    f.offered_name = "dltensor";
    f.name_after = row.after;
    f.imported = row.imported;
    f.deleter_expected = row.deleter;
    f.consumer_calls = row.calls;
    f.stray_calls = row.stray;
    f.first_call_where = "consume()";
    f.second_call_where = "release()";
    f.consumer_label = "c@v1.3";
    expect_verdict(row, f, dlc::judge_lifecycle);
  }
}

TEST_CASE("judge: a used capsule handed again (LIFE-8)", "[unit]") {
  struct Row {
    const char* what;
    bool imported;
    uint32_t calls;
    const char* expected;
  };
  const Row rows[] = {
      {"refused, deleter left alone", false, 0, "none"},
      {"imported again", true, 0, "accepted-invalid LIFE-8"},
      {"imported again and deleted", true, 1, "accepted-invalid LIFE-8"},
      {"refused, but deleted", false, 1, "deleter-called-twice LIFE-3"},
  };
  for (const Row& row : rows) {
    dlc::UsedCapsuleFacts f;
    f.used_name = "used_dltensor_versioned";
    f.imported = row.imported;
    f.consumer_error = "expected dltensor_versioned";
    f.consumer_calls = row.calls;
    f.first_call_where = "release()";
    f.consumer_label = "c@v1.3";
    expect_verdict(row, f, dlc::judge_used_capsule);
  }
}

TEST_CASE("judge: a device refusal's exception (DEV-3)", "[unit]") {
  struct Row {
    const char* what;
    const char* error;
    bool buffer_error;
    const char* expected;
  };
  const Row rows[] = {
      {"BufferError", "BufferError: cannot read device 2", true, "none"},
      {"a subclass of BufferError", "BufferError subclass Mine: no", true, "none"},
      {"RuntimeError", "RuntimeError: Unsupported device", false, "wrong-refusal-exception DEV-3"},
  };
  for (const Row& row : rows) {
    dlc::DeviceRefusalFacts f;
    f.device_type = 2;
    f.consumer_error = row.error;
    f.buffer_error = row.buffer_error;
    f.consumer_label = "python:lib@v1.3";
    expect_verdict(row, f, dlc::judge_device_refusal);
  }
}

TEST_CASE("judge: a capsule under no DLPack name (LIFE-1)", "[unit]") {
  struct Row {
    const char* what;
    const char* name;
    bool imported;
    uint32_t calls;
    const char* expected;
  };
  const Row rows[] = {
      {"refused, deleter left alone", "DLTensor", false, 0, "none"},
      {"imported", "DLTensor", true, 0, "accepted-invalid LIFE-1"},
      {"imported with no name", nullptr, true, 1, "accepted-invalid LIFE-1"},
      {"refused, but deleted", nullptr, false, 1, "deleter-called-twice LIFE-3"},
  };
  for (const Row& row : rows) {
    dlc::UsedCapsuleFacts f;
    f.used_name = row.name;
    f.foreign_name = true;
    f.imported = row.imported;
    f.consumer_error = "expected a dltensor capsule";
    f.consumer_calls = row.calls;
    f.first_call_where = "consume()";
    f.consumer_label = "c@v1.3";
    expect_verdict(row, f, dlc::judge_used_capsule);
  }
}

TEST_CASE("judge: the producer's handoff against the request", "[unit]") {
  Tensor t;
  DLCRequest request{};
  request.has_max_version = 1;
  request.max_version = {1, 3};
  request.tensor = t.spec;
  const uint64_t requested = t.digest();
  uint64_t encoded = 0;  // the values in another element encoding, when nonzero
  auto judge = [&](DLCHandoff h, DLCVersion own, bool negotiation = false) {
    dlc::HandoffFacts f;
    f.request = &request;
    f.handoff = h;
    f.producer_version = own;
    f.negotiation_only = negotiation;
    f.expected.spec = &request.tensor;
    f.expected.digest_known = true;
    f.expected.digest = requested;
    f.expected.elements = 6;
    f.expected.encoding_digest_known = encoded != 0;
    f.expected.encoding_digest = encoded;
    f.expected.encoding = "in another encoding";
    dlc::Finding out;
    dlc::judge_handoff(f, &out);
    INFO(out.words);
    return verdict(out);
  };
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "none");
  CHECK(judge({nullptr, &t.versioned}, {1, 3}) == "producer-violation LIFE-1");
  CHECK(judge({"tensor", &t.versioned}, {1, 3}) == "producer-violation LIFE-1");
  t.versioned.version = {1, 0};
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "wrong-version-field VER-1");
  t.versioned.version = {1, 3};
  // VER-4: a legacy caller gets a legacy struct; a caller of the producer's major a versioned one.
  request.has_max_version = 0;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "versioned-to-legacy-caller VER-4");
  CHECK(judge({"dltensor", &t.legacy}, {1, 3}) == "none");
  request.has_max_version = 1;
  CHECK(judge({"dltensor", &t.legacy}, {1, 3}) == "negotiation-downgrade VER-4");
  t.versioned.version = {2, 0};
  CHECK(judge({"dltensor_versioned", &t.versioned}, {2, 0}, true) ==
        "unsupported-version-returned VER-4");
  t.versioned.version = {1, 3};
  // Fields and values against the request.
  t.shape[0] = 3;
  t.shape[1] = 2;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation LAY-1");
  t.shape[0] = 2;
  t.shape[1] = 3;
  t.data[4] = 40;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation LAY-4");
  // The same wrong values, when they are exactly the right ones in another element encoding (the
  // other byte order, unpacked sub-byte elements), break DT-3; other wrong values stay LAY-4.
  encoded = t.digest();
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation DT-3");
  t.data[4] = 41;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation LAY-4");
  encoded = 0;
  t.data[4] = 4;
  // A complex type stated with the width of one of its parts breaks DT-3; another dtype DT-1.
  request.tensor.dtype = {5, 64, 1};
  t.versioned.dl_tensor.dtype = {5, 32, 1};
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation DT-3");
  t.versioned.dl_tensor.dtype = {1, 64, 1};
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation DT-1");
  request.tensor.dtype = t.spec.dtype;
  t.versioned.dl_tensor.dtype = t.spec.dtype;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "none");
  request.copy = 1;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation FLAG-2");
  t.versioned.flags = dlc::abi::kFlagIsCopied;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "none");
  request.copy = -1;
  request.tensor.options = DLC_SPEC_READ_ONLY;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation FLAG-1b");
  request.tensor.options = 0;
  t.versioned.dl_tensor.strides = nullptr;
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 3}) == "producer-violation LAY-5");
  t.versioned.version = {1, 1};
  CHECK(judge({"dltensor_versioned", &t.versioned}, {1, 1}) == "none");  // compact: NULL is fine
}

TEST_CASE("judge: refusals", "[unit]") {
  DLCRequest request{};
  request.has_max_version = 1;
  request.max_version = {1, 3};
  auto judge = [&](int rc, DLCVersion own, bool negotiation, bool in_profile) {
    dlc::RefusalFacts f;
    f.request = &request;
    f.rc = rc;
    f.error = "no";
    f.producer_version = own;
    f.negotiation_only = negotiation;
    f.in_profile = in_profile;
    f.tensor_rule = dlc::Rule::LAY_8;
    dlc::Finding out;
    dlc::judge_refusal(f, &out);
    return verdict(out);
  };
  CHECK(judge(DLC_ERR_BUFFER, {1, 3}, true, false) == "negotiation-refused VER-4");
  CHECK(judge(DLC_ERR_BUFFER, {2, 0}, true, false) == "none");  // nothing a 1.x caller reads
  CHECK(judge(DLC_ERR_TYPE, {1, 3}, false, false) == "producer-violation VER-5");
  CHECK(judge(DLC_ERR_TYPE, {0, 0}, false, false) == "none");  // a legacy producer may
  CHECK(judge(DLC_ERR_BUFFER, {1, 3}, false, true) == "export-refused LAY-8");
  CHECK(judge(DLC_ERR_BUFFER, {1, 3}, false, false) == "none");
  CHECK(judge(DLC_ERR_INTERNAL, {1, 3}, false, false) == "plugin-error ");
  request.has_max_version = 0;
  CHECK(judge(DLC_ERR_BUFFER, {1, 3}, true, false) == "none");  // a legacy caller may be refused
}

TEST_CASE("judge: the import against the truth", "[unit]") {
  Tensor t;
  dlc::ValidateResult valid, invalid;
  dlc::validate(DLCHandoff{"dltensor_versioned", &t.versioned}, dlc::ValidateOptions{}, &valid);
  Tensor bad;
  bad.versioned.dl_tensor.dtype = {99, 32, 1};
  dlc::validate(DLCHandoff{"dltensor_versioned", &bad.versioned}, dlc::ValidateOptions{}, &invalid);
  DLCObservation obs{};
  obs.ndim = 2;
  obs.shape[0] = 2;
  obs.shape[1] = 3;
  obs.dtype = {2, 32, 1};
  obs.digest = t.digest();
  obs.elements_read = 6;
  // Known misreadings: NULL strides read column-major (LAY-5), packed bits highest first (DT-3);
  // a digest of 0 is none.
  dlc::KnownMisreading misreadings[2] = {
      {0, dlc::Rule::LAY_5, "elements in row-major order", "read them in column-major order"},
      {0, dlc::Rule::DT_3, "bytes lowest bits first", "read each element's bits highest first"}};
  uint64_t& column_major = misreadings[0].digest;
  uint64_t& high_bits_first = misreadings[1].digest;
  auto judge = [&](int rc, const dlc::ValidateResult& truth, bool must_accept,
                   const DLCObservation& o, bool legacy_answer = false) {
    dlc::ImportFacts f;
    f.misreadings = misreadings;
    f.misreading_count = 2;
    f.rc = rc;
    f.legacy_answer_to_versioned_ask = legacy_answer;
    f.truth_known = true;
    f.truth = &truth;
    f.must_accept = must_accept;
    f.tensor_rule = dlc::Rule::LAY_1;
    f.spec = &t.spec;
    f.observation = &o;
    f.digest_known = true;
    f.digest = t.digest();
    f.elements = 6;
    dlc::Finding out;
    dlc::judge_import(f, &out);
    return verdict(out);
  };
  CHECK(judge(DLC_OK, valid, true, obs) == "none");
  CHECK(judge(DLC_ERR_BUFFER, valid, true, obs) == "rejected-valid LAY-1");
  CHECK(judge(DLC_ERR_BUFFER, valid, false, obs) == "none");  // outside the consumer's profile
  // A consumer that asked with max_version and refuses a legacy producer's legacy answer: VER-4,
  // as pyarrow's Tensor.from_dlpack does in the frameworks report.
  CHECK(judge(DLC_ERR_BUFFER, valid, true, obs, true) == "rejected-valid VER-4");
  CHECK(judge(DLC_OK, invalid, false, obs) == "accepted-invalid DT-2");
  CHECK(judge(DLC_ERR_BUFFER, invalid, false, obs) == "none");
  DLCObservation wrong = obs;
  wrong.digest ^= 1;
  CHECK(judge(DLC_OK, valid, true, wrong) == "wrong-data LAY-4");
  // Wrong values that are exactly NULL strides read column-major break LAY-5; others stay LAY-4.
  column_major = wrong.digest;
  CHECK(judge(DLC_OK, valid, true, wrong) == "wrong-data LAY-5");
  CHECK(judge(DLC_OK, valid, true, obs) == "none");
  wrong.digest ^= 2;
  CHECK(judge(DLC_OK, valid, true, wrong) == "wrong-data LAY-4");
  wrong.digest ^= 2;
  column_major = 0;
  // Exactly packed sub-byte elements read highest bits first break DT-3.
  high_bits_first = wrong.digest;
  CHECK(judge(DLC_OK, valid, true, wrong) == "wrong-data DT-3");
  CHECK(judge(DLC_OK, valid, true, obs) == "none");
  high_bits_first = 0;
  DLCObservation shape = obs;
  shape.shape[1] = 2;
  CHECK(judge(DLC_OK, valid, true, shape) == "wrong-metadata LAY-1");

  // DEV-2 binds producers: a CPU tensor with device_id 3 may be taken, and one read right is an
  // INFO observation; read wrong, it is wrong data; refused, nothing.
  Tensor cpu3;
  cpu3.versioned.dl_tensor.device = {1, 3};
  dlc::ValidateResult producers_only;
  dlc::validate(DLCHandoff{"dltensor_versioned", &cpu3.versioned}, dlc::ValidateOptions{},
                &producers_only);
  REQUIRE_FALSE(producers_only.accepted);  // the producer broke DEV-2
  CHECK(producers_only.first_consumer_must() == nullptr);
  CHECK(judge(DLC_OK, producers_only, false, obs) == "producer-rule-accepted DEV-2");
  CHECK(dlc::severity_of(dlc::FindingClass::producer_rule_accepted, dlc::Rule::DEV_2) ==
        dlc::Severity::info);
  CHECK(judge(DLC_OK, producers_only, false, wrong) == "wrong-data LAY-4");
  CHECK(judge(DLC_ERR_BUFFER, producers_only, false, obs) == "none");
  // Beside a rule that binds consumers too, the tensor is invalid for the consumer as before.
  Tensor both;
  both.versioned.dl_tensor.device = {1, 3};
  both.versioned.dl_tensor.dtype = {99, 32, 1};
  dlc::ValidateResult invalid_too;
  dlc::validate(DLCHandoff{"dltensor_versioned", &both.versioned}, dlc::ValidateOptions{},
                &invalid_too);
  CHECK(judge(DLC_OK, invalid_too, false, obs) == "accepted-invalid DT-2");
}

TEST_CASE("judge: faults become findings from the arena's facts", "[unit]") {
  struct Row {
    const char* what;
    bool found;
    DLCAllocKind kind;
    dlc::abi::StructKind struct_kind;
    dlc::BlockState state;
    int64_t offset;
    bool write, exec, gp, vector, garbage;
    uintptr_t address;
    const char* expected;
  };
  using K = dlc::abi::StructKind;
  using S = dlc::BlockState;
  const Row rows[] = {
      {"past a legacy struct", true, DLC_ALLOC_STRUCT, K::legacy, S::live, 72, false, false, false,
       false, false, 1, "struct-overread LAY-2"},
      {"past a foreign major's head", true, DLC_ALLOC_STRUCT, K::foreign_major, S::live, 32, false,
       false, false, false, false, 1, "future-major-touched VER-2"},
      {"past the data", true, DLC_ALLOC_DATA, K::unknown, S::live, 256, false, false, false, false,
       false, 1, "out-of-bounds LAY-10"},
      {"past the shape", true, DLC_ALLOC_SHAPE, K::unknown, S::live, 16, false, false, false, false,
       false, 1, "out-of-bounds LAY-1"},
      {"after the deleter", true, DLC_ALLOC_DATA, K::unknown, S::freed, 4, false, false, false,
       false, false, 1, "use-after-delete LIFE-6"},
      {"the deleter field of a deleted struct", true, DLC_ALLOC_STRUCT, K::legacy, S::freed, 56,
       false, false, false, false, false, 1, "deleter-called-twice LIFE-3"},
      {"a write to read-only data", true, DLC_ALLOC_DATA, K::unknown, S::read_only, 0, true, false,
       false, false, false, 1, "write-to-read-only FLAG-1"},
      {"a device pointer", true, DLC_ALLOC_DATA, K::unknown, S::device_poison, 8, false, false,
       false, false, false, 1, "device-pointer-dereferenced DEV-3"},
      {"the data of an invalid tensor", true, DLC_ALLOC_DATA, K::unknown, S::no_storage, 0, false,
       false, false, false, false, 1, "out-of-bounds LAY-8"},
      {"a NULL call", false, DLC_ALLOC_DATA, K::unknown, S::live, 0, false, true, false, false,
       false, 0, "null-deleter-called LIFE-4"},
      {"a call into a buffer", true, DLC_ALLOC_SHAPE, K::unknown, S::live, 0, false, true, false,
       false, false, 1, "bad-function-pointer LAY-2"},
      {"a return into garbage", false, DLC_ALLOC_DATA, K::unknown, S::live, 0, false, true, false,
       false, true, 0x40, "memory-corruption LAY-8"},
      {"an aligned load on misaligned data", false, DLC_ALLOC_DATA, K::unknown, S::live, 0, false,
       false, true, true, false, 0, "misaligned-access LAY-9"},
      {"outside every buffer", false, DLC_ALLOC_DATA, K::unknown, S::live, 0, false, false, false,
       false, false, 0x1234, "wild-pointer LAY-8"},
  };
  for (const Row& row : rows) {
    dlc::FaultFacts f;
    f.signal.signal = SIGSEGV;
    f.signal.address = row.address;
    f.signal.is_write = row.write;
    f.signal.is_exec = row.exec;
    f.signal.general_protection = row.gp;
    f.signal.aligned_vector_insn = row.vector;
    f.signal.returned_into_garbage = row.garbage;
    f.block.found = row.found;
    f.block.kind = row.kind;
    f.block.struct_kind = row.struct_kind;
    f.block.state = row.state;
    f.block.offset = row.offset;
    f.block.size = row.kind == DLC_ALLOC_STRUCT ? (row.struct_kind == K::legacy ? 64 : 24)
                                                : (row.kind == DLC_ALLOC_SHAPE ? 16 : 256);
    f.case_rule = dlc::Rule::LAY_8;
    f.where = "consume()";
    f.plugin = "c@v1.3";
    expect_verdict(row, f, dlc::judge_fault);
    // A fault is the party's in whose code it happened, whatever its class's own role.
    for (const dlc::Role role : {dlc::Role::consumer, dlc::Role::producer}) {
      f.role = role;
      dlc::Finding out;
      dlc::judge_fault(f, &out);
      CHECK(out.role == role);
    }
  }
}

TEST_CASE("judge: ownership (LIFE-5)", "[unit]") {
  dlc::OwnershipFacts f;
  dlc::Finding out;
  dlc::judge_ownership(f, &out);
  CHECK(verdict(out) == "none");
  f.producer_leaked_blocks = 1;
  f.producer_leaked_bytes = 32;
  f.producer_leak_site = "libx.so+0x10";
  dlc::judge_ownership(f, &out);
  CHECK(verdict(out) == "deleter-leaks LIFE-5");
  CHECK(std::string(out.words).find("32 bytes") != std::string::npos);
  f.producer_leaked_blocks = 0;
  f.consumer_foreign_frees = 1;
  dlc::judge_ownership(f, &out);
  CHECK(verdict(out) == "frees-unowned LIFE-5");
}

TEST_CASE("judge: how a consumer asks (VER-5, STRM-1, STRM-3, STRM-4)", "[unit]") {
  using A = dlc::AskCall;
  auto ask = [](bool max_version, A::Answer answer = A::Answer::capsule) {
    A c;
    c.has_max_version = max_version;
    c.max_version = {1, 3};
    c.answer = answer;
    return c;
  };
  A device;
  device.kind = A::Kind::device;
  A stream_zero = ask(true);
  stream_zero.stream_given = true;
  A stream_minus_two = ask(true);  // below -1, or no int at all (the bridge records -2)
  stream_minus_two.stream_given = true;
  stream_minus_two.stream = -2;
  A copy_true = ask(true), copy_false = ask(true), to_cuda = ask(true);
  copy_true.copy = 1;
  copy_false.copy = 0;
  to_cuda.dl_device_given = true;
  to_cuda.dl_device = {2, 0};
  A copy_kept = ask(false, A::Answer::type_error);  // the retry without max_version keeps copy
  copy_kept.copy = 1;
  A version_list = ask(true), device_list = ask(true);
  version_list.max_version_malformed = true;  // max_version=[1, 3]
  device_list.dl_device_given = true;
  device_list.dl_device_malformed = true;  // dl_device=[1, 0]
  const A type_error = ask(true, A::Answer::type_error), buffer_error = ask(true, A::Answer::buffer_error);
  struct Row {
    const char* what;
    std::vector<A> calls;
    bool imported;
    int caller_copy;
    bool caller_device;
    DLCVersion version;
    const char* expected;
  };
  const Row rows[] = {
      {"asks with max_version", {device, ask(true)}, true, -1, false, {1, 3}, "none"},
      {"a legacy consumer asks without", {ask(false)}, true, -1, false, {0, 8}, "none"},
      {"a 1.x consumer asks without", {ask(false)}, true, -1, false, {1, 0}, "no-max-version-asked VER-5"},
      {"falls back after TypeError", {type_error, ask(false)}, true, -1, false, {1, 3}, "none"},
      {"gives up after TypeError", {type_error}, false, -1, false, {1, 3}, "no-version-fallback VER-5"},
      {"keeps copy on the retry, then gives up", {type_error, copy_kept}, false, 1, false, {1, 3}, "no-version-fallback VER-5"},
      {"drops copy on the retry", {type_error, ask(false)}, true, 1, false, {1, 3}, "none"},
      {"refused with BufferError, no retry", {buffer_error}, false, -1, false, {1, 3}, "none"},
      {"retries after BufferError", {buffer_error, ask(false)}, true, -1, false, {1, 3}, "retry-after-refusal VER-5"},
      {"adds max_version on the retry", {ask(false, A::Answer::type_error), ask(true)}, true, -1, false, {0, 8}, "retry-after-refusal VER-5"},
      {"calls twice", {ask(true), ask(true)}, true, -1, false, {1, 3}, "second-dlpack-call VER-5"},
      {"stream=0 on the CPU", {stream_zero}, true, -1, false, {1, 3}, "stream-on-cpu STRM-1"},
      {"stream=-2 on the CPU", {stream_minus_two}, true, -1, false, {1, 3}, "bad-stream-value STRM-2"},
      {"copy=True passed on", {copy_true}, true, 1, false, {1, 3}, "none"},
      {"copy=True turned into False", {copy_false}, true, 1, false, {1, 3}, "keyword-not-passed-on STRM-4"},
      {"copy=False dropped", {ask(true)}, true, 0, false, {1, 3}, "keyword-dropped STRM-4"},
      {"copy dropped on the TypeError retry", {type_error, ask(false)}, true, 1, false, {1, 3}, "none"},
      {"dl_device of another device", {to_cuda}, true, -1, true, {1, 3}, "keyword-not-passed-on STRM-3"},
      {"dl_device left None", {ask(true)}, true, -1, true, {1, 3}, "none"},
      {"max_version as a list", {version_list}, true, -1, false, {1, 3}, "malformed-keyword-passed VER-5"},
      {"dl_device as a list", {device_list}, true, -1, true, {1, 3}, "malformed-keyword-passed STRM-3"},
  };
  for (const Row& row : rows) {
    dlc::AskFacts f;
    f.calls = row.calls.data();
    f.count = row.calls.size();
    f.imported = row.imported;
    f.caller_copy = row.caller_copy;
    f.caller_device = row.caller_device;
    f.caller_device_value = {1, 0};
    f.consumer_version = row.version;
    f.consumer_label = "consumer@1";
    expect_verdict(row, f, &dlc::judge_asks);
  }
  dlc::Finding dropped;
  dlc::AskFacts f;
  const A only = ask(true);
  f.calls = &only;
  f.count = 1;
  f.imported = true;
  f.caller_copy = 0;
  dlc::judge_asks(f, &dropped);
  CHECK_FALSE(dropped.fails());  // a dropped keyword is noted, never a failure
}

TEST_CASE("judge: a write through an import of immutable data (FLAG-1, FLAG-1b)", "[unit]") {
  struct Row {
    const char* what;
    bool versioned, flag, asked, producer_versioned, consumer_read_only;
    const char* expected;
  };
  const Row rows[] = {
      {"flag set, consumer with read-only arrays", true, true, true, true, true, "read-only-made-writable FLAG-1"},
      {"flag set, consumer without", true, true, true, true, false, "read-only-ignored FLAG-1"},
      {"versioned without the flag", true, false, true, true, false, "producer-violation FLAG-1b"},
      {"legacy to a versioned ask", false, false, true, true, false, "producer-violation FLAG-1b"},
      {"legacy to a legacy ask", false, false, false, true, false, "read-only-exported-legacy FLAG-1"},
      {"a legacy-only producer", false, false, true, false, false, "read-only-exported-legacy FLAG-1"},
  };
  for (const Row& row : rows) {
    dlc::WriteThroughFacts f;
    f.crossed_versioned = row.versioned;
    f.read_only_flag = row.flag;
    f.asked_versioned = row.asked;
    f.producer_versioned = row.producer_versioned;
    f.consumer_has_read_only = row.consumer_read_only;
    expect_verdict(row, f, &dlc::judge_write_through);
  }
}

TEST_CASE("judge: a size in LAY-10's band may be refused and may be imported", "[unit]") {
  // NumPy refuses [0, 2^63 - 1] in float16 ("array is too big"): the non-zero extents give
  // 2^64 - 2 bytes. A consumer that does so is not blamed, nor one that imports it; past 64 bits
  // a refusal is required.
  constexpr int64_t two62 = int64_t{1} << 62;
  struct Row {
    const char* what;
    std::vector<int64_t> shape;
    int64_t stride;  // every dimension's
    DLCDtype dtype;
    int rc;
    const char* expected;
  };
  const DLCDtype i8{0, 8, 1}, f16{2, 16, 1}, f32{2, 32, 1};
  const Row rows[] = {
      {"2^64 - 2 bytes, zero-size, refused", {0, INT64_MAX}, 1, f16, DLC_ERR_BUFFER, "none"},
      {"2^64 - 2 bytes, zero-size, imported", {0, INT64_MAX}, 1, f16, DLC_OK, "none"},
      {"2^63 bytes, zero-size, refused", {0, two62}, 1, f16, DLC_ERR_BUFFER, "none"},
      {"2^63 bytes, zero-size, imported", {0, two62}, 1, f16, DLC_OK, "none"},
      {"2^64 - 1 bytes, zero-size, refused", {0, 3, 6148914691236517205}, 1, i8, DLC_ERR_BUFFER,
       "none"},
      {"2^63 bytes, stride 0, refused", {two62 >> 1, 2}, 0, f16, DLC_ERR_BUFFER, "none"},
      {"2^63 bytes, stride 0, imported", {two62 >> 1, 2}, 0, f16, DLC_OK, "none"},
      // Below the band a refusal is rejected-valid ...
      {"2^63 - 1 bytes, zero-size, refused", {0, INT64_MAX}, 1, i8, DLC_ERR_BUFFER,
       "rejected-valid LAY-7"},
      {"2^63 - 2 bytes, stride 0, refused", {two62 - 1}, 0, f16, DLC_ERR_BUFFER,
       "rejected-valid LAY-7"},
      // ... and past 64 bits an import is accepted-invalid.
      {"2^64 bytes, zero-size, imported", {0, two62}, 1, f32, DLC_OK, "accepted-invalid LAY-10"},
      {"2^64 bytes, zero-size, refused", {0, two62}, 1, f32, DLC_ERR_BUFFER, "none"},
      {"2^64 bytes, stride 0, imported", {two62}, 0, f32, DLC_OK, "accepted-invalid LAY-10"},
  };
  for (const Row& row : rows) {
    std::vector<int64_t> shape = row.shape;
    const std::vector<int64_t> strides(shape.size(), row.stride);
    static uint8_t storage[8];
    dlc::abi::ManagedTensorVersioned m{};
    m.version = {1, 3};
    m.dl_tensor = dlc::abi::Tensor{storage, {1, 0}, static_cast<int32_t>(shape.size()), row.dtype,
                                   shape.data(), const_cast<int64_t*>(strides.data()), 0};
    dlc::ValidateResult truth;
    dlc::validate(DLCHandoff{"dltensor_versioned", &m}, dlc::ValidateOptions{}, &truth);
    DLCObservation obs{};
    obs.ndim = m.dl_tensor.ndim;
    dlc::ImportFacts f;
    f.rc = row.rc;
    f.consumer_error = "array is too big";
    f.truth_known = true;
    f.truth = &truth;
    f.must_accept = true;
    f.tensor_rule = dlc::Rule::LAY_7;  // as the fuzzers and the catalogue name a zero-size case
    f.observation = &obs;
    dlc::Finding out;
    dlc::judge_import(f, &out);
    INFO(row.what << ": " << out.words);
    CHECK(verdict(out) == row.expected);
  }
}

// Device memory, on recorded traces: what a consumer asked, and what it read back on the device
// (no GPU needed: the CUDA cases themselves run on one, through tools/gpu-check).
TEST_CASE("judge: the stream a consumer passes for device memory (STRM-1, STRM-2)", "[unit]") {
  struct Row {
    const char* what;
    int32_t device_type;
    bool has_stream;
    int64_t stream;
    const char* expected;
  };
  const Row rows[] = {
      {"CUDA, a stream handle", 2, true, 0x7f00123400, "none"},
      {"CUDA, the legacy default stream (1)", 2, true, 1, "none"},
      {"CUDA, the per-thread default stream (2)", 13, true, 2, "none"},
      {"CUDA, -1: the consumer synchronises itself", 2, true, -1, "none"},
      {"CUDA, None", 2, false, 0, "none"},
      {"CUDA, 0 is disallowed", 2, true, 0, "bad-stream-value STRM-2"},
      {"pinned memory, 0 is disallowed", 3, true, 0, "bad-stream-value STRM-2"},
      {"CUDA, -7 is no stream", 2, true, -7, "bad-stream-value STRM-2"},
      {"ROCm, 0 is the default", 10, true, 0, "none"},
      {"ROCm, 1 is not supported", 10, true, 1, "bad-stream-value STRM-2"},
      {"CPU, a stream", 1, true, 5, "stream-on-cpu STRM-1"},
      {"CPU, None", 1, false, 0, "none"},
  };
  for (const Row& row : rows) {
    dlc::StreamFacts f;
    f.device_type = row.device_type;
    f.has_stream = row.has_stream;
    f.stream = row.stream;
    f.consumer_label = "cuda-consumer@v1.3";
    expect_verdict(row, f, dlc::judge_stream_ask);
  }
}

TEST_CASE("judge: device values read before the producer's write landed (STRM-1)", "[unit]") {
  struct Row {
    const char* what;
    bool has_stream;
    int64_t stream;
    bool read_before_write;
    const char* expected;
    const char* blames;  // whose name the words put first
    bool host_copy = false;
  };
  const Row rows[] = {
      {"the stream waited", true, 0x7f0012, false, "none", ""},
      {"a producer that ignored the consumer's stream", true, 0x7f0012, true,
       "stream-not-synchronised STRM-1", "expected producer@v1.3"},
      {"a consumer that passed no stream", false, 0, true, "stream-not-synchronised STRM-1",
       "expected consumer@v1.3"},
      {"a consumer that passed -1 and did not synchronise", true, -1, true,
       "stream-not-synchronised STRM-1", "consumer@v1.3 passed stream=-1"},
      // A host copy (dl_device=(1, 0)): the host consumer passes no stream; the producer syncs.
      {"a host copy made after the write", false, 0, false, "none", "", true},
      {"a host copy made before the write landed", false, 0, true,
       "stream-not-synchronised STRM-1", "expected producer@v1.3", true},
  };
  for (const Row& row : rows) {
    dlc::StreamFacts f;
    f.device_type = 2;
    f.has_stream = row.has_stream;
    f.stream = row.stream;
    f.read_before_write = row.read_before_write;
    f.host_copy = row.host_copy;
    f.consumer_label = "consumer@v1.3";
    f.producer_label = "producer@v1.3";
    expect_verdict(row, f, dlc::judge_stream_read);
    dlc::Finding out;
    dlc::judge_stream_read(f, &out);
    CHECK(std::string(out.words).rfind(row.blames, 0) == 0);
    // The role a suppression entry names is the party the words blame.
    if (out.any()) {
      const bool producer = std::string(row.blames).find("producer@") != std::string::npos;
      CHECK(out.role == (producer ? dlc::Role::producer : dlc::Role::consumer));
    }
  }
}

TEST_CASE("judge: device memory freed by its own allocator (LIFE-5)", "[unit]") {
  struct Row {
    const char* what;
    bool deleter_ran;
    uint32_t unfreed, mismatched;
    const char* expected;
  };
  const Row rows[] = {
      {"every allocation freed by its own free function", true, 0, 0, "none"},
      {"cudaFree on cudaMallocHost memory", true, 0, 1, "wrong-free-function LIFE-5"},
      {"device memory never freed", true, 1, 0, "deleter-leaks LIFE-5"},
      {"not yet deleted: nothing to judge", false, 1, 0, "none"},
  };
  for (const Row& row : rows) {
    dlc::DeviceMemoryFacts f;
    f.deleter_ran = row.deleter_ran;
    f.ledger.unfreed = row.unfreed;
    f.ledger.unfreed_bytes = 256;
    f.ledger.unfreed_allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC;
    f.ledger.mismatched = row.mismatched;
    f.ledger.allocated_with = DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST;
    f.ledger.freed_with = DLC_DEVICE_ALLOC_CUDA_MALLOC;
    f.producer_label = "planted-cuda-wrong-free-producer@v1.3";
    expect_verdict(row, f, dlc::judge_device_memory);
  }
  dlc::DeviceMemoryFacts f;
  f.deleter_ran = true;
  f.ledger.mismatched = 1;
  f.ledger.allocated_with = DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST;
  f.ledger.freed_with = DLC_DEVICE_ALLOC_CUDA_MALLOC;
  dlc::Finding out;
  dlc::judge_device_memory(f, &out);
  CHECK(std::string(out.words).find("cudaMallocHost memory with cudaFreeHost but it called "
                                    "cudaFree") != std::string::npos);
}
