// Mock consumers, compiled once per DLPack header they apply to. DLC_CONSUMER picks the kind:
//   legacy    - imports "dltensor" capsules only, never asks for max_version. Built against a
//               >= 1.0 header it is the soft-updated S2 consumer.
//   versioned - asks for its own version (VER-5), imports both capsule kinds, checks the major
//               before touching anything else (VER-2).
//   strict    - versioned, and also refuses SHOULD-level violations: the reference validator as a
//               consumer; its refusals name the rule. Like NumPy it refuses a storage size of
//               2^63 bytes or more, which the others take (LAY-10 allows both).
//   untaken   - versioned, but takes the tensor (renames the capsule) only once its import has
//               succeeded, as torch's, MXNet's and tvm-ffi's own entry points do: a refusal
//               leaves the tensor with its producer, and it calls no deleter then (LIFE-1, LIFE-3).
// The struct is read through this translation unit's own header types; the field checks are the
// shared validator's. DLC_BUG plants one bug class (see kBug below) for the detection tests.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "mock_common.hpp"
#include "validate.h"

#define DLC_KIND_legacy 1
#define DLC_KIND_versioned 2
#define DLC_KIND_strict 3
#define DLC_KIND_untaken 4
#define DLC_CAT2(a, b) a##b
#define DLC_CAT(a, b) DLC_CAT2(a, b)
#define DLC_KIND DLC_CAT(DLC_KIND_, DLC_CONSUMER)

#define DLC_BUG_none 0
#define DLC_BUG_no_delete 1
#define DLC_BUG_double_delete 2
#define DLC_BUG_early_delete 3
#define DLC_BUG_null_deleter 4
#define DLC_BUG_read_past_legacy 5
#define DLC_BUG_touch_future_major 6
#define DLC_BUG_oob_data 7
#define DLC_BUG_oob_shape 8
#define DLC_BUG_oob_strides 9
#define DLC_BUG_ignore_byte_offset 10
#define DLC_BUG_ignore_strides 11
#define DLC_BUG_write_read_only 12
#define DLC_BUG_accept_invalid 13
#define DLC_BUG_reject_valid 14
// The fuzzing zoo (consumers/zoo): caught by the fuzzers' sanitizers, guard pages, ledger and
// digest check, but not all of them deterministically by an uninstrumented matrix run (those that
// are, aligned_loads, are matrix rows as well).
#define DLC_BUG_ndim_fixed_array 15
#define DLC_BUG_int32_count 16
#define DLC_BUG_ignore_lanes 17
#define DLC_BUG_aligned_loads 18
#define DLC_BUG_shared_ctx_double_free 19
#define DLC_BUG_frees_shape 20
#define DLC_BUG_frees_unowned 21
#define DLC_BUG_takes_used_capsule 22
#define DLC_BUG_deletes_untaken 23
#define DLC_BUG_abort_overflow 24
#define DLC_BUG_skips_width_check 25
#define DLC_BUG_versioned_only 26
#define DLC_BUG_refuses_read_only 27
#define DLC_BUG_refuses_zero_size 28
#define DLC_BUG_refuses_unit_axis_stride 29
#define DLC_BUG_reads_null_shape 30
#define DLC_BUG_refuses_zero_strides 31
#define DLC_BUG_refuses_null_manager_ctx 32
#define DLC_BUG_trusts_null_strides 33
#define DLC_BUG_reads_scalar_strides 34
#define DLC_BUG_reads_high_bits_first 35
#define DLC_BUG_renames_without_suffix 36
#define DLC_BUG_dltensor_at_40 37
#ifndef DLC_BUG
#define DLC_BUG none
#endif
#define DLC_BUG_ID DLC_CAT(DLC_BUG_, DLC_BUG)

#if DLC_KIND != DLC_KIND_legacy && DLC_HDR_MAJOR < 1
#error "versioned mock consumers need a DLPack >= 1.0 header"
#endif

