// Real CUDA memory behind fuzzed CUDA tensors, for a GPU importer (torch, CuPy, JAX on CUDA: the
// GPU run's fuzz stage, tools/gpu-check). Off unless $DLCONFORM_FUZZ_DEVICE_MEMORY is "cuda";
// without it a kDLCUDA tensor's data is a pointer that faults on any host access (DEV-3), and
// pinned and managed tensors get plain host memory. Device 0 only: a tensor that names another
// CUDA device keeps the faulting pointer.
//
// The CUDA runtime is loaded at run time ($DLCONFORM_FUZZ_CUDART, else libcudart.so.13, .so.12,
// .so), so the fuzz targets need no CUDA to build, and any compiler builds them: the GPU machine
// has no clang, and runs the replay main's --mutate loop instead of libFuzzer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "device_ledger.h"

namespace dlc_fuzz {

// Whether fuzzed CUDA tensors get device memory. The first call loads the runtime and finds a
// device, or says in one line why it cannot and exits 2: a fuzz run that was asked for device
// memory never goes on without it.
bool device_memory_on();

// A copy of `bytes` host bytes in CUDA memory of `device_type`'s kind, as a CUDA library expects
// it: kDLCUDA device memory (cudaMalloc), kDLCUDAHost pinned memory (cudaMallocHost),
// kDLCUDAManaged managed memory (cudaMallocManaged); then cudaMemcpy. It is
// recorded in `ledger` (the host's): a host access to device memory is named DEV-3. Freed by
// release_device_memory(), which build_tensor calls before the next input: an importer has
// dropped the tensor by then.
void* copy_to_device(const void* host, size_t bytes, int32_t device_type,
                     dlc::DeviceLedger& ledger);
void release_device_memory();

// Synchronises the device: the CUDA runtime's name of the error a kernel or copy of the last
// input left (an illegal address), or nullptr. Such an error is sticky: the process cannot go on.
const char* device_fault();

}  // namespace dlc_fuzz
