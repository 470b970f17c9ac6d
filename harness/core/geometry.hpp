// Tensor geometry, the fill rule and the element digest: one implementation for the mock
// producers (to lay data out), the judge and the validator (to read it back), and the fuzzers.
// Header-only and allocation-free, so that plugins can use it and a fault handler could.
#pragma once

#include <cstdint>
#include <cstring>

#include "dlconform/plugin.h"
#include "sanitizer_build.h"

namespace dlc::geo {

// What the mock producers put in storage no element has been written to (the gaps between and
// around the elements; a device producer's storage before its pending write lands): a reader that
// ignores byte_offset or strides, or reads too early, reads these.
constexpr uint8_t kUnwrittenByte = 0xA5;

// The most dimensions any walk takes; larger tensors are never backed with memory.
constexpr int64_t kMaxWalkDims = 1024;

// LAY-10's storage size is the product of the non-zero extents times the element size, whatever
// the strides (0 included). Below 2^63 bytes it fits; from 2^63 to 2^64 - 1 bytes a consumer may
// refuse the tensor or accept it (NumPy refuses: "array is too big", its index type is signed, and
// ptrdiff_t cannot span it); past 64 bits it must refuse. The one place the band is decided: the
// validator, the judge, the mocks and the fuzzers all classify through classify_size().
constexpr uint64_t kSizeBandStart = uint64_t{1} << 63;

enum class SizeClass : uint8_t {
  fits,      // below 2^63 bytes
  band,      // 2^63 to 2^64 - 1 bytes: refusing and accepting are both right
  overflow,  // does not fit in 64 bits: must be refused
};

inline SizeClass classify_size(uint64_t bytes) {
  return bytes >= kSizeBandStart ? SizeClass::band : SizeClass::fits;
}

// LAY-10's storage size of `ndim` extents, all >= 0, of `element_bytes` each.
struct StorageSize {
  SizeClass size_class = SizeClass::overflow;
  uint64_t nonzero = 0;  // the non-zero extents' product, when it fits
  uint64_t bytes = 0;    // that times element_bytes, when it fits
};

inline StorageSize storage_size(int64_t ndim, const int64_t* shape, uint64_t element_bytes) {
  StorageSize s;
  uint64_t product = 1;
  for (int64_t i = 0; i < ndim; ++i) {
    const uint64_t extent = shape[i] > 0 ? static_cast<uint64_t>(shape[i]) : 1;
    if (__builtin_mul_overflow(product, extent, &product)) return s;
  }
  s.nonzero = product;
  if (__builtin_mul_overflow(product, element_bytes, &s.bytes)) return s;
  s.size_class = classify_size(s.bytes);
  return s;
}

struct Geometry {
  bool valid = false;  // false: negative extent, zero lanes or an overflow (LAY-10)
  // LAY-10's storage size and its class: a band size leaves the geometry valid. Overflow too
  // when the geometry stopped before the size (a negative extent, zero lanes).
  SizeClass size_class = SizeClass::overflow;
  uint64_t size_bytes = 0;
  bool packed_subbyte = false;  // bits * lanes < 8 without IS_SUBBYTE_TYPE_PADDED (DT-3)
  uint8_t code = 0;             // the dtype's type code, for the fill rule
  uint64_t element_bytes = 0;   // (bits * lanes + 7) / 8
  uint64_t numel = 0;
  int64_t min_offset = 0;       // lowest element offset reached, in elements (<= 0)
  int64_t max_offset = 0;       // highest, in elements (>= 0)
  uint64_t storage_bytes = 0;   // from the lowest element to the end of the highest
};

// The stride dimension i is walked with: the given one, or compact row-major when strides is
// NULL or the elements are packed sub-byte. `compact` carries the running product from the last
// dimension down (start at 1); extent 0 counts as 1.
inline bool uses_compact(const int64_t* strides, bool packed) { return strides == nullptr || packed; }

// The innermost dimension of extent above 1 whose stride is not the compact row-major one, or -1
// (LAY-5's NULL strides, DT-3's packed sub-byte elements). Past 2^63 elements (a zero-size
// tensor in LAY-10's band) no outer stride can be compact and no element is reached: the walk
// stops there, without a signed overflow.
inline int64_t first_noncompact_dim(int64_t ndim, const int64_t* shape, const int64_t* strides) {
  int64_t compact = 1;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    if (shape[i] > 1 && strides[i] != compact) return i;
    if (__builtin_mul_overflow(compact, shape[i] == 0 ? int64_t{1} : shape[i], &compact)) break;
  }
  return -1;
}

