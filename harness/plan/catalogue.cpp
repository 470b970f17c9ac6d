// The tensor catalogue. Every hand-written case names the rule it exercises; the generated views
// are what frameworks export (NumPy's and PyTorch's slicing, transposing, broadcasting), built
// systematically for ndim 0 to 4 and de-duplicated by their layout.
#include "catalogue.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "abi.h"
#include "geometry.hpp"
#include "validate.h"

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
  return s;
}

void strides(DLCTensorSpec& s, std::initializer_list<int64_t> values) {
  s.has_strides = 1;
  int i = 0;
  for (int64_t v : values) s.strides[i++] = v;
}

// A seed from the name, so that adding a case never changes another's values.
uint32_t seed_of(const std::string& name) {
  uint64_t d = dlc_digest_update(dlc_digest_init(), name.data(), name.size());
  return static_cast<uint32_t>(d ^ (d >> 32));
}

// Fills a scratch copy as a producer would and reads it back in logical order. Overlapping
// strides make later elements overwrite earlier ones, exactly as in the producer.
void compute_digest(TensorCase& t) {
  const geo::SpecGeometry s = geo::geometry(t.spec);
  if (!s.g.valid || (t.spec.device.device_type != 1 && !t.real_device) ||
      s.g.storage_bytes > (uint64_t{64} << 20)) {
    return;
  }
  std::vector<uint8_t> storage(s.g.storage_bytes + 1);
  const int64_t lead = -s.g.min_offset * static_cast<int64_t>(s.g.element_bytes);
  uint8_t* origin = storage.data() + lead;
  const int64_t* given = t.spec.has_strides ? t.spec.strides : nullptr;
  geo::fill(s.g, t.spec.ndim, t.spec.shape, given, t.spec.fill_seed, origin);
  t.digest = geo::digest(s.g, t.spec.ndim, t.spec.shape, s.g.packed_subbyte ? nullptr : given,
                         origin, &t.elements);
  t.digest_known = true;
  auto known = [&](uint64_t misread, Rule rule, const char* expected, const char* how) {
    if (misread != t.digest) t.misreadings.push_back({misread, rule, expected, how});
  };
  if (given == nullptr && t.spec.ndim >= 2 && !s.g.packed_subbyte) {
    int64_t column_major[DLC_MAX_NDIM];
    int64_t step = 1;
    for (int i = 0; i < t.spec.ndim; ++i) {
      column_major[i] = step;
      step *= t.spec.shape[i];
    }
    uint64_t count = 0;
    known(geo::digest(s.g, t.spec.ndim, t.spec.shape, column_major, origin, &count), Rule::LAY_5,
          "elements in row-major order, as NULL strides say", "read them in column-major order");
  }
  if (s.g.packed_subbyte && s.g.numel > 0) {
    std::vector<uint8_t> misread(s.g.storage_bytes);
    geo::repack_high_bits_first(origin, s.g.numel, uint32_t{t.spec.dtype.bits} * t.spec.dtype.lanes,
                                misread.data(), misread.size());
    known(dlc_digest_update(dlc_digest_init(), misread.data(), misread.size()), Rule::DT_3,
          "bytes of packed sub-byte elements, lowest bits first (little bit-endian)",
          "read each element's bits highest first");
  }
  if (t.spec.dtype.lanes > 1 && !s.g.packed_subbyte) {
    DLCTensorSpec one_lane = t.spec;
    one_lane.dtype.lanes = 1;
    const geo::SpecGeometry misread = geo::geometry(one_lane);
    uint64_t count = 0;
    if (misread.g.valid) {
      known(geo::digest(misread.g, t.spec.ndim, t.spec.shape, given, origin, &count), Rule::DT_3,
            "elements of all their lanes (bits * lanes wide)",
            "sized each element from bits alone, ignoring lanes");
    }
  }
}

struct Builder {
  std::vector<TensorCase> cases;
  std::set<std::string> names;

  TensorCase& add(const std::string& name, DLCTensorSpec spec, bool base, Rule rule) {
    TensorCase t;
    t.name = name;
    t.spec = spec;
    t.spec.fill_seed = seed_of(name);
    t.base = base;
    t.rule = rule;
    cases.push_back(std::move(t));
    names.insert(name);
    return cases.back();
  }
};

