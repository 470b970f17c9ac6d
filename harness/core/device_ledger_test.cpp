// The device-allocation ledger on recorded allocation traces (no device needed).
#include "device_ledger.h"

#include "catch.hpp"
#include "dlconform/plugin.h"

namespace {

int g_device_block, g_pinned_block, g_managed_block;

}  // namespace

TEST_CASE("device ledger: each allocation freed by its own allocator is clean", "[unit]") {
  dlc::DeviceLedger ledger;
  ledger.allocated(&g_device_block, 256, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  ledger.allocated(&g_pinned_block, 256, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.allocated(&g_managed_block, 256, DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED);
  ledger.freed(&g_device_block, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  ledger.freed(&g_pinned_block, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.freed(&g_managed_block, DLC_DEVICE_ALLOC_CUDA_MALLOC);  // cudaFree frees managed memory
  const auto v = ledger.verdict();
  CHECK(v.unfreed == 0);
  CHECK(v.mismatched == 0);
  CHECK(v.freed_twice == 0);
}

TEST_CASE("device ledger: cudaFree on cudaMallocHost memory is a mismatch", "[unit]") {
  dlc::DeviceLedger ledger;
  ledger.allocated(&g_pinned_block, 256, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.freed(&g_pinned_block, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  const auto v = ledger.verdict();
  CHECK(v.mismatched == 1);
  CHECK(v.allocated_with == DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  CHECK(v.freed_with == DLC_DEVICE_ALLOC_CUDA_MALLOC);
  CHECK(std::string(dlc::device_allocator_name(v.freed_with, true)) == "cudaFree");
}

TEST_CASE("device ledger: a never-freed and a twice-freed allocation are counted", "[unit]") {
  dlc::DeviceLedger ledger;
  ledger.allocated(&g_device_block, 100, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  ledger.allocated(&g_pinned_block, 28, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.freed(&g_pinned_block, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.freed(&g_pinned_block, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  ledger.freed(&g_managed_block, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  const auto v = ledger.verdict();
  CHECK(v.unfreed == 1);
  CHECK(v.unfreed_bytes == 100);
  CHECK(v.unfreed_allocator == DLC_DEVICE_ALLOC_CUDA_MALLOC);
  CHECK(v.freed_twice == 1);
  CHECK(v.unknown_frees == 1);
  ledger.reset();
  CHECK(ledger.verdict().unfreed == 0);
}

TEST_CASE("device ledger: host access is attributed only inside device-only memory", "[unit]") {
  dlc::DeviceLedger ledger;
  // Addresses only (nothing is read), far apart: a device range is attributed a page past its end.
  const uintptr_t device = uintptr_t{1} << 40, pinned = uintptr_t{1} << 41;
  ledger.allocated(reinterpret_cast<const void*>(device), 512, DLC_DEVICE_ALLOC_CUDA_MALLOC);
  ledger.allocated(reinterpret_cast<const void*>(pinned), 512, DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST);
  CHECK(ledger.region_of(device + 8) != nullptr);
  CHECK(ledger.region_of(device + 512 + 100) != nullptr);  // just past: still the device's
  CHECK(ledger.region_of(pinned + 8) == nullptr);          // host memory: any access is legal
  CHECK(ledger.region_of(0x10) == nullptr);
}
