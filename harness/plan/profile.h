// Capability profiles: what a party supports (plugin.h's DLCProfile), resolved from the plugin's
// table, from a profile file beside the plugin (PLUGIN.so.profile), or the documented default.
// A producer is asked only for tensors inside its profile; a consumer must import every valid
// tensor inside its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "catalogue.h"
#include "dlconform/plugin.h"
#include "plugin_loader.h"

namespace dlc {

struct Profile {
  enum class Source { declared, file, default_profile };
  Source source = Source::default_profile;
  std::vector<DLCDtype> dtypes;       // empty: every dtype
  std::vector<int32_t> device_types;  // empty: every device
  uint32_t strides = 0;               // DLC_STRIDES_*
  uint32_t features = 0;              // DLC_FEATURE_*
  int32_t max_ndim = 8;
  DLCVersion emits_version{0, 0};  // {0,0}: the header's own

  // One line for reports: "f32 f64 · cpu · strides positive negative · read-only zero-dim ·
  // ndim <= 8 (default)".
  std::string summary() const;
};

// The default profile of DLCProfile's documentation.
Profile default_profile();

// Copies a plugin's DLCProfile (plugin ABI 2); `table_size` guards against a short table.
Profile profile_from_table(const DLCProfile& declared);

// Parses a profile file:
//   # comment
//   dtypes   = f32 f64 i32 u8 bool c64 bf16 f4_e2m1fn 2:32:4   (names or code:bits:lanes; all)
//   devices  = cpu cuda 13                                      (names or numbers; all)
//   strides  = positive negative zero overlapping               (or all, or none)
//   features = read-only zero-dim zero-size copy misaligned test-layouts needs-write
//   max_ndim = 8
//   emits_version = 1.3
// Unknown keys or values stop with "FILE:LINE: expected ... but found ...".
[[nodiscard]] bool parse_profile(const std::string& text, const std::string& origin, Profile* out,
                                 std::string* error);
[[nodiscard]] bool load_profile_file(const std::string& path, Profile* out, std::string* error);

// What a loaded plugin says it takes or makes: its table's DLCProfile (refused, with `error`,
// when malformed), else a profile file beside it (PLUGIN.so.profile), else the default.
[[nodiscard]] bool resolve_profile(const LoadedPlugin& plugin, Profile* out, std::string* error);

// Is `t` inside a producer's profile (it can be asked for it)?
bool producer_can_make(const Profile& p, const TensorCase& t);
// The representations `s` wishes for (DLC_FEATURE_NULL_SHAPE, _NULL_DATA, _NULL_STRIDES,
// _BYTE_OFFSET) beyond the logical tensor: a real exporter may choose its own.
uint32_t wished_representations(const DLCTensorSpec& s);
// Does the producer declare every representation `t` wishes for? If not, declining is n/a.
bool declares_wishes(const Profile& p, const TensorCase& t);
// Is `t` inside a consumer's profile (it must import it when the tensor is valid for it)?
bool consumer_supports(const Profile& p, const TensorCase& t);
// Whether the profile lists the device type (an empty list takes every device).
bool takes_device(const Profile& p, int32_t device_type);

// "f32", "c128", "f4_e2m1fn", or "code:bits:lanes" for one without a name.
std::string dtype_name(DLCDtype d);

}  // namespace dlc
