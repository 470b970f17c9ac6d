// Mock producers, compiled once per DLPack header they apply to. The macro DLC_PRODUCER picks
// the behaviour:
//   legacy     - exports DLManagedTensor only; __dlpack__ has no max_version (TypeError, VER-5).
//                Built against a >= 1.0 header it is the soft-updated S2 producer.
//   versioned  - negotiates (VER-4): legacy struct for a legacy caller or a 0.x max_version,
//                DLManagedTensorVersioned with its own version otherwise.
//   future_major - a producer of DLPack 2.0; only version, manager_ctx and deleter exist (LAY-3):
//                the struct ends there, against a guard page. It serves callers of major 2 and
//                refuses every other one with BufferError (VER-4); raw exchanges hand its struct
//                to any reader, which must refuse it touching only the deleter (VER-2).
//   future_minor - claims version 1.99 with a v1.3 layout (VER-3).
// Both declare the version they emit in their profile (VER-1).
// Planted bugs (DLC_BUG, declared in harness/plan/planted_bugs.tsv): null_strides (emits NULL
// strides at >= 1.2, LAY-5), versioned_to_legacy (hands a versioned struct to a legacy caller,
// VER-4), no_is_copied (copies for copy=True but does not set IS_COPIED, FLAG-2) and
// ignores_max_version (a major-2 producer that answers every caller with its 2.0 struct, VER-4).
#include "mock_common.hpp"

#define DLC_KIND_legacy 1
#define DLC_KIND_versioned 2
#define DLC_KIND_future_major 3
#define DLC_KIND_future_minor 4
#define DLC_CAT2(a, b) a##b
#define DLC_CAT(a, b) DLC_CAT2(a, b)
#define DLC_KIND DLC_CAT(DLC_KIND_, DLC_PRODUCER)

#define DLC_BUG_none 0
#define DLC_BUG_null_strides 1
#define DLC_BUG_versioned_to_legacy 2
#define DLC_BUG_no_is_copied 3
#define DLC_BUG_ignores_max_version 4
#ifndef DLC_BUG
#define DLC_BUG none
#endif
#define DLC_BUG_ID DLC_CAT(DLC_BUG_, DLC_BUG)

#if DLC_KIND != DLC_KIND_legacy && DLC_HDR_MAJOR < 1
#error "versioned mock producers need a DLPack >= 1.0 header"
#endif

