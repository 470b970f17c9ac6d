// Header-independent tensor geometry and the fill rule, shared by mock producers (to lay data
// out) and by the harness (to compute the digest a correct consumer must report).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "dlconform/plugin.h"

namespace dlc_fill {

struct Geometry {
  bool valid = false;  // false: negative extent or overflow (LAY-10)
  bool packed_subbyte = false;
  uint64_t element_bytes = 0;  // (bits * lanes + 7) / 8
  uint64_t numel = 0;
  int64_t strides[32] = {};    // effective strides in elements (compact when the spec has none)
  int64_t min_offset = 0;      // lowest element offset reached, in elements (<= 0)
  int64_t max_offset = 0;      // highest, in elements (>= 0)
  uint64_t storage_bytes = 0;  // bytes from the lowest to the end of the highest element
};

inline bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

inline Geometry geometry(const DLCTensorSpec& spec) {
  Geometry g;
  const uint64_t bit_width = uint64_t{spec.dtype.bits} * spec.dtype.lanes;
  g.element_bytes = (bit_width + 7) / 8;
  g.packed_subbyte = bit_width < 8 && (spec.options & DLC_SPEC_SUBBYTE_PADDED) == 0;
  if (spec.ndim < 0 || spec.ndim > 32 || spec.dtype.lanes == 0) return g;
  uint64_t numel = 1;
  for (int i = 0; i < spec.ndim; ++i) {
    if (spec.shape[i] < 0) return g;
    if (!checked_mul(numel, static_cast<uint64_t>(spec.shape[i]), &numel)) return g;
  }
  if (numel > (uint64_t{1} << 40)) return g;  // not a tensor we will ever allocate
  // Compact strides, when they are used, must fit in int64 (LAY-10); found by the import fuzzer.
  const bool compact_used = !spec.has_strides || g.packed_subbyte;
  int64_t compact = 1;
  for (int i = spec.ndim - 1; i >= 0; --i) {
    g.strides[i] = compact_used ? compact : spec.strides[i];
    if (__builtin_mul_overflow(compact, spec.shape[i] == 0 ? 1 : spec.shape[i], &compact)) {
      if (compact_used) return g;
      compact = 1;
    }
  }
  g.numel = numel;
  if (numel > 0) {
    for (int i = 0; i < spec.ndim; ++i) {
      int64_t reach = 0;
      if (__builtin_mul_overflow(spec.shape[i] - 1, g.strides[i], &reach)) return g;
      int64_t& bound = reach < 0 ? g.min_offset : g.max_offset;
      if (__builtin_add_overflow(bound, reach, &bound)) return g;
    }
  }
  uint64_t span = 0;
  if (g.packed_subbyte) {
    uint64_t bits = 0;
    if (!checked_mul(numel, bit_width, &bits)) return g;
    span = (bits + 7) / 8;
  } else if (numel > 0) {
    // max_offset >= 0 >= min_offset, so the span in elements is their magnitudes' sum.
    const uint64_t elements =
        static_cast<uint64_t>(g.max_offset) + (0 - static_cast<uint64_t>(g.min_offset)) + 1;
    if (elements == 0) return g;
    if (!checked_mul(elements, g.element_bytes, &span)) return g;
  }
  g.storage_bytes = span;
  g.valid = true;
  return g;
}

// Visits every element in logical row-major order with its offset in elements.
template <class Visit>
void for_each_element(const DLCTensorSpec& spec, const Geometry& g, Visit visit) {
  if (g.numel == 0) return;
  int64_t index[32] = {};
  int64_t offset = 0;
  for (uint64_t k = 0; k < g.numel; ++k) {
    visit(k, offset);
    for (int d = spec.ndim - 1; d >= 0; --d) {
      if (++index[d] < spec.shape[d]) {
        offset += g.strides[d];
        break;
      }
      offset -= (spec.shape[d] - 1) * g.strides[d];
      index[d] = 0;
    }
  }
}

// Writes the fill rule into storage whose element 0 is at `origin`.
inline void fill(const DLCTensorSpec& spec, const Geometry& g, uint8_t* origin) {
  if (g.packed_subbyte) {
    for (uint64_t b = 0; b < g.storage_bytes; ++b) origin[b] = dlc_fill_byte(spec.fill_seed, b, 0);
    return;
  }
  for_each_element(spec, g, [&](uint64_t k, int64_t offset) {
    uint8_t* element = origin + offset * static_cast<int64_t>(g.element_bytes);
    for (uint32_t j = 0; j < g.element_bytes; ++j) element[j] = dlc_fill_byte(spec.fill_seed, k, j);
  });
}

// The digest a correct consumer reports: fill a scratch copy, then read it back in logical order.
// Overlapping strides make later elements overwrite earlier ones, exactly as in the producer.
inline uint64_t expected_digest(const DLCTensorSpec& spec, uint64_t* count) {
  const Geometry g = geometry(spec);
  uint64_t digest = dlc_digest_init();
  *count = 0;
  if (!g.valid) return digest;
  std::vector<uint8_t> storage(g.storage_bytes + 1);
  uint8_t* origin = storage.data() + (-g.min_offset) * static_cast<int64_t>(g.element_bytes);
  fill(spec, g, origin);
  if (g.packed_subbyte) {
    *count = g.storage_bytes;
    return dlc_digest_update(digest, origin, g.storage_bytes);
  }
  for_each_element(spec, g, [&](uint64_t, int64_t offset) {
    digest = dlc_digest_update(digest, origin + offset * static_cast<int64_t>(g.element_bytes),
                               g.element_bytes);
  });
  *count = g.numel;
  return digest;
}

}  // namespace dlc_fill