// Geometry of `ndim` extents and (possibly NULL) strides: every product and offset checked for
// 64-bit overflow (LAY-10), extents >= 0. Found by the import fuzzer more than once.
inline Geometry geometry(int64_t ndim, const int64_t* shape, const int64_t* strides, DLCDtype dtype,
                         bool padded) {
  Geometry g;
  const uint64_t bit_width = uint64_t{dtype.bits} * dtype.lanes;
  g.element_bytes = (bit_width + 7) / 8;
  g.packed_subbyte = bit_width < 8 && !padded;
  g.code = dtype.code;
  if (ndim < 0 || dtype.lanes == 0 || (ndim > 0 && shape == nullptr)) return g;
  bool empty = false;
  for (int64_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return g;
    empty = empty || shape[i] == 0;
  }
  // LAY-10, in an order that does not matter: the non-zero extents' product, and the bytes it
  // describes, must fit even when another extent is 0 (a zero does not excuse them, as NumPy
  // refuses both [0, 2^21, 2^21, 2^21] and [2^31-1, 2^31-1, 2^31-1, 0] in float32).
  const StorageSize size = storage_size(ndim, shape, g.element_bytes);
  g.size_class = size.size_class;
  g.size_bytes = size.bytes;
  if (size.size_class == SizeClass::overflow) return g;
  const uint64_t numel = empty ? 0 : size.nonzero;
  const bool compact_used = uses_compact(strides, g.packed_subbyte);
  int64_t compact = 1;
  int64_t min_offset = 0, max_offset = 0;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t stride = compact_used ? compact : strides[i];
    // Compact strides, when they are used, must fit in int64 (LAY-10). They overflow only
    // when the size is 2^63 bytes or more; with no element to reach, the size's class decides.
    if (__builtin_mul_overflow(compact, shape[i] == 0 ? 1 : shape[i], &compact)) {
      if (compact_used && numel > 0) return g;
      compact = 1;
    }
    if (numel == 0) continue;
    // Sums of reaches of one sign overflow in some order iff their total does.
    int64_t reach = 0;
    if (__builtin_mul_overflow(shape[i] - 1, stride, &reach)) return g;
    int64_t& bound = reach < 0 ? min_offset : max_offset;
    if (__builtin_add_overflow(bound, reach, &bound)) return g;
  }
  uint64_t span = 0;
  if (g.packed_subbyte) {
    uint64_t bits = 0;
    if (__builtin_mul_overflow(numel, bit_width, &bits)) return g;
    span = bits / 8 + (bits % 8 != 0);
  } else if (numel > 0) {
    // max_offset >= 0 >= min_offset, so the span in elements is their magnitudes' sum.
    const uint64_t elements =
        static_cast<uint64_t>(max_offset) + (0 - static_cast<uint64_t>(min_offset)) + 1;
    if (elements == 0) return g;
    if (__builtin_mul_overflow(elements, g.element_bytes, &span)) return g;
  }
  g.numel = numel;
  g.min_offset = min_offset;
  g.max_offset = max_offset;
  g.storage_bytes = span;
  g.valid = true;
  return g;
}

// Visits (k, offset in elements) for every element of a valid, non-packed geometry, in logical
// row-major order. ndim must be at most kMaxWalkDims.
// The walk is shared by every reader (the harness, the mocks, the validator). Under a fuzzer it
// gives no coverage feedback: its branches count loop trips, which would make libFuzzer keep
// inputs for being larger, and cost a callback per element of every read.
template <class Visit>
DLC_NO_COVERAGE void for_each_element(const Geometry& g, int64_t ndim, const int64_t* shape,
                                      const int64_t* strides, Visit visit) {
  if (g.numel == 0 || ndim > kMaxWalkDims) return;
  // Only the first ndim entries are used, each set below: no need to clear 16 KB per walk. The
  // first is set anyway, for gcc, which cannot see that an empty shape reads none.
  int64_t effective[kMaxWalkDims];
  int64_t index[kMaxWalkDims];
  effective[0] = index[0] = 0;
  int64_t compact = 1;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    effective[i] = strides == nullptr ? compact : strides[i];
    compact *= shape[i] == 0 ? 1 : shape[i];  // numel fits, so no overflow
    index[i] = 0;
  }
  int64_t offset = 0;
  for (uint64_t k = 0; k < g.numel; ++k) {
    visit(k, offset);
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) {
        offset += effective[d];
        break;
      }
      offset -= (shape[d] - 1) * effective[d];
      index[d] = 0;
    }
  }
}

