// Which rules a fuzz input exercises: the valid edge cases it has (valid_edges), the rule a
// finding on it is named by when nothing more telling names it (rule_exercised), and the rule a
// wild address breaks where a NULL field, or a field that leaves the address space, explains it
// (wild_address_rule). The targets, the known-bug routing and the crash naming all ask these.
#include "fuzz_harness.hpp"

#include <algorithm>
#include <cstdint>

#include "abi.h"
#include "device_memory.hpp"
#include "geometry.hpp"

namespace dlc_fuzz {

namespace {

// LAY-8's strides: 0 or less on an extent above 1 (broadcast, reversed), or, on an extent-1
// dimension, where any stride is valid, one other than the row-major compact stride (MXNet and
// Arrow refuse those).
bool has_edge_stride(const TensorInput& in) {
  if (in.layout & kStridesNull) return false;
  const bool shape_given = !(in.layout & kShapeNull);  // with none, no extent-1 dimension to judge
  const int64_t dims = std::min<int64_t>(std::max<int64_t>(in.ndim, 0), kExplicitDims);
  uint64_t compact = 1;  // the row-major compact stride of dimension i, from the last
  for (int64_t i = dims - 1; i >= 0; --i) {
    const int64_t extent = in.extent(i);
    const int64_t stride = in.stride(i);
    if (extent > 1 && stride <= 0) return true;
    if (shape_given && extent == 1 && (stride <= 0 || static_cast<uint64_t>(stride) != compact)) {
      return true;
    }
    const uint64_t factor = extent > 1 ? static_cast<uint64_t>(extent) : 1;
    compact = compact > UINT64_MAX / factor ? UINT64_MAX : compact * factor;
  }
  return false;
}

}  // namespace

int valid_edges(const TensorInput& in, dlc::Rule* out) {
  int n = 0;
  const int64_t dims = std::min<int64_t>(std::max<int64_t>(in.ndim, 0), kExplicitDims);
  bool zero_size = false;
  for (int64_t i = 0; i < dims; ++i) zero_size = zero_size || in.extent(i) == 0;
  // A storage size of 2^63 bytes or more: valid, and refusing it is as right (LAY-10). The
  // dimensions past the explicit ones have extent 1.
  const uint64_t element_bytes = (uint64_t{in.dtype.bits} * in.dtype.lanes + 7) / 8;
  // More dimensions than most libraries take (NumPy 1.x 32, NumPy 2 64, TensorFlow 254): valid,
  // and refusing it is as right (LAY-1). First, so that an abort it causes (TensorFlow's rank
  // CHECK) is one finding whatever else the input exercises.
  if (in.ndim > kManyDims) out[n++] = dlc::Rule::LAY_1;
  if (!(in.layout & kShapeNull) &&
      dlc::geo::storage_size(dims, in.shape, element_bytes).size_class ==
          dlc::geo::SizeClass::band) {
    out[n++] = dlc::Rule::LAY_10;
  }
  if (in.layout & kStridesNull) out[n++] = dlc::Rule::LAY_5;
  if (in.ndim == 0) out[n++] = dlc::Rule::LAY_6;
  if (zero_size) out[n++] = dlc::Rule::LAY_7;
  if (has_edge_stride(in)) out[n++] = dlc::Rule::LAY_8;
  // Misaligned elements: data off its 256-byte alignment, or a byte_offset that is no multiple
  // of the scalar's size (CuPy's element-wide loads fault on a float32 at byte_offset 2 as on
  // one at misalign 2: the GPU run of 2026-11-30).
  const uint64_t scalar_bytes = std::max<uint64_t>(1, in.dtype.bits / 8);
  if (in.misalign != 0 || in.byte_offset % scalar_bytes != 0) out[n++] = dlc::Rule::LAY_9;
  if (in.layout & kDeleterNull) out[n++] = dlc::Rule::LIFE_4;
  // Device memory the consumer is not given (DEV-3): a pointer that faults on any host access
  // (MXNet's CPU build imports a CUDA tensor, then aborts when it frees it), or, with CUDA memory
  // behind the tensors (device_memory.hpp), a CUDA device other than 0, which has none (torch
  // takes device 4194304 for device 0). A tensor in that memory exercises no edge by its device.
  if (!dlc::abi::is_host_accessible(in.device.device_type) &&
      !(device_memory_backs(in) && device_memory_on())) {
    out[n++] = dlc::Rule::DEV_3;
  }
  return n;
}

dlc::Rule rule_exercised(const TensorInput& in) {
  if (in.ndim > kManyDims) return dlc::Rule::LAY_1;  // valid_edges: one name for a rank limit
  if (in.flags & dlc::abi::kFlagSubbytePadded) return dlc::Rule::FLAG_3;
  dlc::Rule edges[kMaxEdges];
  if (valid_edges(in, edges) > 0 && edges[0] != dlc::Rule::DEV_3) return edges[0];
  // A valid tensor's byte_offset is backed modulo a page (plan_storage): what the consumer sees.
  if (in.byte_offset % 4096 != 0) return dlc::Rule::LAY_4;
  if (in.dtype.code != 2 || in.dtype.bits != 32 || in.dtype.lanes != 1) return dlc::Rule::DT_1;
  return dlc::Rule::LAY_1;
}

namespace {

// x86-64's canonical lower half: a user-space pointer lies below it.
constexpr uint64_t kCanonicalLimit = uint64_t{1} << 47;

// Whether an element lies kCanonicalLimit bytes or more from the first: no data pointer keeps
// every element addressable. Zero-size and negative extents have none to reach.
bool span_leaves_address_space(const TensorInput& in) {
  if (in.layout & kShapeNull) return false;
  const uint64_t element_bytes = (uint64_t{in.dtype.bits} * in.dtype.lanes + 7) / 8;
  const int64_t dims = std::min<int64_t>(std::max<int64_t>(in.ndim, 0), kExplicitDims);
  uint64_t span = 0;
  uint64_t compact = 1;  // the row-major stride of dimension i, for NULL strides (saturating)
  for (int64_t i = dims - 1; i >= 0; --i) {
    const int64_t extent = in.extent(i);
    if (extent <= 0) return false;
    const int64_t stride = in.stride(i);
    const uint64_t given = stride < 0 ? uint64_t{0} - static_cast<uint64_t>(stride)
                                      : static_cast<uint64_t>(stride);  // |stride|, INT64_MIN too
    const uint64_t magnitude = (in.layout & kStridesNull) ? compact : given;
    uint64_t term = 0;
    if (__builtin_mul_overflow(magnitude, static_cast<uint64_t>(extent - 1), &term) ||
        __builtin_mul_overflow(term, element_bytes, &term) ||
        __builtin_add_overflow(span, term, &span) || span >= kCanonicalLimit) {
      return true;
    }
    if (__builtin_mul_overflow(compact, static_cast<uint64_t>(extent), &compact)) {
      compact = kCanonicalLimit;
    }
  }
  return false;
}

}  // namespace

dlc::Rule wild_address_rule(const TensorInput& in, uintptr_t address, bool general_protection) {
  if (general_protection) {
    // A non-canonical pointer faults without its address (si_addr 0, which would read as element
    // 0 of a NULL shape or strides): it is named by the field that leaves the address space. A
    // byte_offset of 2^47 or more puts the first element there whatever data is (a pointer
    // below 2^47): LAY-4, "The first element is at (char*)data + byte_offset". Elements 2^47
    // bytes or more beyond it: LAY-10. Else no field explains it.
    if (in.byte_offset >= kCanonicalLimit &&
        in.byte_offset < uint64_t{0} - (kCanonicalLimit << 1)) {
      return dlc::Rule::LAY_4;
    }
    return span_leaves_address_space(in) ? dlc::Rule::LAY_10 : dlc::Rule::none;
  }
  constexpr uintptr_t kNullPage = uintptr_t{1} << 16;  // Linux's lowest mappable address
  const uint64_t dims = in.ndim > 0 ? static_cast<uint64_t>(in.ndim) : 0;
  const bool in_array = dims > 0 && address < dims * sizeof(int64_t);
  if (in_array && (in.layout & kShapeNull)) return dlc::Rule::LAY_6;  // NULL with ndim > 0
  const uint64_t from_first = address - in.byte_offset;  // either way round, as unsigned
  const bool near_data =
      (in.layout & kDataNull) && (from_first < kNullPage || -from_first < kNullPage);
  // Both NULL: an element of strides is read whole, at a multiple of 8; data at byte_offset.
  if (in_array && (in.layout & kStridesNull) && (!near_data || address % 8 == 0)) {
    return dlc::Rule::LAY_5;  // NULL strides read, not taken as compact
  }
  if (near_data) return dlc::Rule::LAY_4;  // NULL data of a tensor with elements
  return dlc::Rule::none;
}

}  // namespace dlc_fuzz
