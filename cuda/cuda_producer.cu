// The CUDA mock producer, compiled once per DLPack header (the include path picks it), as the
// host mocks are: a legacy producer for the 0.x headers, one that negotiates (VER-4) for 1.x.
// It makes the catalogue's device tensors in real memory of the kind their device type names:
// cudaMalloc (kDLCUDA), cudaMallocHost (kDLCUDAHost) or cudaMallocManaged (kDLCUDAManaged),
// reported to the host's device ledger (DEV-3, LIFE-5). The values are the host mocks' fill rule,
// written by a copy left pending on the producer's own stream behind a 50 ms hold; the
// consumer's stream is made to wait for it (event record, then wait: STRM-1), by the rules of
// STRM-2: no stream (None) or 1 is the legacy default stream, 2 the per-thread default, -1 asks
// for no synchronisation, 0 is refused. Asked for dl_device=(1, 0), it makes a host copy, in
// guarded host memory, once the pending write has landed (the Array API's __dlpack__: "a
// synchronization must be performed to ensure data safety"); copy=False refuses it (STRM-4).
//
// Planted bugs (DLC_BUG, declared in harness/plan/planted_bugs.tsv, kind cuda):
//   ignores_stream     never makes the consumer's stream wait
//   syncs_wrong_stream makes its own stream wait instead of the consumer's
//   takes_zero         makes stream 0 (the legacy default) wait, whatever the consumer passed
//   wrong_free         frees cudaMallocHost memory with cudaFree in its deleter (LIFE-5)
//   copy_ignores_stream makes the consumer's stream wait for a plain export's write, but not
//                      for a copy's (copy=True): the copy is not performed over that stream
//   host_copy_unsynced makes the host copy on a stream of its own, not ordered after its
//                      pending write: the copy holds the values from before it
#include <dlpack/dlpack.h>

#include <vector>

#include "cuda_common.cuh"

#define DLC_BUG_none 0
#define DLC_BUG_ignores_stream 1
#define DLC_BUG_syncs_wrong_stream 2
#define DLC_BUG_takes_zero 3
#define DLC_BUG_wrong_free 4
#define DLC_BUG_copy_ignores_stream 5
#define DLC_BUG_host_copy_unsynced 6

