// dlconform adapter plugin "mxnet-c-api": Apache MXNet 1.9.1's DLPack import and export through
// its C API, both roles.
//
//   consumer: MXNDArrayFromDLPackEx(dlpack, transient_handle=false, &nd), exactly the call
//             mxnet.ndarray.from_dlpack makes; legacy "dltensor" only (MXNet 1.9 vendors DLPack
//             0.2 and has no versioned struct), never asks max_version. The NDArray is read back
//             with MXNDArrayGetShapeEx / GetDType / GetContext and, on CPU, copied out with
//             MXNDArraySyncCopyToCPU (a contiguous copy made by MXNet) for the digest.
//             release() frees it (MXNDArrayFree, then MXNDArrayWaitAll: the engine frees
//             asynchronously), which is when MXNet calls the producer's deleter.
//   producer: MXNDArrayCreateEx + MXNDArraySyncCopyFromCPU make the requested tensor (a window
//             into a larger NDArray through MXNDArraySlice + MXNDArrayReshape when the request
//             puts the tensor at a byte_offset or pads after it), MXNDArrayWaitToRead, then
//             MXNDArrayToDLPack, as NDArray.to_dlpack_for_read does. Legacy only.
//
// No MXNet header is included: the C functions below are this file's own declarations of the
// documented signatures (include/mxnet/c_api.h), looked up with dlsym in libmxnet.so, which
// create() dlopen()s from DLC_MXNET_LIB (given at build time). The DLPack legacy structs are
// declared here too (the layout is the same from DLPack 0.2 to 1.x).
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "adapter_support.hpp"
#include "dlconform/plugin.h"

#ifndef DLC_MXNET_LIB
#define DLC_MXNET_LIB "libmxnet.so"
#endif
#ifndef DLC_MXNET_VERSION
#define DLC_MXNET_VERSION "1.9.1"
#endif