void hand_written(Builder& b) {
  // Core cases: 256-byte payloads, so the last element ends flush against the guard page.
  b.add("f32_8x8", make(2, 32, {8, 8}), true, Rule::LAY_1);
  {
    DLCTensorSpec s = make(2, 64, {8, 4});  // a transposed view of a 4x8 array
    strides(s, {1, 8});
    b.add("f64_8x4_transposed", s, true, Rule::LAY_4);
  }
  {
    DLCTensorSpec s = make(0, 16, {128});
    s.byte_offset = 64;
    b.add("i16_128_byte_offset", s, true, Rule::LAY_4);
  }
  {
    DLCTensorSpec s = make(2, 32, {});
    s.options = DLC_SPEC_NULL_SHAPE_IF_SCALAR;
    b.add("f32_scalar_null_shape", s, true, Rule::LAY_6);
  }
  {
    DLCTensorSpec s = make(2, 32, {0, 4});
    s.options = DLC_SPEC_NULL_DATA_IF_EMPTY;
    b.add("f32_0x4_null_data", s, true, Rule::LAY_7);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_NULL_STRIDES;  // producers of >= 1.2 emit strides anyway (LAY-5)
    b.add("f32_8x8_null_strides", s, true, Rule::LAY_5);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_READ_ONLY;
    b.add("f32_8x8_read_only", s, true, Rule::FLAG_1);
  }
  b.add("f32_8x8_copy_true", make(2, 32, {8, 8}), true, Rule::STRM_4).copy = 1;
  // Edge cases: a conformant consumer imports them correctly or refuses cleanly.
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {-8, 1});
    b.add("f32_8x8_negative_stride", s, false, Rule::LAY_8);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {0, 1});
    b.add("f32_8x8_broadcast_zero_stride", s, false, Rule::LAY_8);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    strides(s, {1, 1});
    b.add("f32_8x8_overlapping", s, false, Rule::LAY_8);
  }
  {
    DLCTensorSpec s = make(2, 32, {1, 64});
    strides(s, {12345, 1});
    b.add("f32_1x64_odd_unit_stride", s, false, Rule::LAY_8);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.misalign = 4;
    b.add("f32_8x8_misaligned_data", s, false, Rule::LAY_9);
  }
  b.add("f32_4x0_zero_size", make(2, 32, {4, 0}), false, Rule::LAY_7);
  b.add("u8_scalar_shape_array", make(1, 8, {}), false, Rule::LAY_6);
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.extra_flags = uint64_t{1} << 40;
    b.add("f32_8x8_unknown_flag_bit", s, false, Rule::FLAG_4).test_layout = true;
  }
  // Every dtype code of v0.6 to v1.3 at its allowed widths, 256 bytes each.
  struct Dt {
    const char* name;
    uint8_t code, bits;
    uint16_t lanes;
  };
  const Dt dtypes[] = {
      {"i8", 0, 8, 1},          {"i32", 0, 32, 1},        {"i64", 0, 64, 1},
      {"u16", 1, 16, 1},        {"u64", 1, 64, 1},        {"f16", 2, 16, 1},
      {"f64", 2, 64, 1},        {"f32x4_lanes", 2, 32, 4}, {"opaque64", 3, 64, 1},
      {"bf16", 4, 16, 1},       {"c64", 5, 64, 1},        {"c128", 5, 128, 1},
      {"bool", 6, 8, 1},        {"f8_e3m4", 7, 8, 1},     {"f8_e4m3", 8, 8, 1},
      {"f8_e4m3b11fnuz", 9, 8, 1}, {"f8_e4m3fn", 10, 8, 1}, {"f8_e4m3fnuz", 11, 8, 1},
      {"f8_e5m2", 12, 8, 1},    {"f8_e5m2fnuz", 13, 8, 1}, {"f8_e8m0fnu", 14, 8, 1},
      {"f6_e2m3fn", 15, 6, 1},  {"f6_e3m2fn", 16, 6, 1},  {"f4_e2m1fn", 17, 4, 1},
  };
  for (const Dt& d : dtypes) {
    const int64_t count = 2048 / (int64_t{d.bits} * d.lanes);
    b.add(std::string("dtype_") + d.name, make(d.code, d.bits, {count}, d.lanes), false, Rule::DT_1);
  }
  {
    DLCTensorSpec s = make(17, 4, {512});
    s.options = DLC_SPEC_SUBBYTE_PADDED;
    b.add("dtype_f4_padded", s, false, Rule::FLAG_3).test_layout = true;
  }
  // Invalid tensors: a conformant consumer refuses them; only a mock can make them.
  b.add("dtype_unknown_code_99", make(99, 32, {64}), false, Rule::DT_2).test_layout = true;
  b.add("dtype_f6_with_8_bits", make(15, 8, {256}), false, Rule::DT_1).test_layout = true;
  b.add("dtype_f4_with_8_bits", make(17, 8, {256}), false, Rule::DT_1).test_layout = true;
  b.add("dtype_zero_lanes", make(2, 32, {64}, 0), false, Rule::DT_1).test_layout = true;
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {2, 0};  // CUDA: the data pointer faults on the host
    b.add("device_cuda", s, false, Rule::DEV_3);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {4, 0};  // OpenCL: no host access either (torch.from_dlpack deletes it unrenamed)
    b.add("device_opencl", s, false, Rule::DEV_3);
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {99, 0};
    b.add("device_unknown_99", s, false, Rule::DEV_1).test_layout = true;
  }
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.device = {1, 3};
    b.add("device_cpu_id_3", s, false, Rule::DEV_2).test_layout = true;
  }
  {
    DLCTensorSpec s = make(2, 32, {});
    s.ndim = 20;  // above the mock consumers' own limit of 16
    for (int i = 0; i < 20; ++i) s.shape[i] = 1;
    s.shape[19] = 64;
    b.add("f32_ndim20", s, false, Rule::LAY_1);
  }
  b.add("shape_overflow_int64", make(2, 32, {INT64_MAX, 4}), false, Rule::LAY_10).test_layout = true;
  b.add("shape_negative_extent", make(2, 32, {-1, 4}), false, Rule::LAY_10).test_layout = true;
  {
    DLCTensorSpec s = make(2, 32, {8, 8});
    s.options = DLC_SPEC_NULL_DELETER;
    b.add("f32_8x8_null_deleter", s, false, Rule::LIFE_4).test_layout = true;
  }
}

