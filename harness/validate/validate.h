// The strict reference validator: checks a handed-over tensor against every rule of
// shared/DLPACK_RULES.md that can be checked from the struct, and names the rule it breaks.
//
// Levels follow nanoarrow's validation levels:
//   minimal  - reads only the struct's own fields; never dereferences shape, strides or data.
//   standard - also reads shape and strides.
//   full     - also reads every element (host-readable devices only) and digests it.
// The validator never writes and never calls the deleter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlconform/plugin.h"

namespace dlc {

// Private mirrors of the DLPack structs (identical in every header from v0.6 to v1.3), so the
// validator does not depend on any one header. Sizes and offsets are asserted in validate.cpp.
namespace abi {
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
constexpr uint64_t kFlagReadOnly = 1u << 0;
constexpr uint64_t kFlagIsCopied = 1u << 1;
constexpr uint64_t kFlagSubbytePadded = 1u << 2;
}  // namespace abi

enum class Level { minimal, standard, full };
enum class Severity { must, should, info };

struct Violation {
  const char* rule;  // static rule id, e.g. "LAY-5"
  Severity severity;
  std::string message;  // "expected X but found Y"
};

struct ValidateOptions {
  Level level = Level::standard;
  // The version the validating consumer understands: decides which enum values are known (DT-1,
  // DEV-1) and whether a versioned struct's major is acceptable (VER-2).
  DLCVersion consumer_version{1, 3};
  // The consumer's ndim limit.
  int32_t max_ndim = 32;
  // Device types whose memory the host may read: CPU always; pinned and managed memory if set.
  bool host_readable_pinned = false;
};

struct ValidateResult {
  bool accepted = false;              // no MUST violation
  std::vector<Violation> violations;  // MUST first, then SHOULD, then INFO
  DLCObservation observation{};       // filled as far as the level allowed
  const Violation* first_must() const;
};

// `handoff.name` "dltensor" reads a legacy struct, "dltensor_versioned" a versioned one; NULL is a
// raw pointer read as `raw_kind` (DLC_STRUCT_LEGACY or DLC_STRUCT_VERSIONED).
ValidateResult validate(const DLCHandoff& handoff, const ValidateOptions& options,
                        int32_t raw_kind = DLC_STRUCT_UNKNOWN) noexcept;

// Digests every element of `tensor` in logical row-major order (LAY-4), honouring byte_offset and
// strides (NULL strides: compact). Packed sub-byte types digest their storage bytes.
bool digest_elements(const abi::Tensor& tensor, uint64_t flags, uint64_t* digest, uint64_t* count,
                     std::string* error) noexcept;

const char* to_string(Severity severity);

}  // namespace dlc
