// Checks run in the order of a strict importer (nanobind's): capsule, version, ndim, dtype,
// device, flags, then (standard) shape and strides, then (full) the elements.
#include "validate.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "fill.hpp"

namespace dlc {

static_assert(sizeof(abi::Tensor) == 48 && offsetof(abi::Tensor, shape) == 24 &&
                  offsetof(abi::Tensor, byte_offset) == 40,
              "LAY-1: DLTensor layout");
static_assert(sizeof(abi::ManagedTensor) == 64 && offsetof(abi::ManagedTensor, deleter) == 56,
              "LAY-2: DLManagedTensor layout");
static_assert(sizeof(abi::ManagedTensorVersioned) == 80 &&
                  offsetof(abi::ManagedTensorVersioned, flags) == 24 &&
                  offsetof(abi::ManagedTensorVersioned, dl_tensor) == 32,
              "LAY-3: DLManagedTensorVersioned layout");

namespace {

bool at_least(DLCVersion v, uint32_t major, uint32_t minor) {
  return v.major > major || (v.major == major && v.minor >= minor);
}

std::string vtext(DLCVersion v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

// DT-1: the codes a consumer of `v` knows. A 0.x consumer knows 0-5 (and Bool from 0.8).
int max_known_code(DLCVersion v) {
  if (at_least(v, 1, 1)) return 17;
  if (at_least(v, 0, 8)) return 6;
  return 5;
}

// DEV-1: the device types a consumer of `v` knows.
bool known_device(int32_t type, DLCVersion v) {
  if (type == 5 || type == 6) return false;  // retired values
  if (type >= 1 && type <= 13) return true;
  if (type >= 14 && type <= 16) return at_least(v, 0, 7);
  if (type == 17) return at_least(v, 1, 0);
  if (type == 18) return at_least(v, 1, 2);
  return false;
}

// DT-2/DT-3: the widths each code allows. Returns "" if allowed, else what was expected.
const char* allowed_bits(uint8_t code, uint8_t bits) {
  switch (code) {
    case 0:
    case 1:
      return (bits == 8 || bits == 16 || bits == 32 || bits == 64) ? "" : "8, 16, 32 or 64";
    case 2:
      return (bits == 16 || bits == 32 || bits == 64) ? "" : "16, 32 or 64";
    case 3:
      return bits > 0 ? "" : "a non-zero width";
    case 4:
      return bits == 16 ? "" : "16";
    case 5:
      return (bits == 32 || bits == 64 || bits == 128) ? "" : "32, 64 or 128";
    case 6:
      return bits == 8 ? "" : "8";
    case 15:
    case 16:
      return bits == 6 ? "" : "6";
    case 17:
      return bits == 4 ? "" : "4";
    default:
      return (code >= 7 && code <= 14) ? (bits == 8 ? "" : "8") : "";
  }
}

class Checker {
 public:
  explicit Checker(ValidateResult* r) : r_(r) {}
  void add(const char* rule, Severity s, std::string message) {
    r_->violations.push_back(Violation{rule, s, std::move(message)});
  }
  bool any_must() const {
    return std::any_of(r_->violations.begin(), r_->violations.end(),
                       [](const Violation& v) { return v.severity == Severity::must; });
  }

 private:
  ValidateResult* r_;
};

void check_tensor(const abi::Tensor& t, bool versioned, DLCVersion version, uint64_t flags,
                  const ValidateOptions& o, ValidateResult* r, Checker& c) {
  DLCObservation& obs = r->observation;
  obs.ndim = t.ndim;
  obs.dtype = t.dtype;
  obs.device = t.device;
  obs.byte_offset = t.byte_offset;
  obs.has_strides = t.strides != nullptr;
  // The version whose enums apply: the tensor's own for a versioned struct the consumer can read,
  // otherwise the consumer's (a legacy struct says nothing of its version).
  const DLCVersion consumer = o.consumer_version;

  // ndim (LAY-1) and the consumer's own limit.
  if (t.ndim < 0) {
    c.add("LAY-1", Severity::must, "expected ndim >= 0 but found " + std::to_string(t.ndim));
    return;
  }
  if (t.ndim > o.max_ndim) {
    c.add("LAY-1", Severity::must,
          "expected ndim <= " + std::to_string(o.max_ndim) + " (consumer limit) but found " +
              std::to_string(t.ndim));
    return;
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    c.add("LAY-6", Severity::must,
          "expected shape != NULL for ndim=" + std::to_string(t.ndim) + " but found NULL");
  }
  // dtype (DT-1, DT-2).
  const int known = max_known_code(consumer);
  if (t.dtype.code > known) {
    c.add(t.dtype.code > 17 ? "DT-2" : "VER-3", Severity::must,
          "expected a dtype code this consumer (DLPack " + vtext(consumer) + ") knows (0.." +
              std::to_string(known) + ") but found " + std::to_string(t.dtype.code));
  } else if (const char* want = allowed_bits(t.dtype.code, t.dtype.bits); *want != '\0') {
    c.add("DT-2", Severity::must,
          "expected bits " + std::string(want) + " for dtype code " + std::to_string(t.dtype.code) +
              " but found " + std::to_string(t.dtype.bits));
  }
  if (t.dtype.lanes == 0) {
    c.add("DT-1", Severity::must, "expected lanes >= 1 but found 0");
  }
  // device (DEV-1, DEV-2).
  if (!known_device(t.device.device_type, consumer)) {
    c.add(t.device.device_type <= 18 && t.device.device_type > 0 ? "VER-3" : "DEV-1",
          Severity::must,
          "expected a device type this consumer (DLPack " + vtext(consumer) + ") knows but found " +
              std::to_string(t.device.device_type));
  } else if ((t.device.device_type == 1 || t.device.device_type == 3 ||
              t.device.device_type == 13) &&
             t.device.device_id != 0) {
    c.add("DEV-2", Severity::must,
          "expected device_id 0 for device type " + std::to_string(t.device.device_type) +
              " but found " + std::to_string(t.device.device_id));
  }
  // flags (FLAG-3, FLAG-4).
  if (versioned) {
    const uint64_t known_flags = abi::kFlagReadOnly | abi::kFlagIsCopied |
                                 (at_least(version, 1, 1) ? abi::kFlagSubbytePadded : 0);
    if ((flags & ~known_flags) != 0) {
      c.add("FLAG-4", Severity::info,
            "unknown flag bits set: " + std::to_string(flags & ~known_flags));
    }
    const bool subbyte = uint32_t{t.dtype.bits} * t.dtype.lanes < 8;
    if ((flags & abi::kFlagSubbytePadded) && !subbyte) {
      c.add("FLAG-3", Severity::info, "IS_SUBBYTE_TYPE_PADDED set on a dtype of 8 bits or more");
    }
  }
  // LAY-5: from 1.2 strides must be non-NULL for ndim != 0.
  if (t.strides == nullptr && t.ndim != 0 && versioned && version.major == 1 &&
      version.minor >= 2) {
    c.add("LAY-5", Severity::must,
          "expected strides != NULL for ndim=" + std::to_string(t.ndim) +
              " (DLPack >= 1.2) but found NULL");
  }
  if (t.data != nullptr && (reinterpret_cast<uintptr_t>(t.data) % 256) != 0) {
    c.add("LAY-9", Severity::info, "data is not 256-byte aligned");
  }
  if (o.level == Level::minimal || c.any_must()) return;

  // Standard: shape and strides (LAY-8, LAY-10).
  DLCTensorSpec spec{};
  spec.dtype = t.dtype;
  spec.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) {
    spec.shape[i] = t.shape[i];
    if (i < 32) obs.shape[i] = t.shape[i];
    if (t.shape[i] < 0) {
      c.add(
          "LAY-10", Severity::must,
          "expected shape[" + std::to_string(i) + "] >= 0 but found " + std::to_string(t.shape[i]));
      return;
    }
  }
  if (t.strides != nullptr) {
    spec.has_strides = 1;
    for (int i = 0; i < t.ndim; ++i) {
      spec.strides[i] = t.strides[i];
      if (i < 32) obs.strides[i] = t.strides[i];
      if (t.strides[i] <= 0 && t.shape[i] > 1) {
        c.add("LAY-8", Severity::info,
              "non-positive stride " + std::to_string(t.strides[i]) + " on dimension " +
                  std::to_string(i));
      }
    }
  }
  if ((flags & abi::kFlagSubbytePadded) != 0) spec.options |= DLC_SPEC_SUBBYTE_PADDED;
  const dlc_fill::Geometry g = dlc_fill::geometry(spec);
  if (!g.valid) {
    c.add("LAY-10", Severity::must,
          "expected a storage size that fits in 64 bits but the shape " +
              std::string("and strides overflow"));
    return;
  }
  uint64_t end = 0;
  if (__builtin_add_overflow(t.byte_offset, g.storage_bytes, &end)) {
    c.add("LAY-10", Severity::must, "byte_offset plus the storage size overflows 64 bits");
    return;
  }
  if (g.numel > 0 && t.data == nullptr) {
    c.add("LAY-4", Severity::must,
          "expected data != NULL for " + std::to_string(g.numel) + " elements but found NULL");
    return;
  }
  if (g.packed_subbyte && t.strides != nullptr) {
    for (int i = 0; i < t.ndim; ++i) {
      if (t.shape[i] > 1 && t.strides[i] != g.strides[i]) {
        c.add("DT-3", Severity::should, "packed sub-byte elements with non-compact strides");
        break;
      }
    }
  }
  if (o.level != Level::full) return;

  // Full: every element, host memory only (DEV-3).
  const bool readable =
      t.device.device_type == 1 ||
      (o.host_readable_pinned && (t.device.device_type == 3 || t.device.device_type == 13));
  if (!readable) {
    obs.data_not_read = 1;
    return;
  }
  std::string error;
  if (!digest_elements(t, flags, &obs.digest, &obs.elements_read, &error)) {
    c.add("LAY-10", Severity::must, error);
  }
}

}  // namespace

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::must:
      return "MUST";
    case Severity::should:
      return "SHOULD";
    case Severity::info:
      return "INFO";
  }
  return "?";
}