namespace {

using dlc_mock::g_host;
using dlc_mock::Owned;
using dlc_mock::set_error;

void legacy_deleter(DLManagedTensor* self) {
  if (g_host->deleter_called(g_host->ctx, self) != 0) return;  // ledger recorded a double call
  dlc_mock::release_owned(dlc_mock::owned_of(self, self->manager_ctx));
  g_host->free(g_host->ctx, self);
}

[[maybe_unused]] int make_legacy(const DLCRequest& request, DLCHandoff* out, char* err,
                                 size_t err_len) {
  if (request.tensor.options & DLC_SPEC_READ_ONLY) {
    // A legacy struct cannot say read-only (FLAG-1): refuse rather than hand out writable memory.
    set_error(err, err_len, "cannot export a read-only tensor as legacy DLManagedTensor (FLAG-1)");
    return DLC_ERR_BUFFER;
  }
  if (request.tensor.options & DLC_SPEC_SUBBYTE_PADDED) {
    // Nor padded sub-byte elements (FLAG-3): a legacy consumer would read them as packed.
    set_error(err, err_len,
              "cannot export padded sub-byte elements as legacy DLManagedTensor (FLAG-3)");
    return DLC_ERR_BUFFER;
  }
  Owned* owned = dlc_mock::new_owned();
  auto* managed = static_cast<DLManagedTensor*>(
      g_host->alloc(g_host->ctx, sizeof(DLManagedTensor), 8, DLC_ALLOC_STRUCT));
  if (owned == nullptr || managed == nullptr) return DLC_ERR_INTERNAL;
  const bool null_strides_ok = !(DLC_HDR_MAJOR == 1 && DLC_HDR_MINOR >= 2);
  int rc = dlc_mock::build_dltensor(request.tensor, &managed->dl_tensor, owned, null_strides_ok,
                                    err, err_len);
  if (rc != DLC_OK) return rc;
  if (!dlc_mock::set_context(request.tensor, managed, owned, &managed->manager_ctx)) {
    set_error(err, err_len, "too many tensors with a NULL manager_ctx alive");
    return DLC_ERR_INTERNAL;
  }
  managed->deleter = (request.tensor.options & DLC_SPEC_NULL_DELETER) ? nullptr : legacy_deleter;
  g_host->produced(g_host->ctx, managed);
  out->name = request.raw ? nullptr : "dltensor";
  out->pointer = managed;
  return DLC_OK;
}

#if DLC_KIND != DLC_KIND_legacy

#if DLC_KIND == DLC_KIND_future_major
constexpr uint32_t kMajor = 2, kMinor = 0;
#elif DLC_KIND == DLC_KIND_future_minor
constexpr uint32_t kMajor = 1, kMinor = 99;
#else
constexpr uint32_t kMajor = DLC_HDR_MAJOR, kMinor = DLC_HDR_MINOR;
#endif

void versioned_deleter(struct DLManagedTensorVersioned* self) {
  if (g_host->deleter_called(g_host->ctx, self) != 0) return;
  dlc_mock::release_owned(dlc_mock::owned_of(self, self->manager_ctx));
  g_host->free(g_host->ctx, self);
}

int make_versioned(const DLCRequest& request, DLCHandoff* out, char* err, size_t err_len) {
  Owned* owned = dlc_mock::new_owned();
  if (owned == nullptr) return DLC_ERR_INTERNAL;
#if DLC_KIND == DLC_KIND_future_major
  // Only the frozen prefix (version, manager_ctx, deleter) is meaningful in another major
  // (VER-2); everything after it is a guard page, so any consumer that reads on faults.
  const size_t struct_bytes = offsetof(struct DLManagedTensorVersioned, flags);
#else
  const size_t struct_bytes = sizeof(struct DLManagedTensorVersioned);
#endif
  auto* managed = static_cast<struct DLManagedTensorVersioned*>(
      g_host->alloc(g_host->ctx, struct_bytes, 8, DLC_ALLOC_STRUCT));
  if (managed == nullptr) return DLC_ERR_INTERNAL;
  managed->version.major = kMajor;
  managed->version.minor = kMinor;
  if (!dlc_mock::set_context(request.tensor, managed, owned, &managed->manager_ctx)) {
    set_error(err, err_len, "too many tensors with a NULL manager_ctx alive");
    return DLC_ERR_INTERNAL;
  }
  managed->deleter = (request.tensor.options & DLC_SPEC_NULL_DELETER) ? nullptr : versioned_deleter;
#if DLC_KIND != DLC_KIND_future_major
  const bool null_strides_ok = DLC_BUG_ID == DLC_BUG_null_strides || (kMajor == 1 && kMinor < 2);
  int rc = dlc_mock::build_dltensor(request.tensor, &managed->dl_tensor, owned, null_strides_ok,
                                    err, err_len);
  if (rc != DLC_OK) return rc;
#if DLC_BUG_ID == DLC_BUG_null_strides
  if (managed->dl_tensor.ndim != 0) managed->dl_tensor.strides = nullptr;
#endif
  uint64_t flags = request.tensor.extra_flags;
  if (request.tensor.options & DLC_SPEC_READ_ONLY) flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  if (request.copy == 1 && DLC_BUG_ID != DLC_BUG_no_is_copied) {
    flags |= DLPACK_FLAG_BITMASK_IS_COPIED;  // STRM-4
  }
#if defined(DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED)
  if (request.tensor.options & DLC_SPEC_SUBBYTE_PADDED) {
    flags |= DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED;
  }
#else
  if (request.tensor.options & DLC_SPEC_SUBBYTE_PADDED) {
    // This header has no padded flag (FLAG-3 is v1.1): refuse rather than mislabel the layout.
    dlc_mock::release_owned(dlc_mock::owned_of(managed, managed->manager_ctx));
    g_host->free(g_host->ctx, managed);
    set_error(err, err_len, "DLPack < 1.1 cannot say IS_SUBBYTE_TYPE_PADDED (FLAG-3)");
    return DLC_ERR_BUFFER;
  }
#endif
  managed->flags = flags;
#else
  (void)err;
  (void)err_len;
#endif
  g_host->produced(g_host->ctx, managed);
  out->name = request.raw ? nullptr : "dltensor_versioned";
  out->pointer = managed;
  return DLC_OK;
}
#endif

int produce(void*, const DLCRequest* request, DLCHandoff* out, char* err, size_t err_len) {
  if (request == nullptr || out == nullptr) return DLC_ERR_INVALID;
#if DLC_KIND == DLC_KIND_legacy
  if (dlc_mock::asks_new_keywords(*request)) {
    // Old __dlpack__(stream=None) signature: an unknown keyword is a TypeError (VER-5).
    set_error(err, err_len, "__dlpack__() got an unexpected keyword argument 'max_version'");
    return DLC_ERR_TYPE;
  }
  return make_legacy(*request, out, err, err_len);
#else
  if (request->raw) return make_versioned(*request, out, err, err_len);
  const bool legacy_caller = !request->has_max_version || request->max_version.major < 1;
#if DLC_BUG_ID == DLC_BUG_versioned_to_legacy || DLC_BUG_ID == DLC_BUG_ignores_max_version
  (void)legacy_caller;
  return make_versioned(*request, out, err, err_len);
#else
  if (legacy_caller && kMajor == 1) return make_legacy(*request, out, err, err_len);
  if (legacy_caller || request->max_version.major < kMajor) {
    // Nothing of this major is readable by an older caller, and no legacy struct is kept.
    set_error(err, err_len, "cannot export a tensor of DLPack 2 to a caller of an older major (VER-4)");
    return DLC_ERR_BUFFER;
  }
  return make_versioned(*request, out, err, err_len);
#endif
#endif
}

int create(const DLCHost* host, void** state, char*, size_t) {
  g_host = host;
  *state = nullptr;
  return DLC_OK;
}

#define DLC_STR2(x) #x
#define DLC_STR(x) DLC_STR2(x)

#if DLC_KIND == DLC_KIND_legacy
constexpr DLCVersion kEmits{0, 0};
#else
constexpr DLCVersion kEmits{kMajor, kMinor};
#endif
constexpr DLCProfile kProfile = [] {
  DLCProfile p = dlc_mock::kMockProfile;
  p.emits_version = kEmits;
  return p;
}();

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    DLC_PLUGIN_NAME,
    DLC_PLUGIN_DESCRIPTION,
    DLC_ROLE_PRODUCER,
    {DLC_HDR_MAJOR, DLC_HDR_MINOR},
    0,
    {0, 0},
#if DLC_KIND == DLC_KIND_legacy
    "legacy",
#else
    "versioned",
#endif
    create,
    nullptr,
    produce,
    nullptr,
    nullptr,
    &kProfile,
    nullptr,  // available: always
    nullptr,  // ask: producers only
};

}  // namespace

DLC_EXPORT_PLUGIN(kPlugin)
