// The tensor a fuzz input describes, its decoder and encoder, and the edge-value mutator.
//
// Input format (see fuzz_data.hpp: taken from the END of the input, missing bytes read as zero).
// Most fields are stored as a difference from a sane default, so that an all-zero input is a
// valid float32 CPU scalar of DLPack 1.3 and a random byte is one step away from a valid tensor:
//   u8  layout      kShapeNull | kStridesNull | kDataNull | kDeleterNull | kLegacyStruct
//   u32 major - 1,  u32 minor - 3
//   u64 flags
//   i32 device_type - 1 (kDLCPU),  i32 device_id
//   u8  code - 2 (kDLFloat),  u8 bits - 32,  u16 lanes - 1
//   i32 ndim
//   u64 byte_offset
//   u8  misalign    bytes between the storage and `data` (LAY-9)
//   then min(ndim, kExplicitDims) pairs: i64 extent - 1, i64 stride - 1
// Dimensions past the pairs given are extent 1, stride 1 (any stride is fine for extent 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dlconform/plugin.h"

namespace dlc_fuzz {

constexpr int kExplicitDims = 64;
// 42 bytes of fields, then at most kExplicitDims (extent, stride) pairs: a longer input is not a
// TensorInput (the replay main refuses such a corpus file as malformed).
constexpr size_t kMaxInputBytes = 42 + 16 * kExplicitDims;

// Bits of TensorInput::layout.
constexpr uint8_t kShapeNull = 1u << 0;
constexpr uint8_t kStridesNull = 1u << 1;
constexpr uint8_t kDataNull = 1u << 2;
constexpr uint8_t kDeleterNull = 1u << 3;
constexpr uint8_t kLegacyStruct = 1u << 4;  // differential_fuzzer only: a DLManagedTensor

struct TensorInput {
  uint8_t layout = 0;
  DLCVersion version{1, 3};
  uint64_t flags = 0;
  DLCDevice device{1, 0};
  DLCDtype dtype{2, 32, 1};
  int32_t ndim = 0;
  uint64_t byte_offset = 0;
  uint8_t misalign = 0;
  int64_t shape[kExplicitDims];
  int64_t strides[kExplicitDims];

  TensorInput();
  int64_t extent(int64_t i) const { return i < kExplicitDims ? shape[i] : 1; }
  int64_t stride(int64_t i) const { return i < kExplicitDims ? strides[i] : 1; }
  // Row-major strides for the current shape (extent 0 counts as 1), wrapping on overflow.
  void make_compact();
};

TensorInput decode(const uint8_t* data, size_t size);
std::vector<uint8_t> encode(const TensorInput& in);

// One line: "versioned 1.3 flags=0x0 device=1:0 dtype=2:32:1 ndim=2 shape=[8,8] strides=[8,1]
// byte_offset=0 misalign=0".
std::string describe(const TensorInput& in, bool versioned);

// What the edge mutator aims at besides the fixed edges: the consumer's own version.
struct EdgeHints {
  DLCVersion own{1, 3};
  bool vary_struct_kind = false;  // may toggle kLegacyStruct
};

// Pushes one field (or a related group) to a boundary value: 0, 1, -1, INT64_MAX and friends,
// ndim past the usual limits, products that overflow, misaligned offsets, unknown dtype codes and
// flag bits, versions around the consumer's own.
void mutate_to_edge(TensorInput& in, std::minstd_rand& rng, const EdgeHints& hints);

// The body of LLVMFuzzerCustomMutator: half of the time libFuzzer's own byte mutation, otherwise
// decode, one to three edge mutations, encode.
size_t custom_mutate(uint8_t* data, size_t size, size_t max_size, unsigned int seed,
                     const EdgeHints& hints);

}  // namespace dlc_fuzz
