// The CUDA mock consumer, compiled once per DLPack header: a legacy consumer for the 0.x headers
// (it never asks for max_version), one that asks for its own version for 1.x. It imports CUDA
// device, pinned and managed memory and reads every value on the device, never on the host: a
// kernel digests the elements in logical order on the consumer's own non-blocking stream, the
// stream it passed to __dlpack__ (STRM-1), at once; the producer must have made that stream wait
// for its pending write. It refuses what it cannot read (another device, DEV-3; another major,
// VER-2) and calls the deleter exactly once, after the read (LIFE-3, LIFE-6).
//
// Planted bugs (DLC_BUG, declared in harness/plan/planted_bugs.tsv, kind cuda):
//   no_stream      passes no stream (None: the legacy default stream) and reads on its own
//   minus_one      passes -1 (no synchronisation) and reads without synchronising itself
//   zero           passes stream 0, which STRM-2 disallows on CUDA
//   host_deref     reads the first element on the host after the import (DEV-3)
//   oob_read       its kernel reads one element past the end (compute-sanitizer's memcheck
//                  names it; the matrix sees the extra element in the digest)
#include <dlpack/dlpack.h>

#include "cuda_common.cuh"

#define DLC_BUG_none 0
#define DLC_BUG_no_stream 1
#define DLC_BUG_minus_one 2
#define DLC_BUG_zero 3
#define DLC_BUG_host_deref 4
#define DLC_BUG_oob_read 5

namespace {

using dlc_mock::set_error;

constexpr bool kVersioned = DLC_HDR_MAJOR >= 1;

// The consumer's own stream, made in the case's process on first use (never before the fork).
cudaStream_t g_stream = nullptr;
unsigned long long* g_result = nullptr;  // pinned: where the digest comes back

// Everything the read needs, made before the producer writes (ask() runs first): pinned memory
// and a kernel's first load may synchronise the device, and lazy loading (CUDA's default) loads
// the digest kernel at its first launch, which would wait for the producer's pending write and
// hide every stream mistake of the case.
bool ensure_stream(char* err, size_t err_len) {
  if (g_stream != nullptr) return true;
  cudaFuncAttributes loaded{};
  return dlc_cuda::ok(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking),
                      "cudaStreamCreateWithFlags", err, err_len) &&
         dlc_cuda::ok(cudaMallocHost(&g_result, sizeof *g_result), "cudaMallocHost", err, err_len) &&
         dlc_cuda::ok(cudaFuncGetAttributes(&loaded, dlc_cuda::digest_kernel),
                      "cudaFuncGetAttributes", err, err_len);
}

int ask(void*, DLCDevice device, DLCRequest* request, char* err, size_t err_len) {
  if (!dlc::abi::is_cuda_memory(device.device_type)) return DLC_OK;  // the CPU: stream=None
  if (!ensure_stream(err, err_len)) return DLC_ERR_INTERNAL;  // whatever it then passes
#if DLC_BUG_ID == DLC_BUG_no_stream
  (void)request;
  return DLC_OK;
#elif DLC_BUG_ID == DLC_BUG_minus_one
  request->has_stream = 1;
  request->stream = -1;
  return DLC_OK;
#elif DLC_BUG_ID == DLC_BUG_zero
  request->has_stream = 1;
  request->stream = 0;
  return DLC_OK;
#else
  request->has_stream = 1;
  request->stream = static_cast<int64_t>(reinterpret_cast<uintptr_t>(g_stream));
  return DLC_OK;
#endif
}

// What was imported, to delete in release() if consume() did not.
struct Imported {
  void* managed = nullptr;
  bool versioned = false;
  bool deleted = false;
} g_imported;

void delete_imported() {
  if (g_imported.managed == nullptr || g_imported.deleted) return;
  g_imported.deleted = true;
#if DLC_HDR_MAJOR >= 1
  if (g_imported.versioned) {
    auto* m = static_cast<struct DLManagedTensorVersioned*>(g_imported.managed);
    if (m->deleter != nullptr) m->deleter(m);  // LIFE-4: it may be NULL
    return;
  }
#endif
  auto* m = static_cast<DLManagedTensor*>(g_imported.managed);
  if (m->deleter != nullptr) m->deleter(m);
}

