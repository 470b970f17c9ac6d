// dlconform adapter plugin "tvm-ffi": Apache TVM FFI's DLPack C API (tvm/ffi/c_api.h, libtvm_ffi)
// as both consumer and producer, with no Python at run time.
//
// Producer route: tvm-ffi's C API has no allocator of its own (TVMFFIEnvTensorAlloc only forwards
// to a DLPackManagedTensorAllocator some framework registered, and none is registered here), so
// this adapter mallocs the requested tensor itself as a DLManagedTensorVersioned (struct, shape,
// strides and storage in one block, byte_offset, strides and misalignment exactly as asked),
// wraps it into a tvm-ffi Tensor with TVMFFITensorFromDLPackVersioned, drops its own reference,
// and exports that tvm-ffi Tensor again with TVMFFITensorToDLPackVersioned (a caller asking
// max_version >= 1.0) or TVMFFITensorToDLPack (a legacy caller), as tvm_ffi.Tensor.__dlpack__
// does. The exported struct is therefore made by tvm-ffi; its deleter drops tvm-ffi's reference,
// which calls this adapter's deleter, which frees the block.
//
// Consumer: asks max_version = the DLPack version of tvm-ffi's header (1.3); a
// "dltensor_versioned" goes to TVMFFITensorFromDLPackVersioned, a "dltensor" to
// TVMFFITensorFromDLPack (both with require_alignment 0 and require_contiguous 0, the defaults
// of tvm_ffi.from_dlpack), and the observation is read from the imported tvm-ffi Tensor's own
// DLTensor (TVMFFITensorGetDLTensorPtr).
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "dlconform/plugin.h"
#include "adapter_support.hpp"

#define DLC_STR2(x) #x
#define DLC_STR(x) DLC_STR2(x)