const Violation* ValidateResult::first_must() const {
  for (const Violation& v : violations) {
    if (v.severity == Severity::must) return &v;
  }
  return nullptr;
}

bool digest_elements(const abi::Tensor& t, uint64_t flags, uint64_t* digest, uint64_t* count,
                     std::string* error) noexcept {
  DLCTensorSpec spec{};
  spec.dtype = t.dtype;
  spec.ndim = t.ndim;
  if (t.ndim < 0 || t.ndim > 32 || (t.ndim > 0 && t.shape == nullptr)) {
    *error = "cannot walk a tensor without a valid shape";
    return false;
  }
  for (int i = 0; i < t.ndim; ++i) spec.shape[i] = t.shape[i];
  if (t.strides != nullptr) {
    spec.has_strides = 1;
    for (int i = 0; i < t.ndim; ++i) spec.strides[i] = t.strides[i];
  }
  if (flags & abi::kFlagSubbytePadded) spec.options |= DLC_SPEC_SUBBYTE_PADDED;
  const dlc_fill::Geometry g = dlc_fill::geometry(spec);
  if (!g.valid) {
    *error = "expected a walkable geometry but the shape or strides overflow";
    return false;
  }
  uint64_t d = dlc_digest_init();
  *count = 0;
  if (g.numel > 0) {
    const uint8_t* origin = static_cast<const uint8_t*>(t.data) + t.byte_offset;
    if (g.packed_subbyte) {
      d = dlc_digest_update(d, origin, g.storage_bytes);
      *count = g.storage_bytes;
    } else {
      dlc_fill::for_each_element(spec, g, [&](uint64_t, int64_t offset) {
        d = dlc_digest_update(d, origin + offset * static_cast<int64_t>(g.element_bytes),
                              g.element_bytes);
      });
      *count = g.numel;
    }
  }
  *digest = d;
  return true;
}

