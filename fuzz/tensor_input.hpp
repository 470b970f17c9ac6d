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
#include "geometry.hpp"

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

// One line: "versioned 1.3 flags=0 device=1:0 dtype=2:32:1 ndim=2 shape=[8,8] strides=[8,1]
// byte_offset=0 misalign=0", with every dimension, so that the line rebuilds the input. The
// dimensions past kExplicitDims, extent 1 and stride 1, are written as a repeat:
// "shape=[8,...,8]+[1]*936".
std::string describe(const TensorInput& in, bool versioned);
// The keywords of python/reproducers/dlconform_capsule.py's capsule() and Producer() that
// rebuild the input: "dtype=(2, 32, 1), shape=[8,8], strides=[8,1], ..., versioned=True,
// version=(1, 3), flags=0"; the data's values are the module's own (element k holds k + 1).
std::string python_keywords(const TensorInput& in, bool versioned);
// The extents or strides of an input as describe() writes them: "[8,8]", "[8,...,8]+[1]*936".
std::string dims_text(const int64_t* values, int32_t ndim);

// Budget of one input: larger valid tensors are skipped rather than backed.
constexpr int64_t kMaxBackedNdim = 1024;
constexpr uint64_t kMaxBackedBytes = uint64_t{256} << 10;
constexpr uint64_t kMaxBackedElements = uint64_t{1} << 16;
// What each reader digests (elements times their size, broadcasts included): a 1-element storage
// of 233 KB elements broadcast 65536 times is backed but would be 15 GB to read.
constexpr uint64_t kMaxDigestedBytes = uint64_t{4} << 20;
// Seed of the dlc_fill_byte pattern every backed storage holds.
constexpr uint32_t kFillSeed = 0x5EED;

// What `data` points at when the fuzz targets lay an input out (build_tensor), worked out from
// the input alone: build_tensor and tools that rebuild a crash file (fuzz-show-input) read it
// from here, so that they cannot disagree.
struct StoragePlan {
  enum Kind {
    kSkipped,  // ndim above 1024, or a valid tensor too large to back: no importer gets it
    kBacked,   // `bytes` of host memory filled with the pattern, `data` at `data_offset`
    kNull,     // data = NULL (kDataNull)
    kDevice,   // a non-CPU pointer that faults on any host access (DEV-3)
    kEmpty,    // an invalid host tensor: a 0-byte block, nothing may be read
  };
  Kind kind = kSkipped;
  const char* why_skipped = "";  // for kSkipped
  uint64_t bytes = 0;            // of the storage block, for kBacked
  uint64_t data_offset = 0;      // of `data` from the storage's start, for kBacked
  uint64_t byte_offset = 0;      // the struct's byte_offset (taken modulo a page when backed)
  bool padded = false;           // a versioned struct with IS_SUBBYTE_TYPE_PADDED
  bool on_device = false;        // CUDA memory holds the storage (device_backed): a copy of it
  dlc::geo::Geometry geometry;   // of the extents and strides (not for ndim > kMaxBackedNdim)
};
// Whether device memory (DLCONFORM_FUZZ_DEVICE_MEMORY) can hold `in`'s storage: CUDA memory
// (device, pinned or managed) of device 0, the one device it backs. A CUDA tensor on another
// device keeps a pointer that no device's memory backs.
bool device_memory_backs(const TensorInput& in);
// With `device_backed` (DLCONFORM_FUZZ_DEVICE_MEMORY), a tensor device memory backs is planned
// as a host one would be, and build_tensor puts its storage in CUDA memory of that kind.
StoragePlan plan_storage(const TensorInput& in, bool versioned, bool device_backed = false);

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
