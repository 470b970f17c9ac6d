// The strict reference validator: checks a handed-over tensor against every rule of
// docs/rules.md that can be checked from the struct, and names the rule it breaks.
//
// Levels follow nanoarrow's validation levels:
//   minimal  - reads only the struct's own fields; never dereferences shape, strides or data.
//   standard - also reads shape and strides.
//   full     - also reads every element (host-readable devices only) and digests it.
// The validator never writes, never calls the deleter and never allocates.
#pragma once

#include <cstdint>

#include "abi.h"
#include "dlconform/plugin.h"
#include "rules.h"

namespace dlc {

enum class Level { minimal, standard, full };

struct Violation {
  Rule rule = Rule::none;
  // An observation that cites a rule without breaking it (unknown flag bits, misaligned data):
  // always INFO. Otherwise the rule table says what the violation makes of the tensor.
  bool note = false;
  char message[200] = {};  // "expected X but found Y"
  // MUST: no conformant consumer imports the tensor; SHOULD: a strict consumer refuses it. The
  // rule's `tensor` column, not its severity: what a party's finding weighs is the judge's.
  Severity weight() const noexcept { return note ? Severity::info : info(rule).tensor; }
};

struct ValidateOptions {
  Level level = Level::standard;
  // The version the validating consumer understands: decides which enum values are known (DT-1,
  // DEV-1) and whether a versioned struct's major is acceptable (VER-2).
  DLCVersion consumer_version{1, 3};
  // The consumer's ndim limit (its profile's).
  int32_t max_ndim = DLC_MAX_NDIM;
  // Device types whose memory the host may read: CPU always; pinned and managed memory if set.
  bool host_readable_pinned = false;
  // Whether violations carry their messages. Without, every message is empty: for a caller that
  // needs the rules only (the fuzz targets' routing of each input), formatting them is nearly
  // half of the validator's time in a sanitized build.
  bool words = true;
};

struct ValidateResult {
  static constexpr int kMaxViolations = 8;
  bool accepted = false;  // no MUST violation
  // LAY-10's storage size lies in the band from 2^63 to 2^64 - 1 bytes (geo::SizeClass::band):
  // refusing is as right as importing, so a refusal is no rejected-valid (standard level and up).
  bool size_band = false;
  int count = 0;
  Violation violations[kMaxViolations];  // in the order found; severities vary
  DLCObservation observation{};          // filled as far as the level allowed
  const Violation* first_must() const noexcept;
  // The first MUST violation of a rule that binds consumers too; nullptr when every MUST
  // violation binds producers only (DEV-2): a consumer may take such a tensor.
  const Violation* first_consumer_must() const noexcept;
  // The first violation that a consumer refusing at `strict` level refuses: MUST, or SHOULD too.
  const Violation* first_refusal(bool strict) const noexcept;
};

// The dtype codes a party built with header `v` knows (DT-1): 0 to 5, Bool (6) from v0.8, the
// float8, float6 and float4 codes (7 to 17) from v1.1.
int max_known_code(DLCVersion v) noexcept;

// `handoff.name` "dltensor" reads a legacy struct, "dltensor_versioned" a versioned one; NULL is a
// raw pointer read as `raw_kind` (DLC_STRUCT_LEGACY or DLC_STRUCT_VERSIONED).
void validate(const DLCHandoff& handoff, const ValidateOptions& options, ValidateResult* result,
              int32_t raw_kind = DLC_STRUCT_UNKNOWN) noexcept;

}  // namespace dlc