namespace {

using dlc_mock::set_error;
constexpr int kBug = DLC_BUG_ID;
constexpr bool kVersioned = DLC_KIND != DLC_KIND_legacy;
// Whether the capsule is renamed before anything can fail (the tensor is then this consumer's to
// delete, also on a refusal) or only once the import has succeeded (the untaken kind).
constexpr bool kTakesFirst = DLC_KIND != DLC_KIND_untaken;
constexpr int32_t kMaxNdim = 16;  // this consumer's own limit; larger tensors are refused

struct Imported {
  void* pointer = nullptr;
  int kind = DLC_STRUCT_UNKNOWN;
  bool deleted = false;
  bool taken = false;  // this consumer's to delete: renamed, or a raw exchange
};
Imported g_imported;
// For the planted double free: the deleter as read before the first call.
[[maybe_unused]] void (*g_cached_legacy_deleter)(DLManagedTensor*) = nullptr;
#if DLC_HDR_MAJOR >= 1
[[maybe_unused]] void (*g_cached_versioned_deleter)(struct DLManagedTensorVersioned*) = nullptr;
#endif

DLC_AS_FOREIGN_CODE void call_deleter(Imported& t) {
  if (t.pointer == nullptr) return;
  if (t.kind == DLC_STRUCT_LEGACY) {
    auto* m = static_cast<DLManagedTensor*>(t.pointer);
    g_cached_legacy_deleter = m->deleter;
    if (kBug == DLC_BUG_null_deleter || m->deleter != nullptr) m->deleter(m);  // LIFE-4
  } else {
#if DLC_HDR_MAJOR >= 1
    auto* m = static_cast<struct DLManagedTensorVersioned*>(t.pointer);
    g_cached_versioned_deleter = m->deleter;
    if (kBug == DLC_BUG_null_deleter || m->deleter != nullptr) m->deleter(m);
#endif
  }
  t.deleted = true;
}

[[maybe_unused]] void* versioned_ctx(const Imported& t) {
#if DLC_HDR_MAJOR >= 1
  return static_cast<struct DLManagedTensorVersioned*>(t.pointer)->manager_ctx;
#else
  (void)t;
  return nullptr;
#endif
}

// A sub-byte float of DLPack 1.1 (float6_e2m3fn, float6_e3m2fn, float4_e2m1fn), by its code.
bool is_narrow_float(const DLTensor& t) { return t.dtype.code >= 15 && t.dtype.code <= 17; }

[[maybe_unused]] bool has_zero_extent(const DLTensor& t) {
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return true;
  }
  return false;
}

// A zero (broadcast) stride on an axis of more than one element.
[[maybe_unused]] bool has_broadcast_axis(const DLTensor& t) {
  for (int i = 0; i < t.ndim && t.strides != nullptr; ++i) {
    if (t.strides[i] == 0 && t.shape[i] > 1) return true;
  }
  return false;
}

// An extent-1 axis whose stride differs from the row-major one (any stride is valid there).
[[maybe_unused]] bool has_odd_unit_stride(const DLTensor& t) {
  int64_t compact = 1;  // the row-major stride of axis i, built from the last axis backwards
  for (int i = t.ndim - 1; i >= 0 && t.strides != nullptr; --i) {
    if (t.shape[i] == 1 && t.strides[i] != compact) return true;
    if (i > 0) compact *= t.shape[i];  // not past the first axis, whose product nothing needs
  }
  return false;
}

DLTensor* tensor_of(const Imported& t) {
#if DLC_HDR_MAJOR >= 1
  if (t.kind == DLC_STRUCT_VERSIONED) {
    // The planted layout bug (LAY-3): dl_tensor looked for at offset 40, behind a 64-bit field
    // after flags that the struct does not have; its last field then lies past the 80 bytes.
    if (kBug == DLC_BUG_dltensor_at_40) {
      return reinterpret_cast<DLTensor*>(static_cast<char*>(t.pointer) + 40);
    }
    return &static_cast<struct DLManagedTensorVersioned*>(t.pointer)->dl_tensor;
  }
#endif
  return &static_cast<DLManagedTensor*>(t.pointer)->dl_tensor;
}