namespace {

using dlc_adapter::set_error;

// The error tvm-ffi raised last, as "Kind: message", and clears it.
std::string take_error() {
  TVMFFIObjectHandle e = nullptr;
  TVMFFIErrorMoveFromRaised(&e);
  if (e == nullptr) return "unknown error";
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(e);
  std::string text(cell->kind.data, cell->kind.size);
  text += ": ";
  text.append(cell->message.data, cell->message.size);
  TVMFFIObjectDecRef(e);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Consumer
// ---------------------------------------------------------------------------------------------

// The imported tvm-ffi Tensor, kept until release(): dropping it runs the producer's deleter.
TVMFFIObjectHandle g_imported = nullptr;

// Digest of the elements of `t` in logical row-major order, reading only through tvm-ffi's own
// DLTensor. Returns false (nothing read) when the geometry cannot be walked safely: negative or
// overflowing extents, NULL data with elements, or more than 2^32 elements.
bool digest_tensor(const DLTensor* t, bool padded, uint64_t* digest, uint64_t* count) {
  *digest = dlc_digest_init();
  *count = 0;
  if (t->ndim < 0 || t->ndim > 1024 || (t->ndim > 0 && t->shape == nullptr)) return false;
  const uint64_t bit_width = uint64_t{t->dtype.bits} * t->dtype.lanes;
  if (t->dtype.lanes == 0) return false;
  const uint64_t element = (bit_width + 7) / 8;
  uint64_t numel = 1;
  for (int32_t i = 0; i < t->ndim; ++i) {
    if (t->shape[i] < 0) return false;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(t->shape[i]), &numel)) return false;
  }
  if (numel == 0) return true;
  if (numel > (uint64_t{1} << 32) || t->data == nullptr) return false;
  // Addresses in integers first: data + byte_offset may wrap in what tvm-ffi accepted.
  uintptr_t first = 0;
  if (__builtin_add_overflow(reinterpret_cast<uintptr_t>(t->data), t->byte_offset, &first)) {
    return false;
  }
  const auto* origin = reinterpret_cast<const uint8_t*>(first);
  if (bit_width < 8 && !padded) {
    // Packed sub-byte elements: the unit is the storage byte.
    const uint64_t bytes = (numel * bit_width + 7) / 8;
    *digest = dlc_digest_update(*digest, origin, bytes);
    *count = bytes;
    return true;
  }
  int64_t strides[1024];
  int64_t index[1024];
  int64_t compact = 1;
  for (int32_t i = t->ndim - 1; i >= 0; --i) {
    strides[i] = t->strides != nullptr ? t->strides[i] : compact;
    compact *= t->shape[i] == 0 ? 1 : t->shape[i];
    index[i] = 0;
  }
  // Every element's byte offset must fit in int64 (LAY-10): tvm-ffi does not check it, and a
  // walk over a geometry that wraps would read wild memory on this adapter's account.
  int64_t low = 0, high = 0;
  for (int32_t i = 0; i < t->ndim; ++i) {
    int64_t reach = 0;
    if (__builtin_mul_overflow(t->shape[i] - 1, strides[i], &reach)) return false;
    int64_t& bound = reach < 0 ? low : high;
    if (__builtin_add_overflow(bound, reach, &bound)) return false;
  }
  int64_t below = 0, above = 0;
  uintptr_t lowest = 0, end = 0;
  if (__builtin_mul_overflow(low, static_cast<int64_t>(element), &below) ||
      __builtin_mul_overflow(high + 1, static_cast<int64_t>(element), &above) ||
      __builtin_sub_overflow(first, uintptr_t{0} - static_cast<uintptr_t>(below), &lowest) ||
      __builtin_add_overflow(first, static_cast<uintptr_t>(above), &end)) {
    return false;
  }
  int64_t offset = 0;
  for (uint64_t k = 0; k < numel; ++k) {
    *digest = dlc_digest_update(*digest, origin + offset * static_cast<int64_t>(element), element);
    for (int32_t d = t->ndim - 1; d >= 0; --d) {
      if (++index[d] < t->shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (t->shape[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
  *count = numel;
  return true;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  bool versioned = true;  // a raw exchange: the struct this consumer asks for
  if (handoff->name != nullptr) {
    if (std::strcmp(handoff->name, "dltensor_versioned") == 0) {
      versioned = true;
    } else if (std::strcmp(handoff->name, "dltensor") == 0) {
      versioned = false;
    } else {
      set_error(err, err_len,
                std::string("expected a dltensor or dltensor_versioned capsule but found ") +
                    handoff->name);
      return DLC_ERR_BUFFER;  // not renamed: the producer keeps it
    }
  }
  // The library's contract on a failed call: not taken. tvm-ffi's own entry point
  // (_from_dlpack_versioned and _from_dlpack, python/tvm_ffi/cython/tensor.pxi) renames the
  // capsule only after TVMFFITensorFromDLPack[Versioned] succeeds, and tvm-ffi does not delete
  // on refusal (the producer path below relies on it): a refused capsule stays its producer's.
  TVMFFIObjectHandle h = nullptr;
  int rc;
  bool padded = false;
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(handoff->pointer);
    // version and flags sit at the same place in every major: read them before importing.
    obs->struct_kind = DLC_STRUCT_VERSIONED;
    obs->version = {m->version.major, m->version.minor};
    // Only version, manager_ctx and deleter are readable in a struct of another major (VER-2).
    if (m->version.major == DLPACK_MAJOR_VERSION) {
      obs->flags = m->flags;
      padded = (m->flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0;
    }
    rc = TVMFFITensorFromDLPackVersioned(m, 0, 0, &h);
  } else {
    obs->struct_kind = DLC_STRUCT_LEGACY;
    obs->version = {0, 0};
    obs->flags = 0;
    rc = TVMFFITensorFromDLPack(static_cast<DLManagedTensor*>(handoff->pointer), 0, 0, &h);
  }
  if (rc != 0) {
    // Not renamed: the producer keeps the tensor; whether tvm-ffi called its deleter anyway is
    // what LIFE-1 and LIFE-3 check.
    set_error(err, err_len,
              std::string(versioned ? "TVMFFITensorFromDLPackVersioned" : "TVMFFITensorFromDLPack") +
                  " refused: " + take_error());
    return DLC_ERR_BUFFER;
  }
  if (handoff->name != nullptr) {
    handoff->name = versioned ? "used_dltensor_versioned" : "used_dltensor";  // taken (LIFE-1)
  }
  g_imported = h;
  const DLTensor* t = TVMFFITensorGetDLTensorPtr(h);
  obs->device = {static_cast<int32_t>(t->device.device_type), t->device.device_id};
  obs->dtype = {t->dtype.code, t->dtype.bits, t->dtype.lanes};
  obs->ndim = t->ndim;
  obs->has_strides = t->strides != nullptr;
  obs->byte_offset = t->byte_offset;
  if (t->ndim > 0 && t->shape != nullptr) {
    for (int32_t i = 0; i < t->ndim && i < DLC_MAX_NDIM; ++i) obs->shape[i] = t->shape[i];
  }
  if (t->ndim > 0 && t->strides != nullptr) {
    for (int32_t i = 0; i < t->ndim && i < DLC_MAX_NDIM; ++i) obs->strides[i] = t->strides[i];
  }
  if (t->device.device_type != kDLCPU) {
    obs->data_not_read = 1;
    return DLC_OK;
  }
  uint64_t digest = 0, count = 0;
  if (!digest_tensor(t, padded, &digest, &count)) {
    obs->data_not_read = 1;  // tvm-ffi accepted a geometry nobody can walk
    return DLC_OK;
  }
  obs->digest = digest;
  obs->elements_read = count;
  return DLC_OK;
}

void release(void*) noexcept {
  if (g_imported != nullptr) TVMFFIObjectDecRef(g_imported);
  g_imported = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------

// One malloc'd block: the struct tvm-ffi wraps, then shape, strides and the storage.
struct Block {
  DLManagedTensorVersioned managed;
  int64_t dims[2 * DLC_MAX_NDIM];
  void* storage;
};

void block_deleter(DLManagedTensorVersioned* m) {
  Block* b = static_cast<Block*>(m->manager_ctx);
  std::free(b->storage);
  std::free(b);
}

int build(const DLCTensorSpec& s, Block* b, char* err, size_t err_len) {
  DLTensor& t = b->managed.dl_tensor;
  t.device = {static_cast<DLDeviceType>(s.device.device_type), s.device.device_id};
  t.ndim = s.ndim;
  t.dtype = {s.dtype.code, s.dtype.bits, s.dtype.lanes};
  t.shape = b->dims;
  t.strides = b->dims + DLC_MAX_NDIM;
  const uint64_t bit_width = uint64_t{s.dtype.bits} * s.dtype.lanes;
  if (s.dtype.lanes == 0 || bit_width == 0) {
    set_error(err, err_len, "expected a dtype with bits and lanes > 0");
    return DLC_ERR_BUFFER;
  }
  const bool packed = bit_width < 8 && !(s.options & DLC_SPEC_SUBBYTE_PADDED);
  if (s.options & DLC_SPEC_SUBBYTE_PADDED) {
    set_error(err, err_len, "tvm-ffi refuses IS_SUBBYTE_TYPE_PADDED tensors");
    return DLC_ERR_BUFFER;
  }
  const uint64_t element = (bit_width + 7) / 8;
  uint64_t numel = 1;
  int64_t compact = 1;
  int64_t min_off = 0, max_off = 0;
  for (int i = s.ndim - 1; i >= 0; --i) {
    if (s.shape[i] < 0) {
      set_error(err, err_len, "expected extents >= 0 but found " + std::to_string(s.shape[i]));
      return DLC_ERR_BUFFER;
    }
    b->dims[i] = s.shape[i];
    const int64_t stride = (s.has_strides && !packed) ? s.strides[i] : compact;
    b->dims[DLC_MAX_NDIM + i] = stride;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(s.shape[i]), &numel) ||
        __builtin_mul_overflow(compact, s.shape[i] == 0 ? 1 : s.shape[i], &compact)) {
      set_error(err, err_len, "shape overflows");
      return DLC_ERR_BUFFER;
    }
  }
  if (numel > (uint64_t{1} << 32)) {
    set_error(err, err_len, "refusing to allocate more than 2^32 elements");
    return DLC_ERR_BUFFER;
  }
  if (numel > 0) {
    for (int i = 0; i < s.ndim; ++i) {
      const int64_t reach = (s.shape[i] - 1) * b->dims[DLC_MAX_NDIM + i];
      (reach < 0 ? min_off : max_off) += reach;
    }
  }
  uint64_t span = 0;  // bytes from the lowest element to the end of the highest
  if (numel > 0) {
    span = packed ? (numel * bit_width + 7) / 8
                  : static_cast<uint64_t>(max_off - min_off + 1) * element;
  }
  const uint64_t lead = static_cast<uint64_t>(-min_off) * element;
  const uint64_t body = s.byte_offset + span + s.pad_after;
  const uint64_t total = (body + s.misalign + 255) / 256 * 256 + 256;
  auto* storage = static_cast<uint8_t*>(std::aligned_alloc(256, total));
  if (storage == nullptr) return DLC_ERR_INTERNAL;
  std::memset(storage, 0xA5, total);
  b->storage = storage;
  uint8_t* base = storage + s.misalign;         // the window's storage
  uint8_t* first = base + s.byte_offset + lead;  // element 0
  if (packed) {
    for (uint64_t k = 0; k < span; ++k) first[k] = dlc_fill_value_byte(s.dtype.code, s.fill_seed, k, 0);
  } else if (numel > 0) {
    int64_t index[DLC_MAX_NDIM] = {};
    int64_t offset = 0;
    for (uint64_t k = 0; k < numel; ++k) {
      uint8_t* e = first + offset * static_cast<int64_t>(element);
      for (uint32_t j = 0; j < element; ++j) e[j] = dlc_fill_value_byte(s.dtype.code, s.fill_seed, k, j);
      for (int d = s.ndim - 1; d >= 0; --d) {
        if (++index[d] < s.shape[d]) {
          offset += b->dims[DLC_MAX_NDIM + d];
          break;
        }
        offset -= (s.shape[d] - 1) * b->dims[DLC_MAX_NDIM + d];
        index[d] = 0;
      }
    }
  }
  if (s.options & DLC_SPEC_DATA_AT_STORAGE_START) {
    t.data = base;
    t.byte_offset = s.byte_offset + lead;
  } else {
    t.data = base + lead;
    t.byte_offset = s.byte_offset;
  }
  return DLC_OK;
}

int produce(void*, const DLCRequest* req, DLCHandoff* out, char* err, size_t err_len) noexcept {
  if (req == nullptr || out == nullptr) return DLC_ERR_INVALID;
  const DLCTensorSpec& s = req->tensor;
  if (s.ndim < 0 || s.ndim > DLC_MAX_NDIM) {
    set_error(err, err_len, "expected 0 to 32 dimensions but found " + std::to_string(s.ndim));
    return DLC_ERR_INVALID;
  }
  if (s.device.device_type != kDLCPU || s.device.device_id != 0) {
    set_error(err, err_len, "this adapter makes CPU tensors only");
    return DLC_ERR_BUFFER;
  }
  const bool legacy_caller = dlc_adapter::legacy_caller(*req);
  // tvm_ffi.Tensor.__dlpack__: versioned for max_version >= (1, 0), legacy otherwise.
  const bool versioned = req->raw || !legacy_caller;
  if (versioned && !req->raw) {
    if (req->has_dl_device && (req->dl_device.device_type != s.device.device_type ||
                               req->dl_device.device_id != s.device.device_id)) {
      set_error(err, err_len, "dl_device of different type not supported");
      return DLC_ERR_BUFFER;
    }
    if (req->copy == 1) {
      set_error(err, err_len, "copy not yet supported");
      return DLC_ERR_BUFFER;
    }
  }
  if (s.options & DLC_SPEC_READ_ONLY) {
    set_error(err, err_len, "tvm-ffi's exported structs never carry READ_ONLY");
    return DLC_ERR_BUFFER;
  }
  Block* b = static_cast<Block*>(std::calloc(1, sizeof(Block)));
  if (b == nullptr) return DLC_ERR_INTERNAL;
  const int rc = build(s, b, err, err_len);
  if (rc != DLC_OK) {
    std::free(b->storage);
    std::free(b);
    return rc;
  }
  b->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  b->managed.manager_ctx = b;
  b->managed.deleter = block_deleter;
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFITensorFromDLPackVersioned(&b->managed, 0, 0, &h) != 0) {
    set_error(err, err_len, "TVMFFITensorFromDLPackVersioned refused the tensor: " + take_error());
    block_deleter(&b->managed);  // tvm-ffi does not delete on refusal
    return DLC_ERR_BUFFER;
  }
  int export_rc;
  void* exported = nullptr;
  if (versioned) {
    DLManagedTensorVersioned* m = nullptr;
    export_rc = TVMFFITensorToDLPackVersioned(h, &m);
    exported = m;
  } else {
    DLManagedTensor* m = nullptr;
    export_rc = TVMFFITensorToDLPack(h, &m);
    exported = m;
  }
  std::string why = export_rc != 0 ? take_error() : std::string();
  TVMFFIObjectDecRef(h);  // the export (if any) holds its own reference
  if (export_rc != 0 || exported == nullptr) {
    set_error(err, err_len, "TVMFFITensorToDLPack failed: " + why);
    return DLC_ERR_BUFFER;
  }
  out->name = req->raw ? nullptr : (versioned ? "dltensor_versioned" : "dltensor");
  out->pointer = exported;
  return DLC_OK;
}

// Runs the C API paths once (error and object machinery included), so that tvm-ffi's lazily
// built per-thread state is not counted against a worker's first exchange as a leak.
int create(const DLCHost*, void** state, char*, size_t) noexcept {
  *state = nullptr;
  DLCRequest req{};
  req.copy = -1;
  req.has_max_version = 1;
  req.max_version = {1, 3};
  req.tensor.dtype = {kDLFloat, 32, 1};
  req.tensor.ndim = 2;
  req.tensor.shape[0] = 2;
  req.tensor.shape[1] = 3;
  req.tensor.device = {kDLCPU, 0};
  char msg[256];
  for (int legacy = 0; legacy < 2; ++legacy) {
    req.has_max_version = !legacy;
    DLCHandoff h{};
    if (produce(nullptr, &req, &h, msg, sizeof msg) != DLC_OK) continue;
    DLCObservation obs{};
    DLCHandoff copy = h;
    if (consume(nullptr, &copy, &req, &obs, msg, sizeof msg) == DLC_OK) release(nullptr);
  }
  // A refusal, for the error path (the struct is then still ours).
  Block* b = static_cast<Block*>(std::calloc(1, sizeof(Block)));
  if (b != nullptr) {
    b->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    b->managed.flags = DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
    b->managed.dl_tensor.dtype = {kDLFloat, 32, 1};
    b->managed.dl_tensor.device = {kDLCPU, 0};
    TVMFFIObjectHandle h = nullptr;
    if (TVMFFITensorFromDLPackVersioned(&b->managed, 0, 0, &h) != 0) {
      (void)take_error();
    } else {
      TVMFFIObjectDecRef(h);
      b = nullptr;
    }
    std::free(b);
  }
  return DLC_OK;
}

// ---------------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------------

constexpr int32_t kDevices[] = {kDLCPU};

// tvm-ffi carries any dtype unchanged (it never interprets the code), on import and export.
constexpr DLCProfile kProfile = {
    sizeof(DLCProfile),
    nullptr,
    0,
    kDevices,
    1,
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_MISALIGNED |
        DLC_FEATURE_EVERY_DTYPE,
    8,
    {0, 0},
};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "tvm-ffi",
    "Apache TVM FFI's C API TVMFFITensor{From,To}DLPack[Versioned] (tvm-ffi headers " DLC_STR(
        TVM_FFI_VERSION_MAJOR) "." DLC_STR(TVM_FFI_VERSION_MINOR) "." DLC_STR(TVM_FFI_VERSION_PATCH) ")",
    DLC_ROLE_CONSUMER | DLC_ROLE_PRODUCER,
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    1,
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    "versioned",
    create, nullptr, produce, consume, release, &kProfile,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask (plugin ABI 3)
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
