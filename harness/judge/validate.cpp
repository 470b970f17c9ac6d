// Checks run in the order of a strict importer (nanobind's): capsule, version, ndim, dtype,
// device, flags, then (standard) shape, strides and address arithmetic, then (full) the elements.
#include "validate.h"

#include <cstring>

#include "geometry.hpp"
#include "safe_text.h"

namespace dlc {
namespace {

bool at_least(DLCVersion v, uint32_t major, uint32_t minor) {
  return v.major > major || (v.major == major && v.minor >= minor);
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

// DT-1/DT-2: the widths each code allows. Returns "" if allowed, else what was expected.
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
  Checker(ValidateResult* r, bool words) : r_(r), words_(words) {}
  // Records a violation (or a note) and returns a writer for its message: one that writes
  // nothing where the caller wants the rules only.
  SafeText add(Rule rule, bool note = false) {
    static char overflow[sizeof Violation::message];
    if (r_->count == ValidateResult::kMaxViolations) return SafeText(overflow, sizeof overflow);
    Violation& v = r_->violations[r_->count++];
    v.rule = rule;
    v.note = note;
    v.message[0] = '\0';
    return SafeText(v.message, words_ ? sizeof v.message : 0);
  }
  // A MUST violation that binds consumers too: one that binds producers only (DEV-2) does not
  // stop the checks a consumer's import is judged by.
  bool any_must() const {
    for (int i = 0; i < r_->count; ++i) {
      const Violation& v = r_->violations[i];
      if (v.weight() == Severity::must && !info(v.rule).producers_only) return true;
    }
    return false;
  }

 private:
  ValidateResult* r_;
  bool words_;
};

void check_tensor(const abi::Tensor& t, bool versioned, DLCVersion version, uint64_t flags,
                  const ValidateOptions& o, ValidateResult* r, Checker& c) {
  DLCObservation& obs = r->observation;
  obs.ndim = t.ndim;
  obs.dtype = t.dtype;
  obs.device = t.device;
  obs.byte_offset = t.byte_offset;
  obs.has_strides = t.strides != nullptr;
  // The enums a consumer knows are those of its own version (VER-3).
  const DLCVersion consumer = o.consumer_version;

  // ndim (LAY-1) and the consumer's own limit.
  if (t.ndim < 0) {
    c.add(Rule::LAY_1).add("expected ndim >= 0 but found ").num(t.ndim);
    return;
  }
  if (t.ndim > o.max_ndim) {
    c.add(Rule::LAY_1).add("expected ndim <= ").num(o.max_ndim).add(" (consumer limit) but found ")
        .num(t.ndim);
    return;
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    c.add(Rule::LAY_6).add("expected shape != NULL for ndim=").num(t.ndim).add(" but found NULL");
  }
  // dtype (DT-1, DT-2, VER-3).
  const int known = max_known_code(consumer);
  if (t.dtype.code > known) {
    c.add(t.dtype.code > 17 ? Rule::DT_2 : Rule::VER_3)
        .add("expected a dtype code this consumer (DLPack ")
        .version(consumer.major, consumer.minor)
        .add(") knows (0..")
        .num(known)
        .add(") but found ")
        .num(t.dtype.code);
  } else if (const char* want = allowed_bits(t.dtype.code, t.dtype.bits); *want != '\0') {
    // Float6 and Float4: "the consumer must stop importing" (DT-1); other codes' widths are the
    // header's "common choices", which the suite refuses by a derived rule (DT-2).
    const bool sub_byte_float = t.dtype.code >= 15 && t.dtype.code <= 17;
    c.add(sub_byte_float ? Rule::DT_1 : Rule::DT_2)
        .add("expected bits ").add(want).add(" for dtype code ").num(t.dtype.code)
        .add(" but found ").num(t.dtype.bits);
  }
  if (t.dtype.lanes == 0) c.add(Rule::DT_1).add("expected lanes >= 1 but found 0");
  // device (DEV-1, DEV-2, VER-3).
  if (!known_device(t.device.device_type, consumer)) {
    const bool newer = t.device.device_type <= 18 && t.device.device_type > 0 &&
                       t.device.device_type != 5 && t.device.device_type != 6;
    c.add(newer ? Rule::VER_3 : Rule::DEV_1)
        .add("expected a device type this consumer (DLPack ")
        .version(consumer.major, consumer.minor)
        .add(") knows but found ")
        .num(t.device.device_type);
  } else if ((t.device.device_type == 1 || t.device.device_type == 3 ||
              t.device.device_type == 13) &&
             t.device.device_id != 0) {
    c.add(Rule::DEV_2).add("expected device_id 0 for device type ").num(t.device.device_type)
        .add(" but found ").num(t.device.device_id);
  }
  // flags (FLAG-3, FLAG-4).
  if (versioned) {
    const uint64_t known_flags = abi::kFlagReadOnly | abi::kFlagIsCopied |
                                 (at_least(version, 1, 1) ? abi::kFlagSubbytePadded : 0);
    if ((flags & ~known_flags) != 0) {
      c.add(Rule::FLAG_4, true).add("unknown flag bits set: ").hex(flags & ~known_flags);
    }
    const bool subbyte = uint32_t{t.dtype.bits} * t.dtype.lanes < 8;
    if ((flags & abi::kFlagSubbytePadded) && !subbyte) {
      c.add(Rule::FLAG_3, true).add("IS_SUBBYTE_TYPE_PADDED set on a dtype of 8 bits or more");
    }
  }
  // LAY-5: from 1.2 strides must be non-NULL for ndim != 0.
  if (t.strides == nullptr && t.ndim != 0 && versioned && version.major == 1 &&
      version.minor >= 2) {
    c.add(Rule::LAY_5).add("expected strides != NULL for ndim=").num(t.ndim)
        .add(" (DLPack >= 1.2) but found NULL");
  }
  if (t.data != nullptr && (reinterpret_cast<uintptr_t>(t.data) % 256) != 0) {
    c.add(Rule::LAY_9, true).add("data is not 256-byte aligned");
  }
  if (o.level == Level::minimal || c.any_must()) return;

  // Standard: shape and strides (LAY-8, LAY-10) and the address arithmetic.
  for (int i = 0; i < t.ndim; ++i) {
    if (i < DLC_MAX_NDIM) obs.shape[i] = t.shape[i];
    if (t.shape[i] < 0) {
      c.add(Rule::LAY_10).add("expected shape[").num(i).add("] >= 0 but found ").num(t.shape[i]);
      return;
    }
  }
  if (t.strides != nullptr) {
    bool noted = false;
    for (int i = 0; i < t.ndim; ++i) {
      if (i < DLC_MAX_NDIM) obs.strides[i] = t.strides[i];
      if (t.strides[i] <= 0 && t.shape[i] > 1 && !noted) {
        c.add(Rule::LAY_8, true).add("non-positive stride ").num(t.strides[i])
            .add(" on dimension ").num(i);
        noted = true;
      }
    }
  }
  const bool padded = (flags & abi::kFlagSubbytePadded) != 0;
  const geo::Geometry g = geo::geometry(t.ndim, t.shape, t.strides, t.dtype, padded);
  if (!g.valid) {
    c.add(Rule::LAY_10).add("expected a storage size that fits in 64 bits but the shape and ")
        .add("strides overflow");
    return;
  }
  if (g.size_class == geo::SizeClass::band) {
    // Valid, and either answer is right: the judge blames neither a refusal nor an import.
    r->size_band = true;
    c.add(Rule::LAY_10, true).add("storage size of ").unum(g.size_bytes)
        .add(" bytes is 2^63 or more: a consumer may refuse it (NumPy does) or accept it");
  }
  if (g.numel > 0 && t.data == nullptr) {
    c.add(Rule::LAY_4).add("expected data != NULL for ").unum(g.numel)
        .add(" elements but found NULL");
    return;
  }
  if (g.numel > 0) {
    // Every element's address must be computable without wrapping, and lie where a process's
    // memory can be: below 2^57 (5-level paging's user space), never a non-canonical pointer.
    constexpr uint64_t kUserAddressEnd = uint64_t{1} << 57;
    uint64_t origin = 0, low = 0, high = 0, before = 0;
    const uint64_t below = g.min_offset < 0 ? uint64_t{0} - static_cast<uint64_t>(g.min_offset) : 0;
    if (__builtin_mul_overflow(below, g.element_bytes, &before) ||
        __builtin_add_overflow(reinterpret_cast<uintptr_t>(t.data), t.byte_offset, &origin) ||
        __builtin_sub_overflow(origin, before, &low) ||
        __builtin_add_overflow(low, g.storage_bytes, &high) || high > kUserAddressEnd) {
      c.add(Rule::LAY_10).add("expected element addresses within the address space but data ")
          .add("+ byte_offset + strides wraps around or leaves it");
      return;
    }
  }
  if (g.packed_subbyte && t.strides != nullptr) {
    const int64_t i = geo::first_noncompact_dim(t.ndim, t.shape, t.strides);
    if (i >= 0) {
      c.add(Rule::DT_3).add("expected compact strides for packed sub-byte elements but found ")
          .num(t.strides[i])
          .add(" on dimension ")
          .num(i);
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
  if (t.ndim > geo::kMaxWalkDims) {
    c.add(Rule::LAY_1).add("expected ndim <= ").num(geo::kMaxWalkDims)
        .add(" to read every element but found ").num(t.ndim);
    return;
  }
  // In integers: NULL data with an offset (a zero-size tensor) is no pointer arithmetic.
  const auto* origin =
      reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(t.data) + t.byte_offset);
  obs.digest = geo::digest(g, t.ndim, t.shape, g.packed_subbyte ? nullptr : t.strides, origin,
                           &obs.elements_read);
}

}  // namespace

int max_known_code(DLCVersion v) noexcept {
  if (at_least(v, 1, 1)) return 17;
  if (at_least(v, 0, 8)) return 6;
  return 5;
}

const Violation* ValidateResult::first_must() const noexcept { return first_refusal(false); }

const Violation* ValidateResult::first_consumer_must() const noexcept {
  for (int i = 0; i < count; ++i) {
    const Violation& v = violations[i];
    if (v.weight() == Severity::must && !info(v.rule).producers_only) return &v;
  }
  return nullptr;
}

const Violation* ValidateResult::first_refusal(bool strict) const noexcept {
  for (int i = 0; i < count; ++i) {
    const Severity s = violations[i].weight();
    if (s == Severity::must || (strict && s == Severity::should)) return &violations[i];
  }
  return nullptr;
}

void validate(const DLCHandoff& handoff, const ValidateOptions& o, ValidateResult* r,
              int32_t raw_kind) noexcept {
  r->accepted = false;
  r->size_band = false;
  r->count = 0;
  r->observation = DLCObservation{};
  Checker c(r, o.words);
  // 1. The capsule (LIFE-1, LIFE-8).
  int32_t kind = raw_kind;
  if (handoff.name != nullptr) {
    if (std::strcmp(handoff.name, "dltensor") == 0) {
      kind = DLC_STRUCT_LEGACY;
    } else if (std::strcmp(handoff.name, "dltensor_versioned") == 0) {
      kind = DLC_STRUCT_VERSIONED;
    } else if (std::strncmp(handoff.name, "used_", 5) == 0) {
      c.add(Rule::LIFE_8).add("expected an unused capsule but found ").add(handoff.name);
      return;
    } else {
      c.add(Rule::LIFE_1).add("expected capsule name dltensor or dltensor_versioned but found ")
          .add(handoff.name);
      return;
    }
  }
  if (handoff.pointer == nullptr) {
    c.add(Rule::LIFE_1).add("expected a tensor pointer but found NULL");
    return;
  }
  if (kind != DLC_STRUCT_LEGACY && kind != DLC_STRUCT_VERSIONED) {
    c.add(Rule::LIFE_1).add("expected the struct kind of a raw pointer but found none");
    return;
  }
  r->observation.struct_kind = kind;
  if (kind == DLC_STRUCT_LEGACY) {
    const auto* m = static_cast<const abi::ManagedTensor*>(handoff.pointer);
    if (m->deleter == nullptr) c.add(Rule::LIFE_4, true).add("deleter is NULL");
    check_tensor(m->dl_tensor, false, {0, 0}, 0, o, r, c);
  } else {
    const auto* m = static_cast<const abi::ManagedTensorVersioned*>(handoff.pointer);
    // 2. The version (VER-2): on another major, touch nothing past the deleter.
    r->observation.version = m->version;
    if (m->version.major != o.consumer_version.major) {
      auto w = c.add(Rule::VER_2);
      w.add("expected DLPack major ").unum(o.consumer_version.major).add(" but found ");
      // A major in the thousands is a pointer's bits read as a version: not worth printing
      // (it changes from run to run).
      if (m->version.major < 1000) w.unum(m->version.major);
      else w.add("a value that is no version (pointer bits?)");
      w.add(" (only the deleter may be used)");
    } else {
      if (m->deleter == nullptr) c.add(Rule::LIFE_4, true).add("deleter is NULL");
      r->observation.flags = m->flags;
      // VER-3: a newer minor is fine if every enum value is known; the checks use the consumer's
      // version, which is what "known" means.
      check_tensor(m->dl_tensor, true, m->version, m->flags, o, r, c);
    }
  }
  r->accepted = r->first_must() == nullptr;
}

}  // namespace dlc