namespace {

// ---------------------------------------------------------------------------------------------
// Own declarations: the legacy DLPack struct and the MXNet C API (all return 0 or -1)
// ---------------------------------------------------------------------------------------------

struct LegacyDevice {
  int32_t device_type;
  int32_t device_id;
};
struct LegacyDtype {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct LegacyTensor {
  void* data;
  LegacyDevice device;
  int32_t ndim;
  LegacyDtype dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct LegacyManaged {
  LegacyTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(LegacyManaged*);
};

using NDArrayHandle = void*;
using DLManagedTensorHandle = void*;

struct MXNetApi {
  const char* (*GetLastError)();
  int (*GetVersion)(int* out);
  int (*SetIsNumpyShape)(int is_np_shape, int* prev);
  int (*NDArrayCreateEx)(const uint32_t* shape, uint32_t ndim, int dev_type, int dev_id,
                         int delay_alloc, int dtype, NDArrayHandle* out);
  int (*NDArraySyncCopyFromCPU)(NDArrayHandle handle, const void* data, size_t size);
  int (*NDArraySyncCopyToCPU)(NDArrayHandle handle, void* data, size_t size);
  int (*NDArrayWaitToRead)(NDArrayHandle handle);
  int (*NDArrayWaitAll)();
  int (*NDArrayFree)(NDArrayHandle handle);
  int (*NDArraySlice)(NDArrayHandle handle, uint32_t begin, uint32_t end, NDArrayHandle* out);
  int (*NDArrayReshape)(NDArrayHandle handle, int ndim, int* dims, NDArrayHandle* out);
  int (*NDArrayGetShapeEx)(NDArrayHandle handle, int* out_dim, const int** out_pdata);
  int (*NDArrayGetDType)(NDArrayHandle handle, int* out_dtype);
  int (*NDArrayGetContext)(NDArrayHandle handle, int* out_dev_type, int* out_dev_id);
  int (*NDArrayGetData)(NDArrayHandle handle, void** out_pdata);
  int (*NDArrayToDLPack)(NDArrayHandle handle, DLManagedTensorHandle* out_dlpack);
  int (*NDArrayFromDLPackEx)(DLManagedTensorHandle dlpack, bool transient_handle,
                             NDArrayHandle* out_handle);
  int (*NDArrayCallDLPackDeleter)(DLManagedTensorHandle dlpack);
};

MXNetApi g_mx{};
bool g_loaded = false;
std::string g_load_error;

// mshadow::TypeFlag values (include/mshadow/base.h).
enum MxDtype : int {  // in order, from 0
  kMxFloat32, kMxFloat64, kMxFloat16, kMxUint8, kMxInt32, kMxInt8, kMxInt64,
  kMxBool, kMxInt16, kMxUint16, kMxUint32, kMxUint64, kMxBfloat16,
};

// Writes `what` as one printable line: MXNet's messages can carry raw bytes (it prints the
// uint8 fields of a DLDataType as characters), which are escaped as \xNN.
void set_error(char* err, size_t len, const std::string& what) {
  if (err == nullptr || len == 0) return;
  std::string line;
  for (unsigned char c : what) {
    if (c == '\n') break;
    if (c >= 0x20 && c < 0x7f) {
      line += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      line += hex;
    }
  }
  std::snprintf(err, len, "%s", line.c_str());
}

// MXGetLastError() as one line: the "MXNetError: ..." line if there is one, else the first.
std::string mx_error() {
  const char* e = g_mx.GetLastError != nullptr ? g_mx.GetLastError() : nullptr;
  if (e == nullptr || *e == '\0') return "unknown MXNet error";
  std::string text = e;
  size_t at = text.find("MXNetError:");
  if (at == std::string::npos) at = 0;
  std::string line = text.substr(at, text.find('\n', at) - at);
  // MXNet prefixes "[hh:mm:ss] file:line: " to LOG(FATAL) text; keep it, it names the check.
  return line;
}

template <typename F>
bool bind(void* lib, const char* symbol, F* slot) {
  void* p = dlsym(lib, symbol);
  if (p == nullptr) {
    g_load_error = std::string("libmxnet.so lacks ") + symbol;
    return false;
  }
  *slot = reinterpret_cast<F>(p);
  return true;
}

bool load_mxnet() {
  void* lib = dlopen(DLC_MXNET_LIB, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (lib == nullptr) {
    const char* why = dlerror();
    g_load_error = std::string("cannot dlopen " DLC_MXNET_LIB ": ") + (why ? why : "?");
    return false;
  }
  return bind(lib, "MXGetLastError", &g_mx.GetLastError) &&
         bind(lib, "MXGetVersion", &g_mx.GetVersion) &&
         bind(lib, "MXSetIsNumpyShape", &g_mx.SetIsNumpyShape) &&
         bind(lib, "MXNDArrayCreateEx", &g_mx.NDArrayCreateEx) &&
         bind(lib, "MXNDArraySyncCopyFromCPU", &g_mx.NDArraySyncCopyFromCPU) &&
         bind(lib, "MXNDArraySyncCopyToCPU", &g_mx.NDArraySyncCopyToCPU) &&
         bind(lib, "MXNDArrayWaitToRead", &g_mx.NDArrayWaitToRead) &&
         bind(lib, "MXNDArrayWaitAll", &g_mx.NDArrayWaitAll) &&
         bind(lib, "MXNDArrayFree", &g_mx.NDArrayFree) &&
         bind(lib, "MXNDArraySlice", &g_mx.NDArraySlice) &&
         bind(lib, "MXNDArrayReshape", &g_mx.NDArrayReshape) &&
         bind(lib, "MXNDArrayGetShapeEx", &g_mx.NDArrayGetShapeEx) &&
         bind(lib, "MXNDArrayGetDType", &g_mx.NDArrayGetDType) &&
         bind(lib, "MXNDArrayGetContext", &g_mx.NDArrayGetContext) &&
         bind(lib, "MXNDArrayGetData", &g_mx.NDArrayGetData) &&
         bind(lib, "MXNDArrayToDLPack", &g_mx.NDArrayToDLPack) &&
         bind(lib, "MXNDArrayFromDLPackEx", &g_mx.NDArrayFromDLPackEx) &&
         bind(lib, "MXNDArrayCallDLPackDeleter", &g_mx.NDArrayCallDLPackDeleter);
}

// One export cycle, so that MXNet's one-time allocations (engine, storage and object pools,
// operator registries) are made here rather than inside the first produce(), where LIFE-5
// would count them against the first tensor.
void warm_up() {
  const uint32_t shape[1] = {4};
  const float values[4] = {0, 1, 2, 3};
  NDArrayHandle nd = nullptr;
  if (g_mx.NDArrayCreateEx(shape, 1, 1, 0, 0, kMxFloat32, &nd) != 0) return;
  DLManagedTensorHandle managed = nullptr;
  if (g_mx.NDArraySyncCopyFromCPU(nd, values, 4) == 0 && g_mx.NDArrayWaitToRead(nd) == 0 &&
      g_mx.NDArrayToDLPack(nd, &managed) == 0) {
    float back[4] = {};
    NDArrayHandle imported = nullptr;
    g_mx.NDArraySyncCopyToCPU(nd, back, 4);
    if (g_mx.NDArrayFromDLPackEx(managed, false, &imported) == 0) {
      g_mx.NDArrayFree(imported);  // calls the export's deleter
    } else {
      g_mx.NDArrayCallDLPackDeleter(managed);
    }
  }
  g_mx.NDArrayFree(nd);
  g_mx.NDArrayWaitAll();
}

int create(const DLCHost*, void** state, char* err, size_t err_len) noexcept {
  if (!g_loaded && g_load_error.empty()) {
    // MXNet's engine, unless the environment picks one: the synchronous NaiveEngine. With the
    // default threaded engine every free (the export's deleter included) is only scheduled, and
    // runs on an engine thread after the deleter has returned, which dlconform's per-exchange
    // LIFE-5 accounting cannot tell from a leak. Run with MXNET_ENGINE_TYPE=ThreadedEnginePerDevice
    // to test the default engine. Read by MXNet when its engine starts, so set before any call.
    setenv("MXNET_ENGINE_TYPE", "NaiveEngine", 0);
    if (load_mxnet()) {
      // NumPy shape semantics (what mx.npx.set_np() turns on), process-wide: without them a
      // 0-d shape or an extent of 0 means "unknown" to MXNet and such arrays cannot be made.
      int prev = 0;
      if (g_mx.SetIsNumpyShape(2, &prev) != 0) {
        g_load_error = "MXSetIsNumpyShape failed: " + mx_error();
      } else {
        g_loaded = true;
        warm_up();
      }
    }
  }
  if (!g_loaded) {
    set_error(err, err_len, g_load_error);
    return DLC_ERR_INTERNAL;
  }
  if (state != nullptr) *state = nullptr;
  return DLC_OK;
}

// DLPack dtype of an MXNet type flag, as MXNet's own TBlob::DTypeTransform maps it (bool is
// {kDLUInt, 1, 1} there, the DLPack 0.2 spelling); false where MXNet has no mapping.
bool dlpack_of(int flag, DLCDtype* out) {
  switch (flag) {
    case kMxFloat32: *out = {2, 32, 1}; return true;
    case kMxFloat64: *out = {2, 64, 1}; return true;
    case kMxFloat16: *out = {2, 16, 1}; return true;
    case kMxBfloat16: *out = {4, 16, 1}; return true;
    case kMxUint8: *out = {1, 8, 1}; return true;
    case kMxInt32: *out = {0, 32, 1}; return true;
    case kMxInt8: *out = {0, 8, 1}; return true;
    case kMxInt64: *out = {0, 64, 1}; return true;
    case kMxBool: *out = {1, 1, 1}; return true;
    default: return false;
  }
}

// Bytes of one element of an MXNet type flag.
size_t element_size(int flag) {
  switch (flag) {
    case kMxFloat64: case kMxInt64: case kMxUint64: return 8;
    case kMxFloat32: case kMxInt32: case kMxUint32: return 4;
    case kMxFloat16: case kMxBfloat16: case kMxInt16: case kMxUint16: return 2;
    case kMxUint8: case kMxInt8: case kMxBool: return 1;
    default: return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Consumer
// ---------------------------------------------------------------------------------------------

NDArrayHandle g_imported = nullptr;  // kept until release(): it owns the producer's struct

bool observe(NDArrayHandle nd, DLCObservation* obs, std::string* why) {
  int ndim = 0;
  const int* dims = nullptr;
  int flag = -1;
  int dev_type = 0, dev_id = 0;
  if (g_mx.NDArrayGetDType(nd, &flag) != 0 || g_mx.NDArrayGetContext(nd, &dev_type, &dev_id) != 0) {
    *why = "reading the imported NDArray failed: " + mx_error();
    return false;
  }
  DLCDtype dt{};
  if (!dlpack_of(flag, &dt)) {
    *why = "the imported NDArray has type flag " + std::to_string(flag) +
           ", which MXNet does not map to DLPack";
    return false;
  }
  obs->dtype = dt;
  // MXNet's Context device types are DLPack's for cpu (1), gpu (2) and cpu_pinned (3).
  obs->device = {dev_type, dev_id};
  obs->byte_offset = 0;
  if (g_mx.NDArrayGetShapeEx(nd, &ndim, &dims) != 0) {
    // MXNDArrayFromDLPackEx took a shape of 2^31 elements or more, which every shape query of
    // this (int32-sized) build then refuses: the NDArray exists but cannot be described or
    // read. Reported as imported with nothing read (the shape is unknown).
    obs->ndim = 0;
    obs->data_not_read = 1;
    return true;
  }
  obs->ndim = ndim;
  obs->has_strides = 1;  // MXNet arrays are compact row-major: its strides are implied
  uint64_t numel = 1;
  int64_t stride = 1;
  bool overflow = false;
  for (int i = ndim - 1; i >= 0; --i) {
    if (i < DLC_MAX_NDIM) {
      obs->shape[i] = dims[i];
      obs->strides[i] = stride;
    }
    const int64_t extent = dims[i];
    overflow |= __builtin_mul_overflow(stride, extent > 0 ? extent : 1, &stride);
    overflow |= __builtin_mul_overflow(numel, static_cast<uint64_t>(extent > 0 ? extent : 0), &numel);
  }
  if (ndim < 0) numel = 0;
  if (overflow && numel != 0) {
    // MXNet took a shape whose size overflows (LAY-10): imported, and nothing can be read.
    obs->data_not_read = 1;
    return true;
  }
  if (dev_type != 1) {
    obs->data_not_read = 1;
    return true;
  }
  const size_t element = element_size(flag);
  void* data = nullptr;
  if (numel > 0 && (g_mx.NDArrayGetData(nd, &data) != 0 || data == nullptr)) {
    // MXNet took a NULL data pointer for a tensor with elements (LAY-7 allows NULL only when
    // there are none): imported, and nothing can be read.
    obs->digest = dlc_digest_init();
    obs->elements_read = 0;
    return true;
  }
  std::vector<uint8_t> host(static_cast<size_t>(numel) * element + 1);
  if (numel > 0 && g_mx.NDArraySyncCopyToCPU(nd, host.data(), static_cast<size_t>(numel)) != 0) {
    *why = "MXNDArraySyncCopyToCPU failed: " + mx_error();
    return false;
  }
  obs->digest = dlc_digest_update(dlc_digest_init(), host.data(), numel * element);
  obs->elements_read = numel;
  return true;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  if (!g_loaded) {
    set_error(err, err_len, "libmxnet.so not loaded: " + g_load_error);
    return DLC_ERR_INTERNAL;
  }
  if (handoff->name != nullptr) {
    if (std::strcmp(handoff->name, "dltensor") != 0) {
      // mxnet.ndarray.from_dlpack asserts PyCapsule_IsValid(capsule, "dltensor").
      set_error(err, err_len, std::string("expected a dltensor capsule (MXNet 1.9 speaks legacy "
                                          "DLPack only) but found ") + handoff->name);
      return DLC_ERR_BUFFER;  // not renamed: the producer keeps it
    }
  }
  // The library's contract on a failed call: not taken. MXNet's own entry point
  // (mxnet.ndarray.from_dlpack, python/mxnet/ndarray/ndarray.py) renames the capsule only after
  // check_call(MXNDArrayFromDLPackEx) returns, so a refused capsule stays its producer's; a
  // deleter call inside the failed call is then a double free (capsule-not-renamed).
  obs->struct_kind = DLC_STRUCT_LEGACY;
  obs->version = {0, 0};
  obs->flags = 0;
  try {
    NDArrayHandle nd = nullptr;
    if (g_mx.NDArrayFromDLPackEx(handoff->pointer, false, &nd) != 0) {
      // Not renamed: the producer keeps the tensor; whether MXNet called its deleter anyway is
      // what LIFE-1 and LIFE-3 check.
      set_error(err, err_len, "MXNDArrayFromDLPackEx refused: " + mx_error());
      return DLC_ERR_BUFFER;
    }
    if (handoff->name != nullptr) handoff->name = "used_dltensor";  // taken (LIFE-1)
    g_imported = nd;  // from here the NDArray owns the struct
    std::string why;
    if (!observe(nd, obs, &why)) {
      set_error(err, err_len, why);
      return DLC_ERR_INTERNAL;
    }
    return DLC_OK;
  } catch (...) {
    set_error(err, err_len, "MXNDArrayFromDLPackEx threw");
    return DLC_ERR_INTERNAL;
  }
}

void release(void*) noexcept {
  if (g_imported == nullptr) return;
  NDArrayHandle nd = g_imported;
  g_imported = nullptr;
  g_mx.NDArrayFree(nd);
  g_mx.NDArrayWaitAll();  // the engine deletes asynchronously: the deleter has run after this
}

// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------

// MXNet type flag for a DLPack dtype the producer can make and export, or -1.
int flag_of(DLCDtype d) {
  if (d.lanes != 1) return -1;
  switch (d.code) {
    case 0:  // int
      return d.bits == 8 ? kMxInt8 : d.bits == 32 ? kMxInt32 : d.bits == 64 ? kMxInt64 : -1;
    case 1:  // uint
      return d.bits == 8 ? kMxUint8 : -1;
    case 2:  // float
      return d.bits == 16 ? kMxFloat16 : d.bits == 32 ? kMxFloat32 : d.bits == 64 ? kMxFloat64 : -1;
    case 4:  // bfloat
      return d.bits == 16 ? kMxBfloat16 : -1;
    case 6:  // bool: MXNet's own bool arrays
      return d.bits == 8 ? kMxBool : -1;
    default:
      return -1;
  }
}

// Frees an NDArray handle at scope exit.
struct Owned {
  NDArrayHandle h = nullptr;
  ~Owned() {
    if (h != nullptr) g_mx.NDArrayFree(h);
  }
};

int produce(void*, const DLCRequest* req, DLCHandoff* out, char* err, size_t err_len) noexcept {
  if (req == nullptr || out == nullptr) return DLC_ERR_INVALID;
  if (!g_loaded) {
    set_error(err, err_len, "libmxnet.so not loaded: " + g_load_error);
    return DLC_ERR_INTERNAL;
  }
  try {
    // NDArray.to_dlpack_for_read() takes no keyword: a caller passing max_version, dl_device or
    // copy gets a TypeError and retries as a legacy caller (VER-5).
    if (!req->raw && (req->has_max_version || req->copy != -1 || req->has_dl_device)) {
      set_error(err, err_len,
                "to_dlpack_for_read() got an unexpected keyword argument (MXNet 1.9 exports "
                "legacy DLPack only)");
      return DLC_ERR_TYPE;
    }
    const DLCTensorSpec& s = req->tensor;
    if (s.device.device_type != 1 || s.device.device_id != 0) {
      set_error(err, err_len, "expected a CPU tensor (this MXNet build is CPU only)");
      return DLC_ERR_BUFFER;
    }
    if (s.options & DLC_SPEC_READ_ONLY) {
      set_error(err, err_len, "MXNet cannot export READ_ONLY (legacy DLPack has no flags)");
      return DLC_ERR_BUFFER;
    }
    if (s.misalign != 0) {
      set_error(err, err_len, "MXNet cannot place its storage at a misaligned address");
      return DLC_ERR_BUFFER;
    }
    if (s.ndim < 0 || s.ndim > DLC_MAX_NDIM) {
      set_error(err, err_len, "expected 0 to 32 dimensions but found " + std::to_string(s.ndim));
      return DLC_ERR_INVALID;
    }
    const int flag = flag_of(s.dtype);
    if (flag < 0) {
      set_error(err, err_len, "MXNet has no DLPack mapping for dtype " +
                                  std::to_string(s.dtype.code) + ":" +
                                  std::to_string(s.dtype.bits) + ":" +
                                  std::to_string(s.dtype.lanes));
      return DLC_ERR_BUFFER;
    }
    const size_t element = element_size(flag);
    uint64_t numel = 1;
    std::vector<uint32_t> shape(static_cast<size_t>(s.ndim));
    for (int i = s.ndim - 1; i >= 0; --i) {
      if (s.shape[i] < 0 || s.shape[i] > INT32_MAX) {
        set_error(err, err_len, "MXNet extents are 0 to 2^31-1 but found " +
                                    std::to_string(s.shape[i]));
        return DLC_ERR_BUFFER;
      }
      shape[i] = static_cast<uint32_t>(s.shape[i]);
      numel *= static_cast<uint64_t>(s.shape[i]);
    }
    // MXNet arrays are compact row-major only. The stride of an extent-1 dim is free, and a
    // tensor with no elements has any strides: both are compact.
    int64_t compact = 1;
    for (int i = s.ndim - 1; s.has_strides && numel > 0 && i >= 0; --i) {
      if (s.shape[i] > 1 && s.strides[i] != compact) {
        set_error(err, err_len, "MXNet arrays are compact: expected stride " +
                                    std::to_string(compact) + " in dim " + std::to_string(i) +
                                    " but found " + std::to_string(s.strides[i]));
        return DLC_ERR_BUFFER;
      }
      compact *= s.shape[i];
    }
    if (numel > (uint64_t{1} << 31)) {
      set_error(err, err_len, "refusing to allocate more than 2^31 elements");
      return DLC_ERR_BUFFER;
    }
    if (s.byte_offset % element != 0) {
      set_error(err, err_len, "MXNet views start at a whole element: byte_offset " +
                                  std::to_string(s.byte_offset) + " is not a multiple of " +
                                  std::to_string(element));
      return DLC_ERR_BUFFER;
    }
    const uint64_t lead = numel > 0 ? s.byte_offset / element : 0;
    const uint64_t tail = numel > 0 ? (s.pad_after + element - 1) / element : 0;
    const uint64_t total = lead + numel + tail;
    if (total > (uint64_t{1} << 31)) {
      set_error(err, err_len, "refusing to allocate more than 2^31 elements");
      return DLC_ERR_BUFFER;
    }
    // The values, in logical row-major order, with recognisable padding around them.
    std::vector<uint8_t> bytes(static_cast<size_t>(total * element) + 1, 0xA5);
    for (uint64_t k = 0; k < numel; ++k) {
      for (size_t j = 0; j < element; ++j) {
        bytes[(lead + k) * element + j] = dlc_fill_value_byte(s.dtype.code, s.fill_seed, k, static_cast<uint32_t>(j));
      }
    }
    if (flag == kMxBool) {
      // An MXNet bool is one byte holding 0 or 1; keep the fill's low bit.
      for (uint64_t k = 0; k < numel; ++k) bytes[lead + k] &= 1;
    }
    Owned nd;
    if (lead == 0 && tail == 0) {
      if (g_mx.NDArrayCreateEx(shape.data(), static_cast<uint32_t>(s.ndim), 1, 0, 0, flag,
                               &nd.h) != 0) {
        set_error(err, err_len, "MXNDArrayCreateEx failed: " + mx_error());
        return DLC_ERR_BUFFER;
      }
      if (numel > 0 && g_mx.NDArraySyncCopyFromCPU(nd.h, bytes.data(), numel) != 0) {
        set_error(err, err_len, "MXNDArraySyncCopyFromCPU failed: " + mx_error());
        return DLC_ERR_BUFFER;
      }
    } else {
      // A window: a 1-d NDArray of lead + numel + tail elements, sliced and reshaped.
      Owned base, window;
      const uint32_t flat = static_cast<uint32_t>(total);
      if (g_mx.NDArrayCreateEx(&flat, 1, 1, 0, 0, flag, &base.h) != 0 ||
          g_mx.NDArraySyncCopyFromCPU(base.h, bytes.data(), total) != 0 ||
          g_mx.NDArraySlice(base.h, static_cast<uint32_t>(lead),
                            static_cast<uint32_t>(lead + numel), &window.h) != 0) {
        set_error(err, err_len, "making an MXNet window failed: " + mx_error());
        return DLC_ERR_BUFFER;
      }
      std::vector<int> dims(shape.begin(), shape.end());
      if (g_mx.NDArrayReshape(window.h, s.ndim, dims.data(), &nd.h) != 0) {
        set_error(err, err_len, "MXNDArrayReshape failed: " + mx_error());
        return DLC_ERR_BUFFER;
      }
    }
    // to_dlpack_for_read(): wait for pending writes, then export.
    if (g_mx.NDArrayWaitToRead(nd.h) != 0) {
      set_error(err, err_len, "MXNDArrayWaitToRead failed: " + mx_error());
      return DLC_ERR_BUFFER;
    }
    DLManagedTensorHandle managed = nullptr;
    if (g_mx.NDArrayToDLPack(nd.h, &managed) != 0 || managed == nullptr) {
      set_error(err, err_len, "MXNDArrayToDLPack failed: " + mx_error());
      return DLC_ERR_BUFFER;
    }
    // The export holds its own reference to the data; the handle is freed by Owned.
    out->name = req->raw ? nullptr : "dltensor";
    out->pointer = managed;
    return DLC_OK;
  } catch (...) {
    set_error(err, err_len, "MXNet export threw");
    return DLC_ERR_INTERNAL;
  }
}

// ---------------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------------

// MXNet's DLPack dtypes (TBlob::DLDataTypeTransform / DTypeTransform) and its bool arrays.
constexpr DLCDtype kDtypes[] = {
    {0, 8, 1},  {0, 32, 1}, {0, 64, 1},               // int8, int32, int64
    {1, 8, 1},                                        // uint8
    {2, 16, 1}, {2, 32, 1}, {2, 64, 1},               // float16/32/64
    {4, 16, 1},                                       // bfloat16
    {6, 8, 1},                                        // bool
};
constexpr int32_t kDevices[] = {1};

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), kDtypes, std::size(kDtypes), kDevices, std::size(kDevices),
    0,  // compact only: MXNet rejects other strides (tensor_blob.h) and makes no views
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE,
    8,
    {0, 0},
};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "mxnet-c-api",
    "Apache MXNet " DLC_MXNET_VERSION "'s C API MXNDArrayFromDLPackEx / MXNDArrayToDLPack "
    "(legacy DLPack 0.2 only)",
    DLC_ROLE_CONSUMER | DLC_ROLE_PRODUCER,
    {0, 2},  // include/dlpack/dlpack.h of the wheel: DLPACK_VERSION 020
    0,
    {0, 0},
    "legacy",
    create, nullptr, produce, consume, release, &kProfile,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask (plugin ABI 3)
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
