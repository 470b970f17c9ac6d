#include "device_ledger.h"

#include "dlconform/plugin.h"

namespace dlc {

void DeviceLedger::allocated(const void* pointer, size_t size, int32_t allocator) noexcept {
  if (pointer == nullptr || count_ >= kMaxEntries) return;
  Entry& e = entries_[count_++];
  e = Entry{};
  e.start = reinterpret_cast<uintptr_t>(pointer);
  e.size = size;
  e.allocator = allocator;
}

void DeviceLedger::freed(const void* pointer, int32_t allocator) noexcept {
  if (pointer == nullptr) return;
  const auto at = reinterpret_cast<uintptr_t>(pointer);
  for (size_t i = count_; i-- > 0;) {  // the newest allocation at an address wins
    Entry& e = entries_[i];
    if (e.start != at) continue;
    if (e.frees++ == 0) e.freed_with = allocator;
    return;
  }
  ++unknown_frees_;
}

const DeviceLedger::Entry* DeviceLedger::region_of(uintptr_t address) const noexcept {
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (device_allocator_host_accessible(e.allocator)) continue;
    // A little room past the end: a reader that runs off a device buffer is still on the device.
    if (address >= e.start && address < e.start + e.size + 4096) return &e;
  }
  return nullptr;
}

DeviceLedger::Verdict DeviceLedger::verdict() const noexcept {
  Verdict v;
  v.unknown_frees = unknown_frees_;
  for (size_t i = 0; i < count_; ++i) {
    const Entry& e = entries_[i];
    if (e.frees == 0) {
      if (v.unfreed++ == 0) v.unfreed_allocator = e.allocator;
      v.unfreed_bytes += e.size;
      continue;
    }
    if (e.frees > 1) ++v.freed_twice;
    if (!device_free_matches(e.allocator, e.freed_with) && v.mismatched++ == 0) {
      v.allocated_with = e.allocator;
      v.freed_with = e.freed_with;
    }
  }
  return v;
}

void DeviceLedger::reset() noexcept {
  count_ = 0;
  unknown_frees_ = 0;
}

const char* device_allocator_name(int32_t allocator, bool freeing) noexcept {
  switch (allocator) {
    case DLC_DEVICE_ALLOC_CUDA_MALLOC:
      return freeing ? "cudaFree" : "cudaMalloc";
    case DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST:
      return freeing ? "cudaFreeHost" : "cudaMallocHost";
    case DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED:
      return freeing ? "cudaFree" : "cudaMallocManaged";
    case DLC_DEVICE_ALLOC_USM_DEVICE:
      return freeing ? "sycl::free" : "sycl::malloc_device";
    default:
      return "an unknown allocator";
  }
}

bool device_free_matches(int32_t allocated_with, int32_t freed_with) noexcept {
  // cudaFree releases cudaMallocManaged memory too.
  return allocated_with == freed_with || (allocated_with == DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED &&
                                          freed_with == DLC_DEVICE_ALLOC_CUDA_MALLOC);
}

bool device_allocator_host_accessible(int32_t allocator) noexcept {
  return allocator == DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST ||
         allocator == DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED;
}

}  // namespace dlc