// ---- Generated views ------------------------------------------------------------------------

struct GenDtype {
  const char* name;
  DLCDtype dtype;
};

std::vector<int64_t> parent_shape(int ndim) {
  switch (ndim) {
    case 0:
      return {};
    case 1:
      return {5};
    case 2:
      return {3, 4};
    case 3:
      return {2, 3, 4};
    default:
      return {2, 3, 1, 4};
  }
}

std::vector<int64_t> compact_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i] == 0 ? 1 : shape[i];
  }
  return s;
}

struct View {
  std::vector<int64_t> shape, strides;
  uint64_t before = 0, after = 0;  // elements of storage before the lowest and after the highest
  bool data_at_start = false;
};

DLCTensorSpec spec_of(const View& v, DLCDtype dtype) {
  DLCTensorSpec s{};
  s.dtype = dtype;
  s.ndim = static_cast<int32_t>(v.shape.size());
  for (size_t i = 0; i < v.shape.size(); ++i) s.shape[i] = v.shape[i];
  s.has_strides = 1;
  for (size_t i = 0; i < v.strides.size(); ++i) s.strides[i] = v.strides[i];
  s.device = {1, 0};
  const uint64_t element = (uint64_t{dtype.bits} * dtype.lanes + 7) / 8;
  s.byte_offset = v.before * element;
  s.pad_after = v.after * element;
  if (v.data_at_start) s.options |= DLC_SPEC_DATA_AT_STORAGE_START;
  return s;
}

// The layout key that makes two views the same tensor.
using Key = std::tuple<uint8_t, uint8_t, uint16_t, std::vector<int64_t>, std::vector<int64_t>,
                       uint64_t, uint64_t, bool>;

