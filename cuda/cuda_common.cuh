// What the CUDA mocks share: CUDA errors in words, the device guard, availability, the hold that
// delays a write and the kernel that reads a tensor back on the device. Included after
// <dlpack/dlpack.h> (the include path picks the header version, as for the host mocks).
//
// Every CUDA producer leaves its write pending on a stream of its own, behind a host function
// that holds that stream for kPendingWriteNs: a consumer that reads before that write lands reads
// the fill pattern (dlc::geo::kUnwrittenByte) that the storage held first, and the judge names it
// (STRM-1). 50 ms is four orders of magnitude above a kernel launch (a few microseconds) and
// over a thousand times the harness's hand-off (produce()'s return to the consume() call, which
// every case records and tools/gpu-check reports at its worst beside this hold), so a read that
// does not wait is caught every time; the planted stream bugs, run beside the rest at the same
// overlap, are the canaries. It costs 50 ms a device case (a 200 ms spinning kernel before).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <thread>

#include "abi.h"
#include "mock_common.hpp"

// The planted bug of this plugin (-DDLC_BUG=name), one of the DLC_BUG_<name> ids its source
// defines (macros expand where #if reads them, so the order does not matter).
#ifndef DLC_BUG
#define DLC_BUG none
#endif
#define DLC_CAT2(a, b) a##b
#define DLC_CAT(a, b) DLC_CAT2(a, b)
#define DLC_BUG_ID DLC_CAT(DLC_BUG_, DLC_BUG)

namespace dlc_cuda {

inline constexpr uint64_t kPendingWriteNs = 50ull * 1000 * 1000;
inline constexpr int kMaxDims = 16;

// "cudaMalloc: cudaErrorMemoryAllocation: out of memory" into err; false on an error.
inline bool ok(cudaError_t e, const char* call, char* err, size_t err_len) {
  if (e == cudaSuccess) return true;
  if (err != nullptr && err_len > 0) {
    std::snprintf(err, err_len, "CUDA error in %s: %s: %s", call, cudaGetErrorName(e),
                  cudaGetErrorString(e));
  }
  return false;
}

// DLCPlugin.available: a CUDA device to run on, or why not.
inline int available(void*, char* err, size_t err_len) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    std::snprintf(err, err_len, "no CUDA device: cudaGetDeviceCount: %s: %s", cudaGetErrorName(e),
                  cudaGetErrorString(e));
    return DLC_ERR_UNAVAILABLE;
  }
  if (count == 0) {
    std::snprintf(err, err_len, "no CUDA device: cudaGetDeviceCount found none");
    return DLC_ERR_UNAVAILABLE;
  }
  return DLC_OK;
}

// Makes `device` current for a scope and restores the caller's device: a tensor on another
// device than the current one is read and freed on its own.
class DeviceGuard {
 public:
  DeviceGuard() = default;
  bool enter(int device, char* err, size_t err_len) {
    if (!ok(cudaGetDevice(&previous_), "cudaGetDevice", err, err_len)) return false;
    if (device == previous_) return true;
    if (!ok(cudaSetDevice(device), "cudaSetDevice", err, err_len)) return false;
    switched_ = true;
    return true;
  }
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
  bool switched_ = false;
};

// Holds the stream it is launched on (cudaLaunchHostFunc) for kPendingWriteNs: the write queued
// behind it stays pending, and nothing runs on the device meanwhile. A kernel that spun on the
// device's timer did the same, but 16 workers' spinning kernels made the driver time-slice their
// contexts, which cost each case about 65 ms more than its spin.
inline void CUDART_CB hold_stream(void*) {
  std::this_thread::sleep_for(std::chrono::nanoseconds(kPendingWriteNs));
}

// What the digest kernel reads: the first element, and the logical layout in elements.
struct DigestArgs {
  const unsigned char* first;  // data + byte_offset
  int32_t ndim;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
  uint32_t element_bytes;
  uint64_t count;
  // Planted bug: read (and digest) one element past the last (an out-of-bounds device read).
  uint32_t read_past_end;
};

// dlc_digest (FNV-1a 64) over every element in logical row-major order, on the device: one
// thread, since catalogue tensors are small and the order is the point.
__global__ void digest_kernel(DigestArgs a, unsigned long long* out) {
  unsigned long long d = 0xCBF29CE484222325ull;
  int64_t index[kMaxDims] = {};
  const uint64_t total = a.count + a.read_past_end;
  for (uint64_t k = 0; k < total; ++k) {
    int64_t offset = 0;
    for (int i = 0; i < a.ndim; ++i) offset += index[i] * a.strides[i];
    const unsigned char* p = a.first + offset * static_cast<int64_t>(a.element_bytes);
    if (k == a.count) {  // the planted read: right after the highest element
      int64_t highest = 0;
      for (int i = 0; i < a.ndim; ++i) {
        if (a.strides[i] > 0) highest += (a.shape[i] - 1) * a.strides[i];
      }
      p = a.first + (highest + 1) * static_cast<int64_t>(a.element_bytes);
    }
    for (uint32_t j = 0; j < a.element_bytes; ++j) {
      d ^= p[j];
      d *= 0x100000001B3ull;
    }
    for (int i = a.ndim - 1; i >= 0; --i) {
      if (++index[i] < a.shape[i]) break;
      index[i] = 0;
    }
  }
  *out = d;
}

}  // namespace dlc_cuda
