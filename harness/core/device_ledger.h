// The device-allocation ledger: memory a device runtime (CUDA, oneAPI) allocated for a tensor,
// as its producer reports it (DLCHost.device_allocated), and which free function released it
// (DLCHost.device_freed). Two rules read it:
//  - DEV-3: host memory accesses inside device-only memory (cudaMalloc, USM device) are named as
//    a device pointer dereferenced on the host, not as a wild pointer (region_of is
//    async-signal-safe: the fault handler asks it);
//  - LIFE-5: every allocation is freed once, by its own allocator's free function (cudaFree on
//    cudaMallocHost memory fails and leaks it).
// Fixed-size, no heap: it lives in the host state of every process that runs cases.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlc {

class DeviceLedger {
 public:
  static constexpr size_t kMaxEntries = 64;

  struct Entry {
    uintptr_t start = 0;
    size_t size = 0;
    int32_t allocator = 0;  // DLC_DEVICE_ALLOC_*
    int32_t freed_with = 0;  // the allocator whose free function released it; 0: not freed
    uint32_t frees = 0;
  };

  // What the ledger says of the allocations at the end of a case.
  struct Verdict {
    uint32_t unfreed = 0;  // allocations never freed
    size_t unfreed_bytes = 0;
    int32_t unfreed_allocator = 0;  // of the first one
    uint32_t mismatched = 0;        // freed with another allocator's free function
    int32_t allocated_with = 0;     // of the first mismatch
    int32_t freed_with = 0;
    uint32_t freed_twice = 0;
    uint32_t unknown_frees = 0;  // frees of pointers nobody reported allocating
  };

  void allocated(const void* pointer, size_t size, int32_t allocator) noexcept;
  void freed(const void* pointer, int32_t allocator) noexcept;
  // The device-only allocation holding `address` (host access there breaks DEV-3), or nullptr.
  // Async-signal-safe.
  const Entry* region_of(uintptr_t address) const noexcept;
  Verdict verdict() const noexcept;
  size_t count() const noexcept { return count_; }
  void reset() noexcept;

 private:
  Entry entries_[kMaxEntries];
  size_t count_ = 0;
  uint32_t unknown_frees_ = 0;
};

// "cudaMalloc", "cudaMallocHost", ... for DLC_DEVICE_ALLOC_*; its free function with freeing.
const char* device_allocator_name(int32_t allocator, bool freeing) noexcept;
// Whether the free function of `freed_with` releases memory of `allocated_with`.
bool device_free_matches(int32_t allocated_with, int32_t freed_with) noexcept;
// Whether host code may touch memory of this allocator (pinned and managed memory: yes).
bool device_allocator_host_accessible(int32_t allocator) noexcept;

}  // namespace dlc