namespace {

using dlc_mock::g_host;
using dlc_mock::Owned;
using dlc_mock::set_error;

constexpr bool kVersioned = DLC_HDR_MAJOR >= 1;

// Everything one tensor owns besides the guarded host blocks (shape, strides, the struct).
struct CudaContext {
  Owned owned;
  void* block = nullptr;  // the storage
  size_t bytes = 0;
  int32_t allocator = 0;  // DLC_DEVICE_ALLOC_*
  void* scratch = nullptr;  // device copy of the values, the source of the pending write
  cudaStream_t stream = nullptr;
  cudaEvent_t written = nullptr;
  int device = 0;
};

void report_free(const void* pointer, int32_t allocator) {
  if (g_host->abi_version >= 3) g_host->device_freed(g_host->ctx, pointer, allocator);
}

void release(CudaContext* c) {
  if (c == nullptr) return;
  dlc_cuda::DeviceGuard guard;
  char ignored[256];
  guard.enter(c->device, ignored, sizeof ignored);
  if (c->block != nullptr) {
    [[maybe_unused]] const bool pinned = c->allocator == DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST;
#if DLC_BUG_ID == DLC_BUG_wrong_free
    cudaFree(c->block);  // planted: cudaFree on cudaMallocHost memory fails and leaks it
    report_free(c->block, DLC_DEVICE_ALLOC_CUDA_MALLOC);
#else
    if (pinned) {
      cudaFreeHost(c->block);
      report_free(c->block, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
    } else {
      cudaFree(c->block);
      report_free(c->block, DLC_DEVICE_ALLOC_CUDA_MALLOC);
    }
#endif
  }
  if (c->scratch != nullptr) {
    cudaFree(c->scratch);
    report_free(c->scratch, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  }
  if (c->written != nullptr) cudaEventDestroy(c->written);
  if (c->stream != nullptr) cudaStreamDestroy(c->stream);
  for (int i = 0; i < c->owned.count; ++i) g_host->free(g_host->ctx, c->owned.blocks[i]);
  g_host->free(g_host->ctx, c);
}

void legacy_deleter(DLManagedTensor* self) {
  if (g_host->deleter_called(g_host->ctx, self) != 0) return;
  release(static_cast<CudaContext*>(self->manager_ctx));
  g_host->free(g_host->ctx, self);
}

#if DLC_HDR_MAJOR >= 1
void versioned_deleter(struct DLManagedTensorVersioned* self) {
  if (g_host->deleter_called(g_host->ctx, self) != 0) return;
  release(static_cast<CudaContext*>(self->manager_ctx));
  g_host->free(g_host->ctx, self);
}
#endif

// The stream a consumer's ask names (STRM-2), or false for -1 (no synchronisation).
[[maybe_unused]] bool consumer_stream(const DLCRequest& r, cudaStream_t* out) {
  if (!r.has_stream || r.stream == 1) {
    *out = cudaStreamLegacy;
  } else if (r.stream == 2) {
    *out = cudaStreamPerThread;
  } else if (r.stream == -1) {
    return false;
  } else {
    *out = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(r.stream));
  }
  return true;
}

// Whether the request asks for a host copy: dl_device=(1, 0).
bool asks_host_copy(const DLCRequest& request) {
  return request.has_dl_device && request.dl_device.device_type == 1 &&
         request.dl_device.device_id == 0;
}

// The host copy dl_device=(1, 0) asks for: guarded host memory, laid out as the device storage,
// filled once the write pending on c's stream has landed; `t` then describes it.
int copy_to_host(CudaContext* c, DLTensor* t, int64_t lead, char* err, size_t err_len) {
  auto* host = static_cast<uint8_t*>(dlc_mock::take(&c->owned, c->bytes, 256, DLC_ALLOC_DATA));
  if (host == nullptr) return DLC_ERR_INTERNAL;
#if DLC_BUG_ID == DLC_BUG_host_copy_unsynced
  // Planted: a stream of its own, which does not wait for the pending write.
  cudaStream_t copier = nullptr;
  const bool copied =
      dlc_cuda::ok(cudaStreamCreateWithFlags(&copier, cudaStreamNonBlocking),
                   "cudaStreamCreateWithFlags", err, err_len) &&
      dlc_cuda::ok(cudaMemcpyAsync(host, c->block, c->bytes, cudaMemcpyDefault, copier),
                   "cudaMemcpyAsync", err, err_len) &&
      dlc_cuda::ok(cudaStreamSynchronize(copier), "cudaStreamSynchronize", err, err_len);
  if (copier != nullptr) cudaStreamDestroy(copier);
#else
  const bool copied =
      dlc_cuda::ok(cudaEventSynchronize(c->written), "cudaEventSynchronize", err, err_len) &&
      dlc_cuda::ok(cudaMemcpy(host, c->block, c->bytes, cudaMemcpyDefault), "cudaMemcpy", err,
                   err_len);
#endif
  if (!copied) return DLC_ERR_INTERNAL;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->data = host + lead;
  return DLC_OK;
}

// Fills `t` for `spec` in CUDA memory; the write stays pending on c's stream (see the top).
int build(const DLCRequest& request, DLTensor* t, CudaContext* c, char* err, size_t err_len) {
  const DLCTensorSpec& spec = request.tensor;
  const int32_t type = spec.device.device_type;
  if (!dlc::abi::is_cuda_memory(type)) {
    set_error(err, err_len, "expected a CUDA device type (2, 3 or 13) for a CUDA producer");
    return DLC_ERR_BUFFER;
  }
  const bool host_copy = asks_host_copy(request);
  if (request.has_dl_device && !host_copy &&
      (request.dl_device.device_type != type ||
       request.dl_device.device_id != spec.device.device_id)) {
    set_error(err, err_len, "cannot export to another device than the tensor's or the host "
                            "(STRM-3)");
    return DLC_ERR_BUFFER;
  }
  if (host_copy && request.copy == 0) {
    set_error(err, err_len, "cannot hand a CUDA tensor to the host without a copy, and copy=False "
                            "forbids one (STRM-4)");
    return DLC_ERR_BUFFER;
  }
  if (request.has_stream && (request.stream == 0 || request.stream < -1)) {
    set_error(err, err_len, "expected a CUDA stream (None, 1, 2, -1 or a handle) but found 0, "
                            "which STRM-2 disallows");
    return DLC_ERR_BUFFER;
  }
  if (spec.ndim < 0 || spec.ndim > dlc_cuda::kMaxDims) {
    set_error(err, err_len, "expected at most 16 dimensions for a CUDA mock tensor");
    return DLC_ERR_BUFFER;
  }
  int count = 0;
  if (!dlc_cuda::ok(cudaGetDeviceCount(&count), "cudaGetDeviceCount", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  const int id = spec.device.device_id;
  if (id < 0 || id >= count || (type != 2 && id != 0)) {
    std::snprintf(err, err_len, "expected a device id below %d (0 for pinned and managed memory, "
                  "DEV-2) but found %d", count, id);
    return DLC_ERR_BUFFER;
  }
  c->device = id;
  dlc_cuda::DeviceGuard guard;
  if (!guard.enter(id, err, err_len)) return DLC_ERR_INTERNAL;

  const dlc::geo::SpecGeometry sg = dlc::geo::geometry(spec);
  const dlc::geo::Geometry& g = sg.g;
  if (!g.valid || g.packed_subbyte) {
    set_error(err, err_len, "a CUDA mock makes valid tensors of whole-byte elements only");
    return DLC_ERR_BUFFER;
  }
  t->ndim = spec.ndim;
  t->dtype.code = spec.dtype.code;
  t->dtype.bits = spec.dtype.bits;
  t->dtype.lanes = spec.dtype.lanes;
  std::memcpy(&t->device.device_type, &type, sizeof type);
  t->device.device_id = id;
  t->byte_offset = spec.byte_offset;
  const size_t dims_bytes = sizeof(int64_t) * static_cast<size_t>(spec.ndim);
  t->shape = static_cast<int64_t*>(dlc_mock::take(&c->owned, dims_bytes, 8, DLC_ALLOC_SHAPE));
  t->strides = static_cast<int64_t*>(dlc_mock::take(&c->owned, dims_bytes, 8, DLC_ALLOC_STRIDES));
  if (t->shape == nullptr || t->strides == nullptr) return DLC_ERR_INTERNAL;
  for (int i = 0; i < spec.ndim; ++i) {
    t->shape[i] = spec.shape[i];
    t->strides[i] = sg.strides[i];
  }
  t->data = nullptr;
  if (g.numel == 0) {  // LAY-7: no storage, NULL data; a host copy of nothing is on the host
    if (host_copy) {
      t->device.device_type = kDLCPU;
      t->device.device_id = 0;
    }
    return DLC_OK;
  }

  const int64_t lead = (-g.min_offset) * static_cast<int64_t>(g.element_bytes);
  c->bytes = static_cast<size_t>(spec.byte_offset + g.storage_bytes + spec.pad_after);
  cudaError_t e = cudaSuccess;
  const char* call = "";
  if (type == 2) {
    e = cudaMalloc(&c->block, c->bytes), call = "cudaMalloc";
    c->allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC;
  } else if (type == 3) {
    e = cudaMallocHost(&c->block, c->bytes), call = "cudaMallocHost";
    c->allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST;
  } else {
    e = cudaMallocManaged(&c->block, c->bytes), call = "cudaMallocManaged";
    c->allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED;
  }
  if (!dlc_cuda::ok(e, call, err, err_len)) return DLC_ERR_INTERNAL;
  g_host->device_allocated(g_host->ctx, c->block, c->bytes, c->allocator);
  if (!dlc_cuda::ok(cudaMalloc(&c->scratch, c->bytes), "cudaMalloc", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  g_host->device_allocated(g_host->ctx, c->scratch, c->bytes, DLC_DEVICE_ALLOC_CUDA_MALLOC);

  // The values, laid out on the host as the host mocks lay them out, into the scratch copy.
  std::vector<uint8_t> staging(c->bytes, dlc::geo::kUnwrittenByte);
  const int64_t* given = spec.has_strides ? spec.strides : nullptr;
  dlc::geo::fill(g, spec.ndim, spec.shape, given, spec.fill_seed,
                 staging.data() + spec.byte_offset + lead);
  if (!dlc_cuda::ok(cudaMemset(c->block, dlc::geo::kUnwrittenByte, c->bytes), "cudaMemset", err,
                    err_len) ||
      !dlc_cuda::ok(cudaMemcpy(c->scratch, staging.data(), c->bytes, cudaMemcpyHostToDevice),
                    "cudaMemcpy", err, err_len) ||
      !dlc_cuda::ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  // The write, pending on the producer's stream behind the hold.
  if (!dlc_cuda::ok(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking),
                    "cudaStreamCreateWithFlags", err, err_len) ||
      !dlc_cuda::ok(cudaEventCreateWithFlags(&c->written, cudaEventDisableTiming),
                    "cudaEventCreateWithFlags", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  // No hold where no consumer reads the device memory (DLC_SPEC_NO_DEVICE_READ): nothing races.
  const bool hold = (request.tensor.options & DLC_SPEC_NO_DEVICE_READ) == 0;
  if ((hold && !dlc_cuda::ok(cudaLaunchHostFunc(c->stream, dlc_cuda::hold_stream, nullptr),
                             "cudaLaunchHostFunc", err, err_len)) ||
      !dlc_cuda::ok(cudaMemcpyAsync(c->block, c->scratch, c->bytes, cudaMemcpyDefault, c->stream),
                    "cudaMemcpyAsync", err, err_len) ||
      !dlc_cuda::ok(cudaEventRecord(c->written, c->stream), "cudaEventRecord", err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  // STRM-1: the consumer's stream waits for the write.
  cudaStream_t target = nullptr;
#if DLC_BUG_ID == DLC_BUG_ignores_stream
  const bool wait = false;
#elif DLC_BUG_ID == DLC_BUG_syncs_wrong_stream
  const bool wait = consumer_stream(request, &target);
  target = c->stream;
#elif DLC_BUG_ID == DLC_BUG_takes_zero
  const bool wait = true;
  target = nullptr;  // stream 0, the legacy default: a non-blocking stream does not wait on it
#elif DLC_BUG_ID == DLC_BUG_copy_ignores_stream
  const bool wait = consumer_stream(request, &target) && request.copy != 1;
#else
  const bool wait = consumer_stream(request, &target);
#endif
  if (wait && !dlc_cuda::ok(cudaStreamWaitEvent(target, c->written, 0), "cudaStreamWaitEvent",
                            err, err_len)) {
    return DLC_ERR_INTERNAL;
  }
  if (host_copy) return copy_to_host(c, t, lead, err, err_len);
  t->data = static_cast<uint8_t*>(c->block) + lead;
  return DLC_OK;
}

CudaContext* new_context() {
  void* block =
      g_host->alloc(g_host->ctx, sizeof(CudaContext), alignof(CudaContext), DLC_ALLOC_CONTEXT);
  return block == nullptr ? nullptr : new (block) CudaContext();
}

// A `Managed` struct (legacy or versioned) with its context, its tensor built; or nullptr with
// *rc set and everything allocated so far released.
template <class Managed>
Managed* make_struct(const DLCRequest& request, int* rc, char* err, size_t err_len) {
  CudaContext* c = new_context();
  auto* managed =
      static_cast<Managed*>(g_host->alloc(g_host->ctx, sizeof(Managed), 8, DLC_ALLOC_STRUCT));
  *rc = c == nullptr || managed == nullptr ? DLC_ERR_INTERNAL
                                           : build(request, &managed->dl_tensor, c, err, err_len);
  if (*rc != DLC_OK) {
    release(c);
    g_host->free(g_host->ctx, managed);  // NULL is a no-op
    return nullptr;
  }
  managed->manager_ctx = c;
  return managed;
}

int make_legacy(const DLCRequest& request, DLCHandoff* out, char* err, size_t err_len) {
  if (request.tensor.options & DLC_SPEC_READ_ONLY) {
    set_error(err, err_len, "cannot export a read-only tensor as legacy DLManagedTensor (FLAG-1)");
    return DLC_ERR_BUFFER;
  }
  int rc = DLC_OK;
  auto* managed = make_struct<DLManagedTensor>(request, &rc, err, err_len);
  if (managed == nullptr) return rc;
  managed->deleter = legacy_deleter;
  g_host->produced(g_host->ctx, managed);
  out->name = request.raw ? nullptr : "dltensor";
  out->pointer = managed;
  return DLC_OK;
}

#if DLC_HDR_MAJOR >= 1
int make_versioned(const DLCRequest& request, DLCHandoff* out, char* err, size_t err_len) {
  int rc = DLC_OK;
  auto* managed = make_struct<struct DLManagedTensorVersioned>(request, &rc, err, err_len);
  if (managed == nullptr) return rc;
  managed->version.major = DLPACK_MAJOR_VERSION;
  managed->version.minor = DLPACK_MINOR_VERSION;
  managed->deleter = versioned_deleter;
  uint64_t flags = 0;
  if (request.tensor.options & DLC_SPEC_READ_ONLY) flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  if (request.copy == 1 || asks_host_copy(request)) {
    flags |= DLPACK_FLAG_BITMASK_IS_COPIED;  // a fresh tensor
  }
  managed->flags = flags;
  g_host->produced(g_host->ctx, managed);
  out->name = request.raw ? nullptr : "dltensor_versioned";
  out->pointer = managed;
  return DLC_OK;
}
#endif

int produce(void*, const DLCRequest* request, DLCHandoff* out, char* err, size_t err_len) {
  if (request == nullptr || out == nullptr) return DLC_ERR_INVALID;
#if DLC_HDR_MAJOR < 1
  if (dlc_mock::asks_new_keywords(*request)) {
    set_error(err, err_len, "__dlpack__() got an unexpected keyword argument 'max_version'");
    return DLC_ERR_TYPE;  // the old signature (VER-5)
  }
  return make_legacy(*request, out, err, err_len);
#else
  if (request->raw) return make_versioned(*request, out, err, err_len);
  const bool legacy_caller = !request->has_max_version || request->max_version.major < 1;
  return legacy_caller ? make_legacy(*request, out, err, err_len)
                       : make_versioned(*request, out, err, err_len);
#endif
}

int create(const DLCHost* host, void** state, char* err, size_t err_len) {
  if (host->abi_version < 3) {
    set_error(err, err_len, "expected a host of plugin ABI 3 (device services) but found an older one");
    return DLC_ERR_INTERNAL;
  }
  g_host = host;
  *state = nullptr;
  return DLC_OK;  // CUDA starts in the case's own process, never here (workers fork from here)
}

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), nullptr, 0, dlc::abi::kCudaDeviceTypes,
    std::size(dlc::abi::kCudaDeviceTypes),
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_COPY | DLC_FEATURE_EVERY_DTYPE |
        DLC_FEATURE_REAL_DEVICE | DLC_FEATURE_BYTE_OFFSET | DLC_FEATURE_NULL_DATA,
    dlc_cuda::kMaxDims, {kVersioned ? DLC_HDR_MAJOR : 0u, kVersioned ? DLC_HDR_MINOR : 0u}};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    DLC_PLUGIN_NAME,
    DLC_PLUGIN_DESCRIPTION,
    DLC_ROLE_PRODUCER,
    {DLC_HDR_MAJOR, DLC_HDR_MINOR},
    0,
    {0, 0},
    kVersioned ? "versioned" : "legacy",
    create,
    nullptr,
    produce,
    nullptr,
    nullptr,
    &kProfile,
    dlc_cuda::available,
    nullptr,
};

}  // namespace

DLC_EXPORT_PLUGIN(kPlugin)
