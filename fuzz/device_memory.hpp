// Real CUDA memory behind fuzzed CUDA tensors, for a GPU importer (torch, CuPy, JAX on CUDA: the
// GPU run's fuzz stage, tools/gpu-check). Off unless $DLCONFORM_FUZZ_DEVICE_MEMORY is "cuda";
// without it a CUDA tensor's data is a pointer that faults on any host access (DEV-3).
//
// The CUDA runtime is loaded at run time ($DLCONFORM_FUZZ_CUDART, else libcudart.so.13, .so.12,
// .so), so the fuzz targets need no CUDA to build, and any compiler builds them: the GPU machine
// has no clang, and runs the replay main's --mutate loop instead of libFuzzer.
#pragma once

#include <cstddef>

#include "device_ledger.h"

namespace dlc_fuzz {

// Whether fuzzed CUDA tensors get device memory. The first call loads the runtime and finds a
// device, or says in one line why it cannot and exits 2: a fuzz run that was asked for device
// memory never goes on without it.
bool device_memory_on();

// A device copy of `bytes` host bytes (cudaMalloc, cudaMemcpy), recorded in `ledger` (the
// host's) so that a host access to it is named DEV-3. Freed by release_device_memory(), which
// build_tensor calls before the next input: an importer has dropped the tensor by then.
void* copy_to_device(const void* host, size_t bytes, dlc::DeviceLedger& ledger);
void release_device_memory();

// Synchronises the device: the CUDA runtime's name of the error a kernel or copy of the last
// input left (an illegal address), or nullptr. Such an error is sticky: the process cannot go on.
const char* device_fault();

}  // namespace dlc_fuzz
