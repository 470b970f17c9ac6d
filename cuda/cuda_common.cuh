// What the CUDA mocks share: CUDA errors in words, the device guard, availability, the kernels
// that delay a write and read a tensor back on the device. Included after <dlpack/dlpack.h> (the
// include path picks the header version, as for the host mocks).
//
// Every CUDA producer leaves its write pending on a stream of its own, behind a kernel that
// spins for kPendingWriteNs: a consumer that reads before that write lands reads the fill
// pattern (dlc::geo::kUnwrittenByte) that the storage held first, and the judge names it
// (STRM-1). 200 ms is four to five orders of magnitude above a kernel launch (a few
// microseconds), so a read that does not wait is caught every time, and it costs 200 ms a
// device-to-device case.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <iterator>

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

inline constexpr uint64_t kPendingWriteNs = 200ull * 1000 * 1000;
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

// Spins on the device for `ns` nanoseconds of its global timer.
__global__ void spin_kernel(uint64_t ns) {
  uint64_t start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
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