// Digests every element in logical order through this consumer's own reading of the tensor.
bool digest(const DLTensor& t, uint64_t flags, DLCObservation* obs) {
  DLCTensorSpec spec{};
  // The planted bug sizes elements from bits alone (DT-1: an element is bits * lanes wide).
  spec.dtype = {t.dtype.code, t.dtype.bits,
                static_cast<uint16_t>(kBug == DLC_BUG_ignore_lanes ? 1 : t.dtype.lanes)};
  spec.ndim = t.ndim;
  for (int i = 0; i < t.ndim; ++i) spec.shape[i] = t.shape[i];
  const bool use_strides = t.strides != nullptr && kBug != DLC_BUG_ignore_strides;
  spec.has_strides = use_strides;
  for (int i = 0; use_strides && i < t.ndim; ++i) spec.strides[i] = t.strides[i];
#if defined(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
  if (flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) spec.options |= DLC_SPEC_SUBBYTE_PADDED;
#else
  (void)flags;
#endif
  const dlc::geo::SpecGeometry sg = dlc::geo::geometry(spec);
  const dlc::geo::Geometry& g = sg.g;
  if (!g.valid) return false;
  const uint64_t offset = kBug == DLC_BUG_ignore_byte_offset ? 0 : t.byte_offset;
  const uint8_t* origin = static_cast<const uint8_t*>(t.data) + offset;
  uint64_t d = dlc_digest_init();
#if defined(__SSE2__)
  if (kBug == DLC_BUG_aligned_loads && g.storage_bytes > 0) {
    // Assumes 256-byte aligned data (LAY-9: never assume it) and reads whole 16-byte vectors:
    // a misaligned start faults, and the last vector runs past the end of the storage.
    const uint8_t* lowest = origin + g.min_offset * static_cast<int64_t>(g.element_bytes);
    // movdqa in asm: the fault is the hardware's in every build (UBSan would report the same
    // load first in a sanitized one, and the matrix would name the bug two ways).
    __m128i acc = _mm_setzero_si128();
    for (uint64_t b = 0; b < g.storage_bytes; b += 16) {
      __m128i v;
      asm volatile("movdqa (%1), %0" : "=x"(v) : "r"(lowest + b) : "memory");
      acc = _mm_xor_si128(acc, v);
    }
    volatile int sink = _mm_cvtsi128_si32(acc);
    (void)sink;
  }
#endif
  if (g.packed_subbyte) {
    if constexpr (kBug == DLC_BUG_reads_high_bits_first) {
      // Takes each element's bits highest first (DT-3: DLPack packs the lowest first), and
      // digests the values so read as DLPack would pack them.
      std::vector<uint8_t> read(g.storage_bytes);
      dlc::geo::repack_high_bits_first(origin, g.numel, uint32_t{t.dtype.bits} * t.dtype.lanes,
                                       read.data(), read.size());
      d = dlc_digest_update(d, read.data(), read.size());
    } else {
      d = dlc_digest_update(d, origin, g.storage_bytes);
    }
    obs->elements_read = g.storage_bytes;
  } else {
    dlc::geo::for_each_element(g, spec.ndim, spec.shape, sg.strides, [&](uint64_t, int64_t off) {
      d = dlc_digest_update(d, origin + off * static_cast<int64_t>(g.element_bytes),
                            g.element_bytes);
    });
    obs->elements_read = g.numel;
    if (kBug == DLC_BUG_oob_data && g.numel > 0) {
      // Reads one element past the last one in memory order.
      const auto* past = reinterpret_cast<const volatile uint8_t*>(
          origin + (g.max_offset + 1) * static_cast<int64_t>(g.element_bytes));
      d = dlc_digest_update(d, const_cast<const uint8_t*>(past), g.element_bytes);
    }
  }
  obs->digest = d;
  return true;
}