ValidateResult validate(const DLCHandoff& handoff, const ValidateOptions& o,
                        int32_t raw_kind) noexcept {
  ValidateResult r;
  Checker c(&r);
  try {
    // 1. The capsule (LIFE-1, LIFE-8).
    int32_t kind = raw_kind;
    if (handoff.name != nullptr) {
      if (std::strcmp(handoff.name, "dltensor") == 0) {
        kind = DLC_STRUCT_LEGACY;
      } else if (std::strcmp(handoff.name, "dltensor_versioned") == 0) {
        kind = DLC_STRUCT_VERSIONED;
      } else if (std::strncmp(handoff.name, "used_", 5) == 0) {
        c.add("LIFE-8", Severity::must,
              std::string("expected an unused capsule but found ") + handoff.name);
        return r;
      } else {
        c.add("LIFE-1", Severity::must,
              std::string("expected capsule name dltensor or dltensor_versioned but found ") +
                  handoff.name);
        return r;
      }
    }
    if (handoff.pointer == nullptr) {
      c.add("LIFE-1", Severity::must, "expected a tensor pointer but found NULL");
      return r;
    }
    if (kind != DLC_STRUCT_LEGACY && kind != DLC_STRUCT_VERSIONED) {
      c.add("LIFE-1", Severity::must, "a raw pointer needs its struct kind");
      return r;
    }
    r.observation.struct_kind = kind;
    if (kind == DLC_STRUCT_LEGACY) {
      const auto* m = static_cast<const abi::ManagedTensor*>(handoff.pointer);
      if (m->deleter == nullptr) c.add("LIFE-4", Severity::info, "deleter is NULL");
      check_tensor(m->dl_tensor, false, {0, 0}, 0, o, &r, c);
    } else {
      const auto* m = static_cast<const abi::ManagedTensorVersioned*>(handoff.pointer);
      // 2. The version (VER-2): on another major, touch nothing past the deleter.
      r.observation.version = m->version;
      if (m->version.major != o.consumer_version.major) {
        c.add("VER-2", Severity::must,
              "expected DLPack major " + std::to_string(o.consumer_version.major) + " but found " +
                  std::to_string(m->version.major) + " (only the deleter may be used)");
        return r;
      }
      if (m->deleter == nullptr) c.add("LIFE-4", Severity::info, "deleter is NULL");
      r.observation.flags = m->flags;
      // VER-3: a newer minor is fine if every enum value is known; the checks below use the
      // consumer's version, which is what "known" means.
      check_tensor(m->dl_tensor, true, m->version, m->flags, o, &r, c);
    }
  } catch (...) {
    r.violations.push_back(Violation{"", Severity::must, "validator out of memory"});
  }
  std::stable_sort(r.violations.begin(), r.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.severity < b.severity; });
  r.accepted = r.first_must() == nullptr;
  return r;
}

}  // namespace dlc