void generated(Builder& b) {
  const GenDtype f32{"f32", {2, 32, 1}};
  std::set<Key> seen;
  auto emit = [&](const std::string& id, const View& v, const GenDtype& d, Rule rule) {
    Key key{d.dtype.code, d.dtype.bits, d.dtype.lanes, v.shape, v.strides, v.before, v.after,
            v.data_at_start};
    // Extent-1 dimensions may carry any stride: the key keeps them, as frameworks do differ there.
    if (!seen.insert(key).second) return;
    const std::string name = "view/" + id + "/" + d.name;
    if (b.names.count(name) != 0) return;
    TensorCase& t = b.add(name, spec_of(v, d.dtype), false, rule);
    t.generated = true;
  };
  for (int nd = 0; nd <= 4; ++nd) {
    const std::vector<int64_t> shape = parent_shape(nd);
    const std::vector<int64_t> compact = compact_strides(shape);
    const std::string prefix = "nd" + std::to_string(nd) + "/";
    // Every axis permutation (transposes), and the same with every stride negated.
    std::vector<int> axes(nd);
    for (int i = 0; i < nd; ++i) axes[i] = i;
    do {
      View v;
      std::string digits;
      for (int a : axes) {
        v.shape.push_back(shape[a]);
        v.strides.push_back(compact[a]);
        digits += std::to_string(a);
      }
      emit(prefix + "perm" + digits, v, f32, Rule::LAY_4);
      if (nd >= 2 && nd <= 3) {
        for (int64_t& s : v.strides) s = -s;
        emit(prefix + "perm" + digits + "-neg", v, f32, Rule::LAY_8);
      }
    } while (std::next_permutation(axes.begin(), axes.end()));
    if (nd == 0) continue;
    // Steps of -1, 2 and -2 along one axis, and along all of them.
    for (int64_t step : {-1, 2, -2}) {
      for (int a = -1; a < nd; ++a) {
        View v{shape, compact};
        for (int i = 0; i < nd; ++i) {
          if (a >= 0 && i != a) continue;
          const int64_t magnitude = step < 0 ? -step : step;
          v.shape[i] = (shape[i] + magnitude - 1) / magnitude;
          v.strides[i] = compact[i] * step;
        }
        const std::string axis = a < 0 ? "all" : "a" + std::to_string(a);
        emit(prefix + "step-" + axis + "x" + std::to_string(step), v, f32,
             step < 0 ? Rule::LAY_8 : Rule::LAY_4);
      }
    }
    // Windows: the interior of a parent one larger on every side, so that storage lies before
    // and after the view; with data at the first element or at the storage start, and reversed.
    {
      std::vector<int64_t> big = shape;
      for (int64_t& e : big) e += 2;
      const std::vector<int64_t> big_strides = compact_strides(big);
      int64_t total = 1;
      for (int64_t e : big) total *= e;
      int64_t first = 0, last = 0;
      for (int i = 0; i < nd; ++i) {
        first += big_strides[i];
        last += big_strides[i] * shape[i];
      }
      for (bool reversed : {false, true}) {
        for (bool at_start : {false, true}) {
          View v{shape, big_strides};
          if (reversed) {
            for (int64_t& s : v.strides) s = -s;
          }
          v.before = static_cast<uint64_t>(first);
          v.after = static_cast<uint64_t>(total - 1 - last);
          v.data_at_start = at_start;
          emit(prefix + "window" + (reversed ? "-reversed" : "") + (at_start ? "-byte-offset" : ""),
               v, f32, reversed ? Rule::LAY_8 : Rule::LAY_4);
        }
      }
    }
    // Size-0 and size-1 extents with arbitrary strides, and broadcasts.
    for (int a = 0; a < nd; ++a) {
      View zero{shape, compact};
      zero.shape[a] = 0;
      zero.strides[a] = a % 2 == 0 ? 7 : -3;
      emit(prefix + "zero-a" + std::to_string(a), zero, f32, Rule::LAY_7);
      if (nd >= 2) {
        View one{shape, compact};
        one.shape[a] = 1;
        one.strides[a] = a % 2 == 0 ? 999 : -999;
        emit(prefix + "one-a" + std::to_string(a), one, f32, Rule::LAY_8);
      }
      if (shape[a] > 1) {
        View bcast{shape, compact};
        bcast.strides[a] = 0;
        emit(prefix + "broadcast-a" + std::to_string(a), bcast, f32, Rule::LAY_8);
      }
    }
    View all_zero{shape, std::vector<int64_t>(nd, 0)};
    emit(prefix + "broadcast-all", all_zero, f32, Rule::LAY_8);
  }
  // A few dtypes over 1-D and 2-D layouts (compact, transposed, reversed), and packed sub-byte
  // types, which only compact layouts can carry.
  const GenDtype dtypes[] = {{"u8", {1, 8, 1}},    {"i64", {0, 64, 1}}, {"f16", {2, 16, 1}},
                             {"f64", {2, 64, 1}},  {"c128", {5, 128, 1}}, {"bool", {6, 8, 1}},
                             {"bf16", {4, 16, 1}}};
  for (const GenDtype& d : dtypes) {
    emit("nd1/perm0", View{{5}, {1}}, d, Rule::DT_1);
    emit("nd2/perm01", View{{3, 4}, {4, 1}}, d, Rule::DT_1);
    emit("nd2/perm10", View{{4, 3}, {1, 4}}, d, Rule::DT_1);
    emit("nd1/step-allx-1", View{{5}, {-1}}, d, Rule::LAY_8);
  }
  for (const GenDtype& d : {GenDtype{"f4_e2m1fn", {17, 4, 1}}, GenDtype{"f6_e2m3fn", {15, 6, 1}}}) {
    emit("nd1/perm0", View{{16}, {1}}, d, Rule::DT_3);
    emit("nd2/perm01", View{{4, 4}, {4, 1}}, d, Rule::DT_3);
  }
}