// The digest a reader reports for the tensor whose first element is at `origin`: dlc_digest over
// every element in logical order, or over the storage bytes of a packed sub-byte type. `count`
// receives the elements (or bytes) digested.
inline uint64_t digest(const Geometry& g, int64_t ndim, const int64_t* shape,
                       const int64_t* strides, const uint8_t* origin, uint64_t* count) {
  uint64_t d = dlc_digest_init();
  *count = 0;
  if (!g.valid || g.numel == 0) return d;
  if (g.packed_subbyte) {
    *count = g.storage_bytes;
    return dlc_digest_update(d, origin, g.storage_bytes);
  }
  const int64_t size = static_cast<int64_t>(g.element_bytes);
  for_each_element(g, ndim, shape, strides, [&](uint64_t, int64_t offset) {
    d = dlc_digest_update(d, origin + offset * size, g.element_bytes);
  });
  *count = g.numel;
  return d;
}

// DT-3's misreading of packed sub-byte elements: element i read from bit i * width counted from
// the highest bit of the first byte (big bit-endian), where DLPack packs the lowest bits first.
// `out` (`bytes` long) receives the values so read, packed the DLPack way, so that a digest of it
// compares with the tensor's storage digest. Bits past the last element stay zero.
inline void repack_high_bits_first(const uint8_t* in, uint64_t numel, uint32_t width, uint8_t* out,
                                   uint64_t bytes) {
  std::memset(out, 0, bytes);
  for (uint64_t i = 0; i < numel && (i + 1) * width <= bytes * 8; ++i) {
    uint32_t value = 0;
    for (uint32_t b = 0; b < width; ++b) {
      const uint64_t bit = i * width + b;
      value = (value << 1) | ((in[bit / 8] >> (7 - bit % 8)) & 1u);
    }
    for (uint32_t b = 0; b < width; ++b) {
      const uint64_t bit = i * width + b;
      if ((value >> b) & 1u) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
}

// Writes the fill rule into storage whose first element is at `origin`. Overlapping strides make
// later elements overwrite earlier ones; the expected digest reads back what is left.
inline void fill(const Geometry& g, int64_t ndim, const int64_t* shape, const int64_t* strides,
                 uint32_t seed, uint8_t* origin) {
  if (g.packed_subbyte) {
    for (uint64_t b = 0; b < g.storage_bytes; ++b) origin[b] = dlc_fill_value_byte(g.code, seed, b, 0);
    return;
  }
  const int64_t size = static_cast<int64_t>(g.element_bytes);
  for_each_element(g, ndim, shape, strides, [&](uint64_t k, int64_t offset) {
    uint8_t* element = origin + offset * size;
    for (uint32_t j = 0; j < g.element_bytes; ++j) element[j] = dlc_fill_value_byte(g.code, seed, k, j);
  });
}

// ---- DLCTensorSpec, the request's tensor (at most 32 dimensions) -----------------------------

struct SpecGeometry {
  Geometry g;
  int64_t strides[32] = {};  // effective strides in elements (compact when the spec has none)
};

// A spec never asks for more than 2^40 elements: no tensor that large is ever allocated.
inline SpecGeometry geometry(const DLCTensorSpec& spec) {
  SpecGeometry s;
  if (spec.ndim > 32) return s;
  const bool padded = (spec.options & DLC_SPEC_SUBBYTE_PADDED) != 0;
  s.g = geometry(spec.ndim, spec.shape, spec.has_strides ? spec.strides : nullptr, spec.dtype,
                 padded);
  if (s.g.numel > (uint64_t{1} << 40)) s.g.valid = false;
  int64_t compact = 1;
  const bool compact_used = !spec.has_strides || s.g.packed_subbyte;
  for (int i = spec.ndim - 1; i >= 0; --i) {
    s.strides[i] = compact_used ? compact : spec.strides[i];
    if (__builtin_mul_overflow(compact, spec.shape[i] == 0 ? 1 : spec.shape[i], &compact)) {
      compact = 1;
    }
  }
  return s;
}

}  // namespace dlc::geo
