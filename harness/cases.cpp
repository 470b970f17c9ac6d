// The tensor catalogue and the case plan. Every expectation here has a reason in a comment or in
// the rule it names; the matrix compares what happens against these expectations.
#include "cases.h"

#include <cstring>
#include <map>

namespace dlc {
namespace {

DLCTensorSpec make(uint8_t code, uint8_t bits, std::initializer_list<int64_t> shape,
                   uint16_t lanes = 1) {
  DLCTensorSpec s{};
  s.dtype = {code, bits, lanes};
  s.ndim = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t extent : shape) s.shape[i++] = extent;
  s.device = {1, 0};
  s.fill_seed = 0x5eed;
  return s;
}

void strides(DLCTensorSpec& s, std::initializer_list<int64_t> values) {
  s.has_strides = 1;
  int i = 0;
  for (int64_t v : values) s.strides[i++] = v;
}

std::vector<TensorCase> build_catalogue() {
  std::vector<TensorCase> c;
  auto add = [&](const char* name, DLCTensorSpec spec, bool must_accept, bool base,
                 const char* rule) -> TensorCase& {
    c.push_back(TensorCase{name, spec, -1, must_accept, base, rule});
    c.back().spec.fill_seed += static_cast<uint32_t>(c.size());
    return c.back();
  };
  // Core cases: 256-byte payloads, so the last element ends flush against the guard page.
  add("f32_8x8", make(2, 32, {8, 8}), true, true, "LAY-1");
  {
    DLCTensorSpec s = make(2, 64, {8, 4});  // a transposed view of a 4x8 array
    strides(s, {1, 8});
    add("f64_8x4_transposed", s, true, true, "LAY-4");
  }
  {
    DLCTensorSpec s = make(0, 16, {128});
    s.byte_offset = 64;
    add("i16_128_byte_offset", s, true, true, "LAY-4");
  }
  {
    DLCTensorSpec s = make(2, 32, {});
    s.options = DLC_SPEC_NULL_SHAPE_IF_SCALAR;
    add("f32_scalar_null_shape", s, true, true, "LAY-6");
  }
  {
    DLCTensorSpec s = make(2, 32, {0, 4});
    s.options = DLC_SPEC_NULL_DATA_IF_EMPTY;
    add("f32_0x4_null_data", s, true, true, "LAY-7");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_NULL_STRIDES;  // producers of >= 1.2 emit strides anyway (LAY-5)
    add("f32_8x8_null_strides", s, true, true, "LAY-5");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_READ_ONLY;
    add("f32_8x8_read_only", s, true, true, "FLAG-1");
  }
  {
    TensorCase& t = add("f32_8x8_copy_true", make(2, 32, {8, 8}), true, true, "STRM-4");
    t.copy = 1;
  }
  // Edge cases: a conformant consumer imports them correctly or refuses cleanly.
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {-8, 1});
    add("f32_8x8_negative_stride", s, false, false, "LAY-8");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {0, 1});
    add("f32_8x8_broadcast_zero_stride", s, false, false, "LAY-8");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {1, 1});
    add("f32_8x8_overlapping", s, false, false, "LAY-8");
  }
  {
    DLCTensorSpec s = make(2, 32, {1, 64});
    strides(s, {12345, 1});
    add("f32_1x64_odd_unit_stride", s, false, false, "LAY-8");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.misalign = 4;
    add("f32_8x8_misaligned_data", s, false, false, "LAY-9");
  }
  add("f32_4x0_zero_size", make(2, 32, {4, 0}), true, false, "LAY-7");
  add("u8_scalar_shape_array", make(1, 8, {}), true, false, "LAY-6");
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.extra_flags = uint64_t{1} << 40;
    add("f32_8x8_unknown_flag_bit", s, false, false, "FLAG-4");
  }
  // Every dtype code of v0.6 to v1.3 at its allowed widths, 256 bytes each.
  struct Dt {
    const char* name;
    uint8_t code, bits;
    uint16_t lanes;
  };
  const Dt dtypes[] = {
      {"i8", 0, 8, 1},          {"i32", 0, 32, 1},
      {"i64", 0, 64, 1},        {"u16", 1, 16, 1},
      {"u64", 1, 64, 1},        {"f16", 2, 16, 1},
      {"f64", 2, 64, 1},        {"f32x4_lanes", 2, 32, 4},
      {"opaque64", 3, 64, 1},   {"bf16", 4, 16, 1},
      {"c64", 5, 64, 1},        {"c128", 5, 128, 1},
      {"bool", 6, 8, 1},        {"f8_e3m4", 7, 8, 1},
      {"f8_e4m3", 8, 8, 1},     {"f8_e4m3b11fnuz", 9, 8, 1},
      {"f8_e4m3fn", 10, 8, 1},  {"f8_e4m3fnuz", 11, 8, 1},
      {"f8_e5m2", 12, 8, 1},    {"f8_e5m2fnuz", 13, 8, 1},
      {"f8_e8m0fnu", 14, 8, 1}, {"f6_e2m3fn", 15, 6, 1},
      {"f6_e3m2fn", 16, 6, 1},  {"f4_e2m1fn", 17, 4, 1},
  };
  for (const Dt& d : dtypes) {
    const int64_t count = 2048 / (int64_t{d.bits} * d.lanes);
    add((std::string("dtype_") + d.name).c_str(), make(d.code, d.bits, {count}, d.lanes), false,
        false, "DT-1");
  }
  {
    DLCTensorSpec s = make(17, 4, {512});
    s.options = DLC_SPEC_SUBBYTE_PADDED;
    add("dtype_f4_padded", s, false, false, "FLAG-3");
  }
  // Invalid tensors: a conformant consumer refuses them.
  add("dtype_unknown_code_99", make(99, 32, {64}), false, false, "DT-2");
  add("dtype_f6_with_8_bits", make(15, 8, {256}), false, false, "DT-2");
  add("dtype_f4_with_8_bits", make(17, 8, {256}), false, false, "DT-2");
  add("dtype_zero_lanes", make(2, 32, {64}, 0), false, false, "DT-1");
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {2, 0};  // CUDA: the data pointer faults on the host
    add("device_cuda", s, false, false, "DEV-3");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {99, 0};
    add("device_unknown_99", s, false, false, "DEV-1");
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {1, 3};
    add("device_cpu_id_3", s, false, false, "DEV-2");
  }
  {
    DLCTensorSpec s = make(2, 32, {});
    s.ndim = 20;  // above the mock consumers' own limit of 16
    for (int i = 0; i < 20; ++i) s.shape[i] = 1;
    s.shape[19] = 64;
    add("f32_ndim20", s, false, false, "LAY-1");
  }
  add("shape_overflow_int64", make(2, 32, {INT64_MAX, 4}), false, false, "LAY-10");
  add("shape_negative_extent", make(2, 32, {-1, 4}), false, false, "LAY-10");
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_NULL_DELETER;
    add("f32_8x8_null_deleter", s, true, false, "LIFE-4");
  }
  return c;
}

