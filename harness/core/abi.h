// Private mirrors of the DLPack structs, identical in every header from v0.6 to v1.3, so that the
// harness, the judge and the fuzzers depend on no one header. Sizes and offsets are the ones
// docs/rules.md states (LAY-1 to LAY-3), asserted below.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dlconform/plugin.h"

// For code that stands in for a foreign, uninstrumented binary (a planted-bug consumer calling a
// NULL deleter, a fault test): clang's -fsanitize=function reads the bytes before the target of
// every indirect call, which turns a call through NULL into a read of a wild address.
#if defined(__clang__)
#define DLC_AS_FOREIGN_CODE __attribute__((no_sanitize("function")))
#else
#define DLC_AS_FOREIGN_CODE
#endif

namespace dlc::abi {

struct Tensor {
  void* data;
  DLCDevice device;
  int32_t ndim;
  DLCDtype dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
struct ManagedTensorVersioned {
  DLCVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};
// The part of DLManagedTensorVersioned that every major keeps in place (LAY-3, VER-2).
struct FrozenHead {
  DLCVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
};

constexpr uint64_t kFlagReadOnly = 1u << 0;
constexpr uint64_t kFlagIsCopied = 1u << 1;
constexpr uint64_t kFlagSubbytePadded = 1u << 2;
// Every flag bit DLPack defines up to 1.3; the rest are unknown (FLAG-4).
constexpr uint64_t kKnownFlags = kFlagReadOnly | kFlagIsCopied | kFlagSubbytePadded;

// kDLComplex (the same code in every header): `bits` is the width of the (real, imaginary) pair.
constexpr uint8_t kCodeComplex = 5;

// The device types of CUDA memory (DLDeviceType, the same in every header from v0.6): device
// (kDLCUDA), pinned host (kDLCUDAHost) and managed (kDLCUDAManaged) memory. The judge, the plan
// and the CUDA mocks tell CUDA memory apart by this one list.
constexpr int32_t kDeviceCuda = 2;          // kDLCUDA: device-only memory
constexpr int32_t kDeviceCudaHost = 3;      // kDLCUDAHost: pinned host memory
constexpr int32_t kDeviceCudaManaged = 13;  // kDLCUDAManaged: managed memory
inline constexpr int32_t kCudaDeviceTypes[] = {kDeviceCuda, kDeviceCudaHost, kDeviceCudaManaged};
constexpr bool is_cuda_memory(int32_t device_type) {
  for (const int32_t t : kCudaDeviceTypes) {
    if (t == device_type) return true;
  }
  return false;
}

// Memory the host reads as well as its device does: CPU, pinned CUDA and ROCm host memory,
// CUDA managed memory. A consumer that reads it on the host is not at fault (DEV-3 binds one that
// cannot access a device), so the fuzz targets back such a tensor with host memory.
constexpr bool is_host_accessible(int32_t device_type) {
  return device_type == 1 || device_type == 3 || device_type == 11 || device_type == 13;
}

constexpr size_t kLegacyDeleterOffset = 56;
constexpr size_t kVersionedDeleterOffset = 16;

static_assert(sizeof(Tensor) == 48 && offsetof(Tensor, shape) == 24 &&
                  offsetof(Tensor, byte_offset) == 40,
              "LAY-1: DLTensor layout");
static_assert(sizeof(ManagedTensor) == 64 &&
                  offsetof(ManagedTensor, deleter) == kLegacyDeleterOffset,
              "LAY-2: DLManagedTensor layout");
static_assert(sizeof(ManagedTensorVersioned) == 80 &&
                  offsetof(ManagedTensorVersioned, deleter) == kVersionedDeleterOffset &&
                  offsetof(ManagedTensorVersioned, flags) == 24 &&
                  offsetof(ManagedTensorVersioned, dl_tensor) == 32,
              "LAY-3: DLManagedTensorVersioned layout");
static_assert(sizeof(FrozenHead) == 24, "version, manager_ctx, deleter");

// What a struct pointer was handed over as; the guard arena keeps it with the block, so that a
// fault past the end of a struct can be named (LAY-2, VER-2) without guessing from its size.
enum class StructKind : uint8_t {
  unknown = 0,
  legacy,         // a DLManagedTensor (64 bytes)
  versioned,      // a DLManagedTensorVersioned of the reader's major (80 bytes)
  foreign_major,  // a versioned struct of another major: only the frozen head may be read
  variant,        // a design-variant layout of the versioning RFC
};

// The kind a capsule name announces; unknown for any other name or a raw pointer.
StructKind struct_kind_of_name(const char* name) noexcept;

}  // namespace dlc::abi

namespace dlc {

// The capsule destructor's part (LIFE-2): calls the deleter of a "dltensor" or
// "dltensor_versioned" struct that nobody took; does nothing for a NULL deleter or pointer, or
// any other name.
void delete_unclaimed(const DLCHandoff& h) noexcept;

}  // namespace dlc
