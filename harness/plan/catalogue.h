// The tensor catalogue: the hand-written cases (each for a rule) and the generated views that
// real frameworks export (permutations, steps, windows, broadcasts, size-0 and size-1 extents,
// several dtypes), de-duplicated, each with a stable id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlconform/plugin.h"
#include "rules.h"
#include "validate.h"

namespace dlc {

struct TensorCase {
  std::string name;  // stable id: "f32_8x8", "view/nd2/perm10/f32"
  DLCTensorSpec spec{};
  int32_t copy = -1;       // the copy keyword (STRM-4)
  bool base = false;       // part of the core S0/S1/S2 grid; the rest is "edge" or "views"
  bool generated = false;  // one of the generated views
  Rule rule = Rule::none;  // the rule the case exercises
  // Only a producer that makes tensors on request (DLC_FEATURE_TEST_LAYOUTS) can be asked for it:
  // an invalid tensor, a NULL deleter, unknown flag bits.
  bool test_layout = false;
  // A tensor in real device memory (CUDA, oneAPI): only a producer of that memory
  // (DLC_FEATURE_REAL_DEVICE) can make it; the digest is what reading it on the device gives.
  bool real_device = false;
  // Asked of a device producer with dl_device=(1, 0) by a caller of DLPack 1.x: a host copy, which
  // the producer must make after its pending write landed ("a synchronization must be performed
  // to ensure data safety", the Array API's __dlpack__).
  bool host_copy = false;
  // What reading every element in logical order gives (host tensors with a valid geometry).
  bool digest_known = false;
  uint64_t digest = 0;
  uint64_t elements = 0;
  // What readers that get one rule wrong read of it, where that differs from `digest`: NULL
  // strides at ndim >= 2 read column-major (LAY-5), packed sub-byte bits read highest first
  // (DT-3), elements sized from bits without lanes (DT-3).
  std::vector<KnownMisreading> misreadings;
  // The first misreading filed under `rule`, or nullptr.
  const KnownMisreading* misreading(Rule rule) const {
    for (const KnownMisreading& m : misreadings) {
      if (m.rule == rule) return &m;
    }
    return nullptr;
  }
  // Whether an importer's values can be compared with `digest`: host memory, and the real device
  // memory of a device mock (read back to the host); a stand-in for device memory has none.
  bool values_comparable() const {
    return digest_known && (spec.device.device_type == 1 || real_device);
  }
  // Whether `obs` read every element and found the storage as a device producer leaves it
  // before its pending write lands (every byte geo::kUnwrittenByte), where the tensor's values
  // differ: it read too early (STRM-1). The matrix's exchange and the bridge's judge ask it.
  bool read_unwritten(const DLCObservation& obs) const;
};

const std::vector<TensorCase>& tensor_catalogue();
// -1 when there is none.
int find_tensor(std::string_view name);

// Whether what a conformant producer makes of `t` is a valid tensor for a consumer of `version`
// with an ndim limit of `max_ndim` (the reference validator's verdict, standard level).
bool valid_for(const TensorCase& t, DLCVersion version, int32_t max_ndim);
// The reference validator's verdict on what a conformant producer makes of `t` (valid_for's):
// its violations in `r`.
void validate_request(const TensorCase& t, DLCVersion version, int32_t max_ndim,
                      ValidateResult* r);

// How many of the catalogue's tensors are generated views.
size_t generated_view_count();

}  // namespace dlc
