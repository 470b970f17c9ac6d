// A stand-in CUDA runtime for the tests of device memory behind fuzzed tensors
// (fuzz/device_memory.hpp), on machines without a GPU: the few runtime calls the harness makes,
// over host memory, and one "kernel", fake_cuda_read, that models the device's MMU. A read
// outside every allocation leaves cudaErrorIllegalAddress behind, sticky as on a device, which
// cudaDeviceSynchronize then reports. Loaded with DLCONFORM_FUZZ_CUDART; the planted CUDA
// importers (planted_importers.py) read through fake_cuda_read. Not a mock of CUDA's behaviour
// beyond that: it proves the harness's plumbing, and the GPU run proves the rest.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

constexpr int kSuccess = 0;
constexpr int kErrorMemoryAllocation = 2;
constexpr int kErrorInvalidValue = 1;
constexpr int kErrorIllegalAddress = 700;
constexpr int kErrorMisalignedAddress = 716;
constexpr size_t kMaxAllocations = 64;

struct Allocation {
  uintptr_t start = 0;
  size_t size = 0;
  bool pinned = false;  // cudaMallocHost's: only cudaFreeHost frees it, as on a device
};
Allocation g_allocations[kMaxAllocations];
int g_sticky = kSuccess;

bool inside_one(uintptr_t start, size_t bytes) {
  for (const Allocation& a : g_allocations) {
    if (a.start != 0 && start >= a.start && bytes <= a.size && start - a.start <= a.size - bytes) {
      return true;
    }
  }
  return false;
}

int allocate(void** out, size_t bytes, bool pinned) {
  for (Allocation& a : g_allocations) {
    if (a.start != 0) continue;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return kErrorMemoryAllocation;
    a = {reinterpret_cast<uintptr_t>(p), bytes, pinned};
    *out = p;
    return kSuccess;
  }
  return kErrorMemoryAllocation;
}

int release(void* p, bool pinned) {
  for (Allocation& a : g_allocations) {
    if (a.start == reinterpret_cast<uintptr_t>(p) && p != nullptr && a.pinned == pinned) {
      munmap(p, a.size);
      a = {};
      return kSuccess;
    }
  }
  return kErrorInvalidValue;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int cudaMalloc(void** out, size_t bytes) {
  return allocate(out, bytes, false);
}

__attribute__((visibility("default"))) int cudaGetDeviceCount(int* count) {
  *count = 1;
  return kSuccess;
}

// Pinned and managed memory are host memory here too. Pinned memory is freed by cudaFreeHost
// alone (cudaFree refuses it, as CUDA does), so the harness's choice of free function is tested.
__attribute__((visibility("default"))) int cudaMallocHost(void** out, size_t bytes) {
  return allocate(out, bytes, true);
}

__attribute__((visibility("default"))) int cudaMallocManaged(void** out, size_t bytes,
                                                             unsigned /*flags*/) {
  return allocate(out, bytes, false);
}

__attribute__((visibility("default"))) int cudaFree(void* p) { return release(p, false); }

__attribute__((visibility("default"))) int cudaFreeHost(void* p) { return release(p, true); }

__attribute__((visibility("default"))) int cudaMemcpy(void* to, const void* from, size_t bytes,
                                                      int /*kind*/) {
  if (g_sticky != kSuccess) return g_sticky;
  std::memcpy(to, from, bytes);
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaDeviceSynchronize() { return g_sticky; }

__attribute__((visibility("default"))) const char* cudaGetErrorName(int error) {
  switch (error) {
    case kSuccess: return "cudaSuccess";
    case kErrorInvalidValue: return "cudaErrorInvalidValue";
    case kErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case kErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case kErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    default: return "cudaErrorUnknown";
  }
}

// The "kernel": copies `bytes` of device memory at `from` to the host, or, where they are not
// all inside one allocation, copies nothing and leaves the sticky error behind.
__attribute__((visibility("default"))) int fake_cuda_read(const void* from, size_t bytes,
                                                          void* to) {
  if (g_sticky != kSuccess) return g_sticky;
  if (bytes == 0) return kSuccess;
  if (!inside_one(reinterpret_cast<uintptr_t>(from), bytes)) {
    g_sticky = kErrorIllegalAddress;
    return g_sticky;
  }
  std::memcpy(to, from, bytes);
  return kSuccess;
}

// The same "kernel" with loads `width` bytes wide, as a real one reads elements: where `from` is
// not a multiple of `width`, it copies nothing and leaves cudaErrorMisalignedAddress behind.
__attribute__((visibility("default"))) int fake_cuda_read_wide(const void* from, size_t bytes,
                                                               void* to, size_t width) {
  if (g_sticky != kSuccess) return g_sticky;
  if (width > 1 && reinterpret_cast<uintptr_t>(from) % width != 0) {
    g_sticky = kErrorMisalignedAddress;
    return g_sticky;
  }
  return fake_cuda_read(from, bytes, to);
}

}  // extern "C"
