// Producer and consumer of one design variant of the versioning RFC, compiled once per variant
// header (abi/variants/<name>). Only raw, type-erased exchanges apply to them: the point is to show
// which layouts an old or a new reader survives with no negotiation at all.
#include <cstring>
#include <string>

#include "mock_common.hpp"
#include "validate.h"

#if !defined(DLCONFORM_VARIANT)
#error "variant_plugin.cpp needs a design-variant header (abi/variants/<name>)"
#endif

namespace {

using dlc_mock::g_host;
using dlc_mock::Owned;
using dlc_mock::set_error;

// The exchanged pointer, in each design.
#if defined(DLCONFORM_VARIANT_A2)
DLManagedTensorWrapped* wrapper_of(DLManagedTensor* legacy) {
  return reinterpret_cast<DLManagedTensorWrapped*>(reinterpret_cast<char*>(legacy) -
                                                   DLCONFORM_A2_WRAPPER_OFFSET);
}
#endif

// Where a consumer of this design finds the version. For A2 and A3 this is where an old
// producer's struct has nothing of the kind.
DLPackVersion read_version(DLManagedTensor* m, bool* present) {
  *present = true;
#if defined(DLCONFORM_VARIANT_APPEND_DLTENSOR)
  return m->dl_tensor.version;
#elif defined(DLCONFORM_VARIANT_A2)
  return wrapper_of(m)->version;
#elif defined(DLCONFORM_VARIANT_A3)
  if (m->magic != DLCONFORM_A3_MAGIC) {
    *present = false;
    return DLPackVersion{0, 0};
  }
  return m->version;
#else
  return m->version;
#endif
}

void deleter(DLManagedTensor* self) {
  if (g_host->deleter_called(g_host->ctx, self) != 0) return;
  dlc_mock::release_owned(static_cast<Owned*>(self->manager_ctx));
#if defined(DLCONFORM_VARIANT_A2)
  g_host->free(g_host->ctx, wrapper_of(self));
#else
  g_host->free(g_host->ctx, self);
#endif
}

int produce(void*, const DLCRequest* request, DLCHandoff* out, char* err, size_t err_len) {
  if (!request->raw) {
    set_error(err, err_len, "a design variant only exchanges raw pointers");
    return DLC_ERR_BUFFER;
  }
  if (request->tensor.options & (DLC_SPEC_READ_ONLY | DLC_SPEC_SUBBYTE_PADDED)) {
    set_error(err, err_len, "design variants carry no flags this harness can set");
    return DLC_ERR_BUFFER;
  }
  Owned* owned = dlc_mock::new_owned();
  if (owned == nullptr) return DLC_ERR_INTERNAL;
#if defined(DLCONFORM_VARIANT_A2)
  auto* wrapped = static_cast<DLManagedTensorWrapped*>(
      g_host->alloc(g_host->ctx, sizeof(DLManagedTensorWrapped), 8, DLC_ALLOC_STRUCT));
  if (wrapped == nullptr) return DLC_ERR_INTERNAL;
  wrapped->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  wrapped->flags = 0;
  DLManagedTensor* m = &wrapped->legacy;
#else
  auto* m = static_cast<DLManagedTensor*>(
      g_host->alloc(g_host->ctx, sizeof(DLManagedTensor), 8, DLC_ALLOC_STRUCT));
  if (m == nullptr) return DLC_ERR_INTERNAL;
#endif
  const int rc =
      dlc_mock::build_dltensor(request->tensor, &m->dl_tensor, owned, true, err, err_len);
  if (rc != DLC_OK) return rc;
  m->manager_ctx = owned;
  m->deleter = (request->tensor.options & DLC_SPEC_NULL_DELETER) ? nullptr : deleter;
#if defined(DLCONFORM_VARIANT_APPEND_DLTENSOR)
  m->dl_tensor.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
#elif defined(DLCONFORM_VARIANT_A0) || defined(DLCONFORM_VARIANT_A1)
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
#elif defined(DLCONFORM_VARIANT_A3)
  m->magic = DLCONFORM_A3_MAGIC;
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
#endif
#if defined(DLCONFORM_VARIANT_A1)
  m->flags = 0;
#endif
  g_host->produced(g_host->ctx, m);
  out->name = nullptr;
  out->pointer = m;
  return DLC_OK;
}

DLManagedTensor* g_imported = nullptr;

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) {
  g_imported = static_cast<DLManagedTensor*>(handoff->pointer);
  DLManagedTensor* m = g_imported;
  bool present = false;
  const DLPackVersion version = read_version(m, &present);
  if (!present || version.major != DLPACK_MAJOR_VERSION) {
    const std::string why =
        present ? "expected DLPack major 1 but found " +
                      (version.major < 1000 ? std::to_string(version.major)
                                            : std::string("a value that is no version (pointer bits?)")) +
                      " (VER-2)"
                : std::string("no version tag: not a tensor of this design");
    set_error(err, err_len, why.c_str());
    return DLC_ERR_BUFFER;  // release() still deletes
  }
  obs->struct_kind = DLC_STRUCT_VERSIONED;
  obs->version = {version.major, version.minor};
  // The DLTensor fields every design shares, checked and digested by the shared validator.
  dlc::abi::ManagedTensorVersioned view{};
  view.version = {1, 0};
  std::memcpy(&view.dl_tensor, &m->dl_tensor, sizeof view.dl_tensor);
  dlc::ValidateOptions options;
  options.level = dlc::Level::full;
  options.consumer_version = {1, 0};
  options.max_ndim = 16;
  dlc::ValidateResult r;
  dlc::validate(DLCHandoff{"dltensor_versioned", &view}, options, &r);
  if (const dlc::Violation* v = r.first_must()) {
    set_error(err, err_len, (std::string(v->message) + " (" + dlc::id_of(v->rule) + ")").c_str());
    return DLC_ERR_BUFFER;
  }
  const int32_t struct_kind = obs->struct_kind;
  *obs = r.observation;
  obs->struct_kind = struct_kind;
  obs->version = {version.major, version.minor};
  if (obs->device.device_type != 1) {
    set_error(err, err_len, "expected a CPU tensor (DEV-3)");
    return DLC_ERR_BUFFER;
  }
  return DLC_OK;
}

void release(void*) {
  if (g_imported != nullptr && g_imported->deleter != nullptr) g_imported->deleter(g_imported);
  g_imported = nullptr;
}

int create(const DLCHost* host, void** state, char*, size_t) {
  g_host = host;
  *state = nullptr;
  return DLC_OK;
}

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "variant-" DLCONFORM_VARIANT,
    "A design variant of the DLPack versioning RFC; raw exchanges only",
    DLC_ROLE_PRODUCER | DLC_ROLE_CONSUMER,
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    1,
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    "variant-" DLCONFORM_VARIANT,
    create,
    nullptr,
    produce,
    consume,
    release,
    &dlc_mock::kMockProfile,
    nullptr,
    nullptr,
};

}  // namespace

DLC_EXPORT_PLUGIN(kPlugin)
