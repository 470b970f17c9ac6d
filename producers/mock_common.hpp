// Shared by every mock plugin. Included after <dlpack/dlpack.h>, so it compiles against whichever
// DLPack header the including translation unit was built for (the include path picks it).
#pragma once

#include <dlpack/dlpack.h>

#include <cstdio>
#include <cstring>

#include "dlconform/plugin.h"
#include "geometry.hpp"

// The version of the header this translation unit sees (VER-1: producers report it).
#if defined(DLPACK_MAJOR_VERSION)
#define DLC_HDR_MAJOR DLPACK_MAJOR_VERSION
#define DLC_HDR_MINOR DLPACK_MINOR_VERSION
#else
#define DLC_HDR_MAJOR 0
#define DLC_HDR_MINOR (DLPACK_VERSION / 10)
#endif

namespace dlc_mock {

inline const DLCHost* g_host = nullptr;

// The mocks make anything they are asked for, valid or not (DLC_FEATURE_TEST_LAYOUTS), of any
// dtype and device; their consumers read host memory of any dtype and layout, up to 16 dims.
inline constexpr DLCProfile kMockProfile = {
    sizeof(DLCProfile), nullptr, 0, nullptr, 0,
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_COPY |
        DLC_FEATURE_MISALIGNED | DLC_FEATURE_TEST_LAYOUTS | DLC_FEATURE_EVERY_DTYPE |
        DLC_FEATURE_EVERY_DEVICE,
    DLC_MAX_NDIM, {0, 0}};
inline constexpr int32_t kCpuOnly[] = {1};
inline constexpr DLCProfile kMockConsumerProfile = {
    sizeof(DLCProfile), nullptr, 0, kCpuOnly, 1,
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_MISALIGNED |
        DLC_FEATURE_EVERY_DTYPE,
    16, {0, 0}};

// Whether a request passes a keyword the old __dlpack__(stream=None) signature does not take
// (max_version, copy, dl_device): a legacy producer answers it with TypeError (VER-5).
inline bool asks_new_keywords(const DLCRequest& request) {
  return !request.raw &&
         (request.has_max_version || request.copy != -1 || request.has_dl_device);
}

inline void set_error(char* err, size_t err_len, const char* text) {
  if (err != nullptr && err_len > 0) std::snprintf(err, err_len, "%s", text);
}

// Every block a tensor owns, kept in its manager_ctx so the deleter can free them (LIFE-5).
struct Owned {
  void* blocks[6];
  int count;
  void* producer_extra;  // producer-specific (variant wrappers)
};

inline void* take(Owned* owned, size_t size, size_t align, DLCAllocKind kind) {
  void* block = g_host->alloc(g_host->ctx, size, align, kind);
  if (block != nullptr) owned->blocks[owned->count++] = block;
  return block;
}

inline Owned* new_owned() {
  void* block = g_host->alloc(g_host->ctx, sizeof(Owned), alignof(Owned), DLC_ALLOC_CONTEXT);
  if (block == nullptr) return nullptr;
  Owned* owned = static_cast<Owned*>(block);
  std::memset(owned, 0, sizeof *owned);
  return owned;
}

// What the tensors made with a NULL manager_ctx (DLC_SPEC_NULL_MANAGER_CTX) own, by the address
// of their struct: their deleter finds it here. Static, not the heap, whose blocks the harness
// would count as the producer's leak. A consumer that never calls the deleter leaves its entry.
struct Ownerless {
  const void* managed;
  Owned* owned;
};
inline Ownerless g_ownerless[256];

// Stores in `*context` the manager_ctx of a struct at `managed` that owns `owned`: `owned`
// itself, or NULL with `owned` kept in g_ownerless when the request asks for a NULL manager_ctx.
// False when g_ownerless is full.
inline bool set_context(const DLCTensorSpec& spec, const void* managed, Owned* owned,
                        void** context) {
  *context = owned;
  if (!(spec.options & DLC_SPEC_NULL_MANAGER_CTX)) return true;
  for (Ownerless& entry : g_ownerless) {
    if (entry.managed == nullptr || entry.managed == managed) {
      entry = Ownerless{managed, owned};
      *context = nullptr;
      return true;
    }
  }
  return false;
}

// What the struct at `managed`, whose manager_ctx is `context`, owns (taken out of g_ownerless).
inline Owned* owned_of(const void* managed, void* context) {
  if (context != nullptr) return static_cast<Owned*>(context);
  for (Ownerless& entry : g_ownerless) {
    if (entry.managed == managed) {
      Owned* owned = entry.owned;
      entry = Ownerless{};
      return owned;
    }
  }
  return nullptr;
}

// Frees what `owned` holds, then `owned` itself.
inline void release_owned(Owned* owned) {
  if (owned == nullptr) return;
  for (int i = 0; i < owned->count; ++i) g_host->free(g_host->ctx, owned->blocks[i]);
  g_host->free(g_host->ctx, owned);
}

// Lays out `spec` into `t` with guarded shape, strides and data owned by `owned`.
// `allow_null_strides` is false for producers of DLPack >= 1.2 (LAY-5).
inline int build_dltensor(const DLCTensorSpec& spec, DLTensor* t, Owned* owned,
                          bool allow_null_strides, char* err, size_t err_len) {
  if (spec.ndim < 0 || spec.ndim > DLC_MAX_NDIM) {
    set_error(err, err_len, "expected 0 <= ndim <= 32 in the request but found more");
    return DLC_ERR_INVALID;
  }
  const dlc::geo::SpecGeometry sg = dlc::geo::geometry(spec);
  const dlc::geo::Geometry& g = sg.g;
  t->ndim = spec.ndim;
  t->dtype.code = spec.dtype.code;
  t->dtype.bits = spec.dtype.bits;
  t->dtype.lanes = spec.dtype.lanes;
  // Stored as raw bytes: casting an unlisted value to v0.6's C++ enum is undefined (DEV-1).
  static_assert(sizeof t->device.device_type == sizeof spec.device.device_type, "LAY-1");
  std::memcpy(&t->device.device_type, &spec.device.device_type, sizeof spec.device.device_type);
  t->device.device_id = spec.device.device_id;
  t->byte_offset = spec.byte_offset;
  const bool scalar_null = spec.ndim == 0 && (spec.options & DLC_SPEC_NULL_SHAPE_IF_SCALAR);
  const size_t dims_bytes = sizeof(int64_t) * static_cast<size_t>(spec.ndim);
  t->shape = nullptr;
  t->strides = nullptr;
  if (!scalar_null) {
    t->shape = static_cast<int64_t*>(take(owned, dims_bytes, 8, DLC_ALLOC_SHAPE));
    if (t->shape == nullptr) return DLC_ERR_INTERNAL;
    for (int i = 0; i < spec.ndim; ++i) t->shape[i] = spec.shape[i];
  }
  const bool null_strides = (spec.options & DLC_SPEC_NULL_STRIDES) && allow_null_strides;
  if (!scalar_null && !null_strides) {
    t->strides = static_cast<int64_t*>(take(owned, dims_bytes, 8, DLC_ALLOC_STRIDES));
    if (t->strides == nullptr) return DLC_ERR_INTERNAL;
    for (int i = 0; i < spec.ndim; ++i) {
      t->strides[i] = g.valid ? sg.strides[i] : (spec.has_strides ? spec.strides[i] : 1);
    }
  }
  if (!g.valid) {
    // An invalid geometry (the test asked for it): data nobody may read.
    t->data = g_host->no_storage(g_host->ctx, 4096);
    return DLC_OK;
  }
  if (g.numel == 0 && (spec.options & DLC_SPEC_NULL_DATA_IF_EMPTY)) {
    t->data = nullptr;  // LAY-7
    return DLC_OK;
  }
  // The storage: byte_offset bytes before the lowest element, the elements, pad_after bytes
  // after the highest (a window into a larger buffer).
  const int64_t lead = (-g.min_offset) * static_cast<int64_t>(g.element_bytes);
  const size_t body = static_cast<size_t>(spec.byte_offset + g.storage_bytes + spec.pad_after);
  if (spec.device.device_type != 1) {
    // Not host memory: a pointer that faults on any host access (DEV-3).
    t->data = g_host->device_poison(g_host->ctx, body + 256);
    return DLC_OK;
  }
  // Start 256-aligned plus `misalign` (LAY-9); the end is flush with the guard page when the
  // size allows, so reading past the last element faults.
  const size_t padded = (body + spec.misalign + 255) / 256 * 256;
  uint8_t* block = static_cast<uint8_t*>(take(owned, padded, 256, DLC_ALLOC_DATA));
  if (block == nullptr) return DLC_ERR_INTERNAL;
  // The bytes around and between the elements: the same on every run (a reader that ignores
  // byte_offset or strides reads these, and its digest must not depend on the slot's past).
  std::memset(block, dlc::geo::kUnwrittenByte, padded);
  uint8_t* storage = block + spec.misalign;
  const int64_t* given = spec.has_strides ? spec.strides : nullptr;
  dlc::geo::fill(g, spec.ndim, spec.shape, given, spec.fill_seed, storage + spec.byte_offset + lead);
  if (spec.options & DLC_SPEC_DATA_AT_STORAGE_START) {
    t->data = storage;  // the whole distance to the first element is byte_offset (LAY-4)
    t->byte_offset = spec.byte_offset + static_cast<uint64_t>(lead);
  } else {
    t->data = storage + lead;
  }
  if (spec.options & DLC_SPEC_READ_ONLY) g_host->protect_read_only(g_host->ctx, block);
  return DLC_OK;
}

}  // namespace dlc_mock

// Defines the entry point for a plugin table named `table`.
#define DLC_EXPORT_PLUGIN(table)                                                                \
  extern "C" __attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry() { \
    return &(table);                                                                            \
  }