int refuse(Imported& t, char* err, size_t err_len, const std::string& why) {
  set_error(err, err_len, why.c_str());
  if (!t.taken) {  // the producer keeps it: not ours to delete, nor to release
    if (kBug == DLC_BUG_deletes_untaken) call_deleter(t);  // the planted double free
    t.pointer = nullptr;
    return DLC_ERR_BUFFER;
  }
  if (kBug != DLC_BUG_no_delete) call_deleter(t);  // LIFE-3: also on rejection
  return DLC_ERR_BUFFER;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) {
  g_imported = Imported{};
  if (handoff == nullptr || handoff->pointer == nullptr) {
    set_error(err, err_len, "expected a tensor but found a NULL pointer");
    return DLC_ERR_BUFFER;
  }
  // 1. Capsule name (LIFE-1). A name we cannot take stays with the producer.
  int kind = DLC_STRUCT_UNKNOWN;
  if (handoff->name == nullptr) {
    kind = kVersioned ? DLC_STRUCT_VERSIONED : DLC_STRUCT_LEGACY;  // raw: our native struct
  } else if (std::strcmp(handoff->name, "dltensor") == 0) {
    kind = DLC_STRUCT_LEGACY;
  } else if (kVersioned && std::strcmp(handoff->name, "dltensor_versioned") == 0) {
    kind = DLC_STRUCT_VERSIONED;
  }
  if (kBug == DLC_BUG_read_past_legacy) kind = DLC_STRUCT_VERSIONED;  // ignores the name
  if (kBug == DLC_BUG_takes_used_capsule && handoff->name != nullptr &&
      std::strncmp(handoff->name, "used_", 5) == 0) {  // reads past the prefix (LIFE-8)
    kind = std::strcmp(handoff->name, "used_dltensor") == 0 ? DLC_STRUCT_LEGACY : DLC_STRUCT_VERSIONED;
  }
  if (kind == DLC_STRUCT_UNKNOWN) {
    std::string why = std::string("expected capsule name ") +
                      (kVersioned ? "dltensor or dltensor_versioned" : "dltensor") + " but found " +
                      handoff->name + " (LIFE-1)";
    set_error(err, err_len, why.c_str());
    return DLC_ERR_BUFFER;
  }
  if (kBug == DLC_BUG_versioned_only && kind == DLC_STRUCT_LEGACY) {
    // Left with its producer, as a refusal before taking: the planted bug is the refusal itself.
    set_error(err, err_len, "expected a dltensor_versioned capsule but found dltensor");
    return DLC_ERR_BUFFER;
  }
  // The planted rename drops the _versioned suffix that a versioned struct's names carry.
  const char* used = kind == DLC_STRUCT_VERSIONED && kBug != DLC_BUG_renames_without_suffix
                         ? "used_dltensor_versioned"
                         : "used_dltensor";
  if (handoff->name != nullptr && kTakesFirst) handoff->name = used;
  Imported& t = g_imported;
  t.pointer = handoff->pointer;
  t.kind = kind;
  t.taken = handoff->name == nullptr || kTakesFirst;
  obs->struct_kind = kind;

  // 2. Version (VER-2): on another major only the deleter may be touched.
  uint64_t flags = 0;
  DLCVersion version{0, 0};
#if DLC_HDR_MAJOR >= 1
  if (kind == DLC_STRUCT_VERSIONED) {
    auto* m = static_cast<struct DLManagedTensorVersioned*>(t.pointer);
    version = {m->version.major, m->version.minor};
    obs->version = version;
    // The planted S1 bug trusts every struct to be versioned and skips this check too.
    if (version.major != DLPACK_MAJOR_VERSION && kBug != DLC_BUG_touch_future_major &&
        kBug != DLC_BUG_read_past_legacy) {
      return refuse(t, err, err_len,
                    "expected DLPack major " + std::to_string(DLPACK_MAJOR_VERSION) +
                        " but found " + std::to_string(version.major) + " (VER-2)");
    }
    flags = m->flags;
    obs->flags = flags;
    // A consumer that cannot honour READ_ONLY should import and ignore it, not refuse (FLAG-1).
    if (kBug == DLC_BUG_refuses_read_only && (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) {
      return refuse(t, err, err_len, "read-only tensors are not supported");
    }
  }
#endif
  DLTensor* tensor = tensor_of(t);
  if (kBug == DLC_BUG_ndim_fixed_array && tensor->shape != nullptr) {
    // Copies the extents into a fixed array before checking ndim against it (LAY-1).
    int64_t extents[8];
    for (int i = 0; i < tensor->ndim; ++i) extents[i] = tensor->shape[i];
    obs->shape[0] = tensor->ndim > 0 ? static_cast<volatile int64_t*>(extents)[0] : 0;
  }
  if (kBug == DLC_BUG_int32_count && tensor->shape != nullptr) {
    // Counts elements in int (LAY-10: the count is int64): signed overflow, which UBSan reports.
    int count = 1;
    for (int i = 0; i < tensor->ndim && i < kMaxNdim; ++i) count *= static_cast<int>(tensor->shape[i]);
    obs->elements_read = static_cast<uint64_t>(static_cast<volatile int&>(count));
  }
  obs->ndim = tensor->ndim;
  obs->dtype = {tensor->dtype.code, tensor->dtype.bits, tensor->dtype.lanes};
  // Read the device type as the int32 it is: through v0.6's C++ enum (no fixed underlying type)
  // a value the header does not list is undefined behaviour (DEV-1), which UBSan reports.
  int32_t device = 0;
  std::memcpy(&device, &tensor->device.device_type, sizeof device);
  obs->device = {device, tensor->device.device_id};
  obs->byte_offset = tensor->byte_offset;
  obs->has_strides = tensor->strides != nullptr;
  // Planted over-reads go through volatile so that the compiler keeps them.
  if (kBug == DLC_BUG_oob_shape && tensor->shape != nullptr) {
    obs->shape[0] = static_cast<volatile int64_t*>(tensor->shape)[tensor->ndim];
  }
  if (kBug == DLC_BUG_oob_strides && tensor->strides != nullptr) {
    obs->strides[0] = static_cast<volatile int64_t*>(tensor->strides)[tensor->ndim];
  }

  // 3. Field checks through the shared validator, on a copy laid out as the struct kind we read.
  if (tensor->ndim > kMaxNdim) {
    return refuse(t, err, err_len,
                  "expected ndim <= " + std::to_string(kMaxNdim) +
                      " (this consumer's limit) but found " + std::to_string(tensor->ndim));
  }
  dlc::ValidateOptions options;
  options.level = dlc::Level::standard;
  options.consumer_version = {DLC_HDR_MAJOR, DLC_HDR_MINOR};
  options.max_ndim = kMaxNdim;
  dlc::abi::ManagedTensorVersioned view{};
  view.version = {kind == DLC_STRUCT_VERSIONED ? version.major : 1,
                  kind == DLC_STRUCT_VERSIONED ? version.minor : 0};
  view.flags = flags;
  std::memcpy(&view.dl_tensor, tensor, sizeof view.dl_tensor);
  dlc::abi::ManagedTensor legacy_view{};
  std::memcpy(&legacy_view.dl_tensor, tensor, sizeof legacy_view.dl_tensor);
  DLCHandoff check = kind == DLC_STRUCT_VERSIONED ? DLCHandoff{"dltensor_versioned", &view}
                                                  : DLCHandoff{"dltensor", &legacy_view};
  dlc::ValidateResult verdict;
  dlc::validate(check, options, &verdict);
  for (int i = 0; i < verdict.count; ++i) {
    const dlc::Violation& v = verdict.violations[i];
    const dlc::Severity severity = v.weight();
    const bool fatal = severity == dlc::Severity::must ||
                       (DLC_KIND == DLC_KIND_strict && severity == dlc::Severity::should);
    // The planted bug accepts a dtype code no header defines (DT-2), the one rule it breaks.
    // The planted width bug takes a narrow float of any width (DT-1: float6 is 6 bits, float4 4).
    const bool planted_blind_spot =
        (kBug == DLC_BUG_accept_invalid && v.rule == dlc::Rule::DT_2) ||
        (kBug == DLC_BUG_skips_width_check && v.rule == dlc::Rule::DT_1 &&
         is_narrow_float(*tensor));
    // The planted hardening bug: its size check aborts on an overflowing shape (LAY-10), a fault
    // on a tensor no conformant producer makes.
    if (kBug == DLC_BUG_abort_overflow && fatal && v.rule == dlc::Rule::LAY_10) std::abort();
    if (fatal && !planted_blind_spot) {
      return refuse(t, err, err_len, std::string(v.message) + " (" + dlc::id_of(v.rule) + ")");
    }
  }
  // The strict consumer refuses a storage size of 2^63 bytes or more, as NumPy does; the others
  // take it. Both answers are right (LAY-10), and the differential fuzzer blames neither.
  if (DLC_KIND == DLC_KIND_strict && verdict.size_band) {
    const uint64_t element_bytes = (uint64_t{tensor->dtype.bits} * tensor->dtype.lanes + 7) / 8;
    const dlc::geo::StorageSize size =
        dlc::geo::storage_size(tensor->ndim, tensor->shape, element_bytes);
    return refuse(t, err, err_len,
                  "expected a storage size below 2^63 bytes (an int64 index) but found " +
                      std::to_string(size.bytes) + " bytes (LAY-10)");
  }
  if (kBug == DLC_BUG_reject_valid && tensor->ndim > 1) {
    return refuse(t, err, err_len, "only 1-D tensors are supported");
  }
  // The four below refuse or misread valid tensors that the peers' tests exercise: a size-0
  // array, an extent-1 axis whose stride is not the compact one, a broadcast axis, a 0-d array
  // with NULL shape. Only their plugins look (every other import stays as it was).
  if constexpr (kBug == DLC_BUG_refuses_zero_size) {
    if (has_zero_extent(*tensor)) {
      return refuse(t, err, err_len, "size-0 tensors are not supported");
    }
  }
  if constexpr (kBug == DLC_BUG_refuses_unit_axis_stride) {
    if (has_odd_unit_stride(*tensor)) {
      return refuse(t, err, err_len, "expected compact strides on extent-1 axes");
    }
  }
  if constexpr (kBug == DLC_BUG_refuses_zero_strides) {
    if (has_broadcast_axis(*tensor)) {
      return refuse(t, err, err_len, "zero strides are not supported");
    }
  }
  if constexpr (kBug == DLC_BUG_refuses_null_manager_ctx) {
    // dlpack.h: manager_ctx "can also be NULL"; only the deleter reads it.
    void* ctx = t.kind == DLC_STRUCT_LEGACY ? static_cast<DLManagedTensor*>(t.pointer)->manager_ctx
                                            : versioned_ctx(t);
    if (ctx == nullptr) return refuse(t, err, err_len, "expected a manager_ctx but found NULL");
  }
  if ((kBug == DLC_BUG_trusts_null_strides && tensor->ndim > 0) ||
      (kBug == DLC_BUG_reads_scalar_strides && tensor->ndim == 0)) {
    // Reads strides[0] unchecked: before DLPack 1.2 strides may be NULL (compact row-major), and
    // at ndim 0 they may be NULL in any version. asm, as below, to fault in every build.
    int64_t first = 0;
    asm volatile("movq (%1), %0" : "=r"(first) : "r"(tensor->strides) : "memory");
    obs->strides[0] = first;
  }
  if (kBug == DLC_BUG_reads_null_shape && tensor->ndim == 0) {
    // NULL is allowed at ndim 0. The read is asm, so that it faults in every build (UBSan would
    // report a load of NULL first in a sanitized one, and the matrix would name it two ways).
    int64_t first = 0;
    asm volatile("movq (%1), %0" : "=r"(first) : "r"(tensor->shape) : "memory");
    obs->shape[0] = first;
  }
  for (int i = 0; i < tensor->ndim && i < 32; ++i) {
    obs->shape[i] = tensor->shape[i];
    if (tensor->strides != nullptr) obs->strides[i] = tensor->strides[i];
  }

  // 4. Data: only host memory is read (DEV-3).
  if (device != 1)
    return refuse(
        t, err, err_len,
        "expected a CPU tensor but found device type " + std::to_string(device) + " (DEV-3)");
  const bool empty = verdict.observation.elements_read == 0 && tensor->data == nullptr;
  if (!empty && !digest(*tensor, flags, obs)) {
    return refuse(t, err, err_len, "cannot walk this tensor's geometry (LAY-10)");
  }
  if (empty) obs->digest = dlc_digest_init();
  if (kBug == DLC_BUG_write_read_only && tensor->data != nullptr && obs->elements_read > 0) {
    auto* first = static_cast<volatile uint8_t*>(tensor->data) + tensor->byte_offset;
    *first = *first;  // "normalises" in place
  }
  if (kBug == DLC_BUG_early_delete || kBug == DLC_BUG_double_delete) call_deleter(t);
  if (!t.taken) {  // the untaken kind takes it now that the import succeeded (LIFE-1)
    handoff->name = used;
    t.taken = true;
  }
  return DLC_OK;
}

void release(void*) {
  Imported& t = g_imported;
  if (t.pointer == nullptr) return;
  if (kBug == DLC_BUG_early_delete) {
    volatile int64_t ndim = tensor_of(t)->ndim;  // touches the struct after its deleter ran
    (void)ndim;
  }
  if (kBug == DLC_BUG_frees_unowned && !t.deleted) {
    // Frees the producer's manager_ctx itself (LIFE-5: it is the producer's to free).
    void* ctx = t.kind == DLC_STRUCT_LEGACY ? static_cast<DLManagedTensor*>(t.pointer)->manager_ctx
                                            : versioned_ctx(t);
    std::free(ctx);
  }
  if (kBug == DLC_BUG_frees_shape && !t.deleted) {
    // Frees arrays the producer owns (LIFE-5: only the deleter releases them).
    std::free(tensor_of(t)->shape);
    std::free(tensor_of(t)->strides);
  }
  if (kBug == DLC_BUG_shared_ctx_double_free && !t.deleted) {
    // Keeps a copy of the managed struct as a "view" that shares manager_ctx, and deletes both
    // (LIFE-3: one deleter call per struct the producer made).
    if (t.kind == DLC_STRUCT_LEGACY) {
      DLManagedTensor view = *static_cast<DLManagedTensor*>(t.pointer);
      call_deleter(t);
      if (view.deleter != nullptr) view.deleter(&view);
    } else {
#if DLC_HDR_MAJOR >= 1
      struct DLManagedTensorVersioned view =
          *static_cast<struct DLManagedTensorVersioned*>(t.pointer);
      call_deleter(t);
      if (view.deleter != nullptr) view.deleter(&view);
#endif
    }
  }
  if (!t.deleted && kBug != DLC_BUG_no_delete) call_deleter(t);
  if (kBug == DLC_BUG_double_delete) {
    // The classic double free: the deleter as read before the first call, called once more.
    if (t.kind == DLC_STRUCT_LEGACY && g_cached_legacy_deleter != nullptr) {
      g_cached_legacy_deleter(static_cast<DLManagedTensor*>(t.pointer));
    }
#if DLC_HDR_MAJOR >= 1
    if (t.kind == DLC_STRUCT_VERSIONED && g_cached_versioned_deleter != nullptr) {
      g_cached_versioned_deleter(static_cast<struct DLManagedTensorVersioned*>(t.pointer));
    }
#endif
  }
  g_imported = Imported{};
}

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    DLC_PLUGIN_NAME,
    DLC_PLUGIN_DESCRIPTION,
    DLC_ROLE_CONSUMER,
    {DLC_HDR_MAJOR, DLC_HDR_MINOR},
    kVersioned ? 1 : 0,
    {kVersioned ? uint32_t{DLC_HDR_MAJOR} : 0u, kVersioned ? uint32_t{DLC_HDR_MINOR} : 0u},
    nullptr,
    nullptr, nullptr, nullptr, consume, release,  // create destroy produce consume release
    &dlc_mock::kMockConsumerProfile,
    nullptr,  // available: always
    nullptr,  // ask: no stream, no device
};

}  // namespace

DLC_EXPORT_PLUGIN(kPlugin)