// Tensors in real device memory: the core cases again, on CUDA device, pinned and managed
// memory and on a oneAPI device, for the producers that allocate such memory. Named
// "<memory>/<core case>"; the values are the core case's fill rule, read on the device.
void device_tensors(Builder& b) {
  struct Memory {
    const char* name;
    int32_t device_type;
    bool every_core_case;
  };
  const Memory memories[] = {{"cuda", 2, true}, {"cuda_host", 3, false},
                             {"cuda_managed", 13, false}, {"oneapi", 14, false}};
  for (const Memory& m : memories) {
    auto add = [&](const std::string& core, DLCTensorSpec s, Rule rule) {
      s.device = {m.device_type, 0};
      TensorCase& t = b.add(std::string(m.name) + "/" + core, s, false, rule);
      t.real_device = true;
    };
    add("f32_8x8", make(2, 32, {8, 8}), Rule::LAY_1);
    DLCTensorSpec transposed = make(2, 64, {8, 4});
    strides(transposed, {1, 8});
    add("f64_8x4_transposed", transposed, Rule::LAY_4);
    if (!m.every_core_case) continue;
    DLCTensorSpec offset = make(0, 16, {128});
    offset.byte_offset = 64;
    add("i16_128_byte_offset", offset, Rule::LAY_4);
    add("f32_0x4_zero_size", make(2, 32, {0, 4}), Rule::LAY_7);
    add("f32_scalar", make(2, 32, {}), Rule::LAY_6);
  }
}

// Tensors added after the device tensors, so that the indices of those before stay as they were.
void later_tensors(Builder& b) {
  // dlpack.h: manager_ctx "can also be NULL"; the deleter must be called all the same (a
  // Python library's campaign found one that never calls it).
  DLCTensorSpec s = make(2, 32, {8, 8});
  s.options = DLC_SPEC_NULL_MANAGER_CTX;
  b.add("f32_8x8_null_manager_ctx", s, false, Rule::LIFE_3).test_layout = true;
  // A copy asked of a CUDA producer (copy=True): the Array API's __dlpack__ note, "the copy must
  // be performed over stream", so the consumer's stream waits for the copy as for any write.
  TensorCase& copy = b.add("cuda/f32_8x8_copy_true", make(2, 32, {8, 8}), false, Rule::STRM_1);
  copy.spec.device = {2, 0};
  copy.real_device = true;
  copy.copy = 1;
  // A host copy asked of a CUDA producer (dl_device=(1, 0)): made once its pending write landed.
  TensorCase& host = b.add("cuda/f32_8x8_host_copy", make(2, 32, {8, 8}), false, Rule::STRM_1);
  host.spec.device = {2, 0};
  host.real_device = true;
  host.host_copy = true;
}