int refuse(char* err, size_t err_len, const char* why) {
  set_error(err, err_len, why);
  delete_imported();  // LIFE-3: a refused tensor that was taken is still deleted
  return DLC_ERR_BUFFER;
}

int read_on_device(const DLTensor& t, DLCObservation* obs, char* err, size_t err_len) {
  int32_t type = 0;
  std::memcpy(&type, &t.device.device_type, sizeof type);
  obs->device = {type, t.device.device_id};
  obs->dtype = {t.dtype.code, t.dtype.bits, t.dtype.lanes};
  obs->ndim = t.ndim;
  obs->byte_offset = t.byte_offset;
  obs->has_strides = t.strides != nullptr;
  if (!dlc::abi::is_cuda_memory(type)) {
    std::snprintf(err, err_len, "expected CUDA device, pinned or managed memory but found device "
                  "type %d (DEV-3)", type);
    return DLC_ERR_BUFFER;
  }
  const uint32_t bits = uint32_t{t.dtype.bits} * t.dtype.lanes;
  if (bits == 0 || bits % 8 != 0 || t.ndim < 0 || t.ndim > dlc_cuda::kMaxDims) {
    set_error(err, err_len, "expected whole-byte elements and at most 16 dimensions");
    return DLC_ERR_BUFFER;
  }
  int count = 0;
  if (!dlc_cuda::ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  if (t.device.device_id < 0 || t.device.device_id >= count) {
    std::snprintf(err, err_len, "expected a CUDA device id below %d but found %d", count,
                  t.device.device_id);
    return DLC_ERR_BUFFER;
  }
  dlc_cuda::DigestArgs a{};
  a.ndim = t.ndim;
  a.element_bytes = bits / 8;
  a.count = 1;
  int64_t compact = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] < 0) return refuse(err, err_len, "expected extents >= 0 (LAY-10)");
    a.shape[i] = t.shape[i];
    a.strides[i] = t.strides != nullptr ? t.strides[i] : compact;  // LAY-5: NULL is compact
    if (__builtin_mul_overflow(compact, t.shape[i] == 0 ? int64_t{1} : t.shape[i], &compact)) {
      return refuse(err, err_len, "expected a compact size that fits 64 bits (LAY-10)");
    }
    obs->shape[i] = t.shape[i];
    obs->strides[i] = a.strides[i];
    a.count *= static_cast<uint64_t>(t.shape[i]);
  }
  a.read_past_end = DLC_BUG_ID == DLC_BUG_oob_read ? 1 : 0;
  if (a.count == 0) {  // nothing to read: data may be NULL (LAY-7)
    obs->digest = dlc_digest_init();
    return DLC_OK;
  }
  a.first = static_cast<const unsigned char*>(t.data) + t.byte_offset;
  dlc_cuda::DeviceGuard guard;
  if (!guard.enter(t.device.device_id, err, err_len) || !ensure_stream(err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  // The memory must be what the device type says (DEV-3): a host pointer that claims to be
  // device memory is refused before any kernel touches it.
  cudaPointerAttributes attributes{};
  if (!dlc_cuda::ok(cudaPointerGetAttributes(&attributes, t.data), "cudaPointerGetAttributes",
                    err, err_len)) {
    cudaGetLastError();  // not sticky: clear it
    return DLC_ERR_BUFFER;
  }
  const cudaMemoryType want = type == 2 ? cudaMemoryTypeDevice
                              : type == 3 ? cudaMemoryTypeHost
                                          : cudaMemoryTypeManaged;
  // Managed memory is device-accessible too: frameworks export it as kDLCUDA as well.
  if (attributes.type != want && !(type == 2 && attributes.type == cudaMemoryTypeManaged)) {
    std::snprintf(err, err_len, "expected %s memory for device type %d but found a pointer of "
                  "CUDA memory type %d (DEV-3)", type == 2 ? "device" : type == 3 ? "pinned host"
                  : "managed", type, static_cast<int>(attributes.type));
    return DLC_ERR_BUFFER;
  }
#if DLC_BUG_ID == DLC_BUG_host_deref
  volatile const unsigned char* host_view = a.first;
  obs->digest = host_view[0];  // planted: a device pointer read on the host
#endif
  // At once, on the stream the producer was given: no synchronisation of our own (STRM-1).
  dlc_cuda::digest_kernel<<<1, 1, 0, g_stream>>>(a, g_result);
  if (!dlc_cuda::ok(cudaGetLastError(), "digest_kernel launch", err, err_len) ||
      !dlc_cuda::ok(cudaStreamSynchronize(g_stream), "cudaStreamSynchronize", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  obs->digest = *g_result;
  obs->elements_read = a.count + a.read_past_end;
  return DLC_OK;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) {
  g_imported = Imported{};
  if (handoff->name == nullptr || handoff->pointer == nullptr) {
    set_error(err, err_len, "expected a named capsule but found a raw pointer");
    return DLC_ERR_BUFFER;
  }
  const bool versioned = std::strcmp(handoff->name, "dltensor_versioned") == 0;
  if (!versioned && std::strcmp(handoff->name, "dltensor") != 0) {
    std::snprintf(err, err_len, "expected capsule dltensor or dltensor_versioned but found %s",
                  handoff->name);
    return DLC_ERR_BUFFER;
  }
  if (versioned && !kVersioned) {
    set_error(err, err_len, "expected a dltensor capsule (DLPack < 1.0) but found dltensor_versioned");
    return DLC_ERR_BUFFER;  // not ours to take
  }
  handoff->name = versioned ? "used_dltensor_versioned" : "used_dltensor";  // LIFE-1
  g_imported.managed = handoff->pointer;
  g_imported.versioned = versioned;
  const DLTensor* tensor = nullptr;
#if DLC_HDR_MAJOR >= 1
  if (versioned) {
    auto* m = static_cast<struct DLManagedTensorVersioned*>(handoff->pointer);
    obs->struct_kind = DLC_STRUCT_VERSIONED;
    obs->version = {m->version.major, m->version.minor};
    if (m->version.major != DLPACK_MAJOR_VERSION) {  // VER-2: the deleter and nothing else
      return refuse(err, err_len, "expected DLPack major 1 but found another (VER-2)");
    }
    obs->flags = m->flags;
    tensor = &m->dl_tensor;
  }
#endif
  if (!versioned) {
    obs->struct_kind = DLC_STRUCT_LEGACY;
    tensor = &static_cast<DLManagedTensor*>(handoff->pointer)->dl_tensor;
  }
  const int rc = read_on_device(*tensor, obs, err, err_len);
  delete_imported();  // done reading (LIFE-6), or refused (LIFE-3)
  return rc;
}

void release(void*) { delete_imported(); }

int create(const DLCHost*, void** state, char*, size_t) {
  *state = nullptr;
  return DLC_OK;  // CUDA starts in the case's own process, never here
}

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), nullptr, 0, dlc::abi::kCudaDeviceTypes,
    std::size(dlc::abi::kCudaDeviceTypes),
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_EVERY_DTYPE |
        DLC_FEATURE_MISALIGNED | DLC_FEATURE_REAL_DEVICE | DLC_FEATURE_READ_ONLY,
    dlc_cuda::kMaxDims, {0, 0}};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    DLC_PLUGIN_NAME,
    DLC_PLUGIN_DESCRIPTION,
    DLC_ROLE_CONSUMER,
    {DLC_HDR_MAJOR, DLC_HDR_MINOR},
    kVersioned ? 1 : 0,
    {kVersioned ? DLC_HDR_MAJOR : 0u, kVersioned ? DLC_HDR_MINOR : 0u},
    nullptr,
    create,
    nullptr,
    nullptr,
    consume,
    release,
    &kProfile,
    dlc_cuda::available,
    ask,
};

}  // namespace

DLC_EXPORT_PLUGIN(kPlugin)
