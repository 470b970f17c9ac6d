#include "device_memory.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "abi.h"
#include "dlconform/plugin.h"

namespace dlc_fuzz {
namespace {

// The runtime API's entry points used here, by their C signatures (cudaError_t is an int).
struct CudaRuntime {
  int (*get_device_count)(int*) = nullptr;
  int (*malloc_device)(void**, size_t) = nullptr;
  int (*malloc_host)(void**, size_t) = nullptr;
  int (*malloc_managed)(void**, size_t, unsigned) = nullptr;
  int (*memcpy)(void*, const void*, size_t, int) = nullptr;
  int (*free_device)(void*) = nullptr;
  int (*free_host)(void*) = nullptr;
  int (*synchronize)() = nullptr;
  const char* (*error_name)(int) = nullptr;
};
constexpr int kMemcpyDefault = 4;  // the kind follows from the pointers (unified addressing)
constexpr unsigned kMemAttachGlobal = 1;

struct Allocation {
  void* pointer;
  bool pinned;  // cudaMallocHost: freed with cudaFreeHost
};

enum class State { unknown, off, on };
State g_state = State::unknown;
CudaRuntime g_cuda;
std::vector<Allocation> g_allocations;

[[noreturn]] void refuse(const char* what, const char* found) {
  std::fprintf(stderr,
               "dlconform fuzz: cannot start: DLCONFORM_FUZZ_DEVICE_MEMORY=cuda expected %s but "
               "found %s\n",
               what, found);
  std::exit(2);
}

// The harness's own use of the runtime failed mid-run (no memory left on the device, a free
// refused): not a finding of the importer, and the run cannot go on.
[[noreturn]] void device_failed(const char* what, const char* found) {
  std::fprintf(stderr, "dlconform fuzz: device memory: expected %s but found %s\n", what, found);
  std::exit(2);
}

const char* error_name(int error) {
  const char* name = g_cuda.error_name != nullptr ? g_cuda.error_name(error) : nullptr;
  return name != nullptr ? name : "an unnamed CUDA error";
}

void load_runtime() {
  void* lib = nullptr;
  const char* chosen = std::getenv("DLCONFORM_FUZZ_CUDART");
  if (chosen != nullptr && *chosen != '\0') {
    lib = dlopen(chosen, RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) refuse("a loadable CUDA runtime at $DLCONFORM_FUZZ_CUDART", dlerror());
  } else {
    for (const char* name : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
      if ((lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL)) != nullptr) break;
    }
    if (lib == nullptr) refuse("a CUDA runtime (libcudart.so.13, .so.12 or .so)", "none");
  }
  auto take = [lib](auto& slot, const char* symbol) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(lib, symbol));
    if (slot == nullptr) refuse(symbol, "no such symbol in the CUDA runtime");
  };
  take(g_cuda.get_device_count, "cudaGetDeviceCount");
  take(g_cuda.malloc_device, "cudaMalloc");
  take(g_cuda.malloc_host, "cudaMallocHost");
  take(g_cuda.malloc_managed, "cudaMallocManaged");
  take(g_cuda.memcpy, "cudaMemcpy");
  take(g_cuda.free_device, "cudaFree");
  take(g_cuda.free_host, "cudaFreeHost");
  take(g_cuda.synchronize, "cudaDeviceSynchronize");
  take(g_cuda.error_name, "cudaGetErrorName");
  int count = 0;
  const int error = g_cuda.get_device_count(&count);
  if (error != 0) refuse("a CUDA device", error_name(error));
  if (count < 1) refuse("a CUDA device", "0 devices");
}

}  // namespace

bool device_memory_on() {
  if (g_state != State::unknown) return g_state == State::on;
  const char* wanted = std::getenv("DLCONFORM_FUZZ_DEVICE_MEMORY");
  if (wanted == nullptr || *wanted == '\0') {
    g_state = State::off;
    return false;
  }
  if (std::strcmp(wanted, "cuda") != 0) {
    std::fprintf(stderr,
                 "dlconform fuzz: cannot start: expected DLCONFORM_FUZZ_DEVICE_MEMORY=cuda or "
                 "unset but found '%s'\n",
                 wanted);
    std::exit(2);
  }
  load_runtime();
  g_state = State::on;
  return true;
}

void* copy_to_device(const void* host, size_t bytes, int32_t device_type,
                     dlc::DeviceLedger& ledger) {
  void* device = nullptr;
  const size_t size = bytes > 0 ? bytes : 1;
  int error = 0;
  int32_t allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC;
  const char* call = "cudaMalloc to give a fuzzed tensor device memory";
  if (device_type == dlc::abi::kDeviceCudaHost) {
    error = g_cuda.malloc_host(&device, size);
    allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST;
    call = "cudaMallocHost to give a fuzzed tensor pinned memory";
  } else if (device_type == dlc::abi::kDeviceCudaManaged) {
    error = g_cuda.malloc_managed(&device, size, kMemAttachGlobal);
    allocator = DLC_DEVICE_ALLOC_CUDA_MALLOC_MANAGED;
    call = "cudaMallocManaged to give a fuzzed tensor managed memory";
  } else {
    error = g_cuda.malloc_device(&device, size);
  }
  if (error != 0) device_failed(call, error_name(error));
  g_allocations.push_back({device, allocator == DLC_DEVICE_ALLOC_CUDA_MALLOC_HOST});
  ledger.allocated(device, bytes, allocator);
  if (bytes > 0 && (error = g_cuda.memcpy(device, host, bytes, kMemcpyDefault)) != 0) {
    device_failed("cudaMemcpy to fill a fuzzed tensor's memory", error_name(error));
  }
  return device;
}

void release_device_memory() {
  for (const Allocation& a : g_allocations) {
    if (const int error = (a.pinned ? g_cuda.free_host : g_cuda.free_device)(a.pointer)) {
      device_failed(a.pinned ? "cudaFreeHost to free a fuzzed tensor's pinned memory"
                             : "cudaFree to free a fuzzed tensor's memory",
                    error_name(error));
    }
  }
  g_allocations.clear();
}

const char* device_fault() {
  const int error = g_cuda.synchronize();
  return error != 0 ? error_name(error) : nullptr;
}

}  // namespace dlc_fuzz