std::vector<TensorCase> build() {
  Builder b;
  hand_written(b);
  generated(b);
  device_tensors(b);  // the indices of the cases before them stay as they were
  later_tensors(b);
  for (TensorCase& t : b.cases) compute_digest(t);
  return std::move(b.cases);
}

}  // namespace

bool TensorCase::read_unwritten(const DLCObservation& obs) const {
  if (obs.data_not_read != 0 || elements == 0 || obs.elements_read != elements) return false;
  const uint64_t bytes = elements * geo::geometry(spec).g.element_bytes;
  uint64_t unwritten = dlc_digest_init();
  for (uint64_t k = 0; k < bytes; ++k) {
    unwritten = dlc_digest_update(unwritten, &geo::kUnwrittenByte, 1);
  }
  return obs.digest == unwritten && unwritten != digest;
}

const std::vector<TensorCase>& tensor_catalogue() {
  static const std::vector<TensorCase> catalogue = build();
  return catalogue;
}

int find_tensor(std::string_view name) {
  const auto& catalogue = tensor_catalogue();
  for (size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

size_t generated_view_count() {
  size_t n = 0;
  for (const TensorCase& t : tensor_catalogue()) n += t.generated ? 1 : 0;
  return n;
}

bool valid_for(const TensorCase& t, DLCVersion version, int32_t max_ndim) {
  ValidateResult r;
  validate_request(t, version, max_ndim, &r);
  return r.accepted;
}

void validate_request(const TensorCase& t, DLCVersion version, int32_t max_ndim,
                      ValidateResult* result) {
  *result = ValidateResult{};
  const DLCTensorSpec& s = t.spec;
  if (s.ndim < 0 || s.ndim > DLC_MAX_NDIM) {
    Violation& v = result->violations[result->count++];
    v.rule = Rule::LAY_1;
    std::snprintf(v.message, sizeof v.message, "expected 0 <= ndim <= %d but found %d",
                  DLC_MAX_NDIM, s.ndim);
    return;
  }
  const geo::SpecGeometry g = geo::geometry(s);
  int64_t shape[DLC_MAX_NDIM];
  int64_t strides[DLC_MAX_NDIM];
  for (int i = 0; i < s.ndim; ++i) {
    shape[i] = s.shape[i];
    strides[i] = g.strides[i];
  }
  abi::Tensor tensor{};
  // Any plausible, aligned address: the standard level never reads data.
  tensor.data = g.g.numel == 0 && (s.options & DLC_SPEC_NULL_DATA_IF_EMPTY)
                    ? nullptr
                    : reinterpret_cast<void*>(uintptr_t{1} << 40);
  tensor.device = s.device;
  tensor.ndim = s.ndim;
  tensor.dtype = s.dtype;
  const bool null_shape = s.ndim == 0 && (s.options & DLC_SPEC_NULL_SHAPE_IF_SCALAR);
  tensor.shape = null_shape ? nullptr : shape;
  tensor.strides = null_shape ? nullptr : strides;
  tensor.byte_offset = s.byte_offset;
  ValidateOptions options;
  options.level = Level::standard;
  options.consumer_version = version.major == 0 ? DLCVersion{version.major, version.minor} : version;
  options.max_ndim = max_ndim;
  ValidateResult& r = *result;
  if (version.major == 0) {
    abi::ManagedTensor m{tensor, nullptr, nullptr};
    validate(DLCHandoff{"dltensor", &m}, options, &r);
  } else {
    abi::ManagedTensorVersioned m{};
    m.version = version;
    m.flags = s.extra_flags | ((s.options & DLC_SPEC_READ_ONLY) ? abi::kFlagReadOnly : 0) |
              ((s.options & DLC_SPEC_SUBBYTE_PADDED) ? abi::kFlagSubbytePadded : 0);
    m.dl_tensor = tensor;
    validate(DLCHandoff{"dltensor_versioned", &m}, options, &r);
  }
}

}  // namespace dlc