int find_tensor(const char* name) {
  const auto& catalogue = tensor_catalogue();
  for (size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].name == name) return static_cast<int>(i);
  }
  return 0;
}

// Planted bugs: the class the matrix must report, and the exchange that exposes it.
struct Planted {
  const char* finding_class;
  const char* rule;
  const char* tensor;
  const char* partner;  // the built-in peer: a producer for planted consumers and vice versa
};
const std::map<std::string, Planted>& planted_table() {
  static const std::map<std::string, Planted> table = {
      {"planted-no-delete",
       {"deleter-never-called", "LIFE-3", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-double-delete",
       {"deleter-called-twice", "LIFE-3", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-early-delete",
       {"use-after-delete", "LIFE-6", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-null-deleter",
       {"null-deleter-called", "LIFE-4", "f32_8x8_null_deleter", "versioned-producer@v1.3"}},
      {"planted-read-past-legacy", {"struct-overread", "LAY-2", "f32_8x8", "legacy-producer@v0.6"}},
      {"planted-touch-future-major",
       {"future-major-touched", "VER-2", "f32_8x8", "future-major-producer@v1.3"}},
      {"planted-oob-data", {"out-of-bounds", "LAY-10", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-oob-shape", {"out-of-bounds", "LAY-1", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-oob-strides", {"out-of-bounds", "LAY-1", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-ignore-byte-offset",
       {"wrong-data", "LAY-4", "i16_128_byte_offset", "versioned-producer@v1.3"}},
      {"planted-ignore-strides",
       {"wrong-data", "LAY-4", "f64_8x4_transposed", "versioned-producer@v1.3"}},
      {"planted-write-read-only",
       {"write-to-read-only", "FLAG-1", "f32_8x8_read_only", "versioned-producer@v1.3"}},
      {"planted-accept-invalid",
       {"accepted-invalid", "DT-2", "dtype_unknown_code_99", "versioned-producer@v1.3"}},
      {"planted-reject-valid", {"rejected-valid", "LAY-1", "f32_8x8", "versioned-producer@v1.3"}},
      {"planted-null-strides-producer",
       {"producer-violation", "LAY-5", "f32_8x8", "strict-consumer@v1.3"}},
      {"planted-no-is-copied-producer",
       {"producer-violation", "FLAG-2", "f32_8x8_copy_true", "strict-consumer@v1.3"}},
      {"planted-versioned-to-legacy-producer",
       {"versioned-to-legacy-caller", "VER-4", "f32_8x8", "legacy-consumer@v0.6"}},
  };
  return table;
}

// Which raw layouts an old consumer reads correctly (the versioning RFC's S0 verdicts): the
// legacy prefix must be intact, with the deleter at offset 56.
bool legacy_prefix_intact(const std::string& layout) {
  return layout == "legacy" || layout == "variant-a1" || layout == "variant-a2" ||
         layout == "variant-a3";
}

std::string layout_of(const Participant& p) {
  const char* layout = p.plugin.table->layout;
  if (layout != nullptr) return layout;
  return p.plugin.table->has_max_version ? "versioned" : "legacy";
}

}  // namespace

const std::vector<TensorCase>& tensor_catalogue() {
  static const std::vector<TensorCase> catalogue = build_catalogue();
  return catalogue;
}

Participant describe(const LoadedPlugin& plugin, bool builtin) {
  Participant p;
  p.plugin = plugin;
  p.builtin = builtin;
  const DLCPlugin& t = *plugin.table;
  const std::string layout = t.layout ? t.layout : "";
  p.header = layout.rfind("variant-", 0) == 0 ? layout : plugin.header();
  p.label = std::string(t.name) + "@" + p.header;
  const bool old_header = t.dlpack_version.major == 0;
  if (layout.rfind("variant-", 0) == 0) {
    p.generation = Generation::variant;
  } else if (plugin.is_producer()) {
    p.generation = layout == "legacy"
                       ? (old_header ? Generation::old_abi : Generation::soft_updated)
                       : Generation::new_abi;
  } else {
    p.generation = !t.has_max_version
                       ? (old_header ? Generation::old_abi : Generation::soft_updated)
                       : Generation::new_abi;
  }
  if (builtin && planted_table().count(t.name) != 0) p.planted = t.name;
  return p;
}

std::vector<CaseDef> plan_matrix(const std::vector<Participant>& participants) {
  std::vector<CaseDef> plan;
  const auto& catalogue = tensor_catalogue();
  auto index_of = [&](const std::string& label) {
    for (size_t i = 0; i < participants.size(); ++i) {
      if (participants[i].label == label) return static_cast<int>(i);
    }
    return -1;
  };
  auto push = [&](int producer, int consumer, int tensor, bool raw, const std::string& scenario,
                  Expectation expected, const std::string& expected_class) -> CaseDef& {
    CaseDef c;
    c.producer = producer;
    c.consumer = consumer;
    c.tensor = tensor;
    c.raw = raw;
    const Participant& p = participants[producer];
    c.result.scenario = scenario;
    // An external plugin gets its own row or column in the report's grids ("v0.6 my-adapter"),
    // so that its findings never colour the cells of the built-in mocks of the same header.
    auto grid_header = [](const Participant& q) {
      return q.builtin ? q.header : q.header + " " + q.plugin.name();
    };
    c.result.producer = {p.plugin.name(), grid_header(p)};
    if (consumer >= 0) {
      c.result.consumer = {participants[consumer].plugin.name(), grid_header(participants[consumer])};
    } else {
      c.result.consumer = {"harness", "reference"};
    }
    c.result.tensor = catalogue[tensor].name;
    c.result.expected = expected;
    c.result.expected_class = expected_class;
    c.result.id = scenario + "/" + p.label + "/" +
                  (consumer >= 0 ? participants[consumer].label : std::string("harness")) + "/" +
                  catalogue[tensor].name;
    plan.push_back(std::move(c));
    return plan.back();
  };

  // 1. Every conformant producer x consumer pair through the capsule protocol, every tensor.
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    if (!p.plugin.is_producer() || !p.planted.empty() || p.generation == Generation::variant) {
      continue;
    }
    for (size_t ci = 0; ci < participants.size(); ++ci) {
      const Participant& c = participants[ci];
      if (!c.plugin.is_consumer() || !c.planted.empty() || c.generation == Generation::variant) {
        continue;
      }
      std::string scenario = "native";
      if (p.generation == Generation::soft_updated || c.generation == Generation::soft_updated) {
        scenario = "S2";
      } else if (p.generation == Generation::new_abi && c.generation == Generation::old_abi) {
        scenario = "S0";
      } else if (p.generation == Generation::old_abi && c.generation == Generation::new_abi) {
        scenario = "S1";
      }
      const bool future_major = p.plugin.name() == "future-major-producer";
      const bool legacy_struct = layout_of(p) == "legacy" || !c.plugin.table->has_max_version;
      for (size_t ti = 0; ti < catalogue.size(); ++ti) {
        const TensorCase& t = catalogue[ti];
        // Producer refusals that the rules call for: a legacy struct has no flags, so it cannot
        // say READ_ONLY (FLAG-1) or padded sub-byte (FLAG-3); a major-2 producer has nothing to
        // give a legacy caller (VER-4).
        Expectation expected = Expectation::pass;
        if (legacy_struct && (t.spec.options & (DLC_SPEC_READ_ONLY | DLC_SPEC_SUBBYTE_PADDED))) {
          expected = Expectation::skip;
        }
        if (future_major && !c.plugin.table->has_max_version) expected = Expectation::skip;
        const DLCVersion pv = p.plugin.table->dlpack_version;
        if ((t.spec.options & DLC_SPEC_SUBBYTE_PADDED) && pv.major == 1 && pv.minor < 1) {
          expected = Expectation::skip;
        }
        push(static_cast<int>(pi), static_cast<int>(ci), static_cast<int>(ti), false,
             t.base ? scenario : "edge", expected, "");
      }
    }
  }

  // 2. Raw, type-erased pointers: which layouts survive with no negotiation at all.
  const int raw_tensors[] = {find_tensor("f32_8x8"), find_tensor("i16_128_byte_offset")};
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    // One layout per header row: soft-updated legacy code on a 1.x header exchanges the same
    // legacy struct as the 0.x rows and is covered by S2.
    if (!p.plugin.is_producer() || !p.planted.empty() || !p.builtin ||
        p.generation == Generation::soft_updated) {
      continue;
    }
    for (size_t ci = 0; ci < participants.size(); ++ci) {
      const Participant& c = participants[ci];
      if (!c.plugin.is_consumer() || !c.planted.empty() || !c.builtin ||
          c.generation == Generation::soft_updated) {
        continue;
      }
      const std::string produced = layout_of(p);
      const std::string read_as = c.generation == Generation::variant
                                      ? c.header
                                      : (c.plugin.table->has_max_version ? "versioned" : "legacy");
      // An old reader survives layouts that keep the legacy prefix (the RFC's S0 verdicts); any
      // other reader needs exactly its own layout. A major-2 struct must be refused by a versioned
      // reader touching only the deleter (VER-2), which is a pass.
      bool works = read_as == "legacy" ? legacy_prefix_intact(produced) : produced == read_as;
      if (p.plugin.name() == "future-major-producer") works = read_as == "versioned";
      for (int ti : raw_tensors) {
        push(static_cast<int>(pi), static_cast<int>(ci), ti, true, "raw",
             works ? Expectation::pass : Expectation::broken, "");
      }
    }
  }

  // 3. Negotiation (VER-4): the harness asks each versioned producer for several max_versions.
  const DLCVersion asks[] = {{0, 0}, {0, 8}, {1, 0}, {1, 3}, {2, 0}};
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    if (!p.plugin.is_producer() || !p.planted.empty() || layout_of(p) != "versioned") continue;
    for (size_t ai = 0; ai < std::size(asks); ++ai) {
      const bool legacy_caller = ai == 0;
      CaseDef& c = push(static_cast<int>(pi), -1, 0, false, "negotiation", Expectation::pass, "");
      c.override_request = true;
      c.has_max_version = !legacy_caller;
      c.max_version = asks[ai];
      const std::string ask =
          legacy_caller ? "none"
                        : std::to_string(asks[ai].major) + "." + std::to_string(asks[ai].minor);
      c.result.tensor = "max_version=" + ask;
      c.result.id = "negotiation/" + p.label + "/max_version=" + ask;
      // The major-2 producer ignores max_version, as a raw or buggy producer would: it must be
      // caught handing 2.0 to a 1.x caller.
      if (p.plugin.name() == "future-major-producer" && asks[ai].major == 1) {
        c.result.expected = Expectation::broken;
        c.result.expected_class = "unsupported-version-returned";
      }
    }
  }

  // 4. Planted bugs: each must be caught with its class.
  for (size_t i = 0; i < participants.size(); ++i) {
    const Participant& bug = participants[i];
    if (bug.planted.empty()) continue;
    const Planted& planted = planted_table().at(bug.planted);
    const int partner = index_of(planted.partner);
    if (partner < 0) continue;
    const bool bug_is_producer = bug.plugin.is_producer();
    push(bug_is_producer ? static_cast<int>(i) : partner,
         bug_is_producer ? partner : static_cast<int>(i), find_tensor(planted.tensor), false,
         "planted", Expectation::broken, planted.finding_class);
  }

  // Unique ids: a pair can meet twice (a planted case on a core pair, say).
  std::map<std::string, int> seen;
  for (CaseDef& c : plan) {
    const int n = seen[c.result.id]++;
    if (n > 0) c.result.id += "#" + std::to_string(n + 1);
  }
  return plan;
}

}  // namespace dlc
