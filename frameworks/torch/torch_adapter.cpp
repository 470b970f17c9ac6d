// dlconform adapter plugin around PyTorch's own C++ DLPack converter (ATen/DLConvertor.h), built
// against the torch wheel's libtorch_cpu (2.13 here, vendoring DLPack 1.3 in ATen/dlpack.h).
//
// One source, two plugins, picked by -DDLC_TORCH_VERSIONED=0|1:
//   1: "torch-fromDLPackVersioned"
//        consumer: asks max_version 1.3; a "dltensor_versioned" goes to at::fromDLPackVersioned,
//                  a "dltensor" (a legacy producer's answer) to at::fromDLPack, exactly as torch's
//                  Python torch._C._from_dlpack dispatches on the capsule name.
//        producer: at::toDLPackVersioned for a caller that asks max_version >= 1.0, at::toDLPack
//                  for a legacy caller (the negotiation of torch.Tensor.__dlpack__).
//   0: "torch-fromDLPack"
//        consumer: legacy only, at::fromDLPack on "dltensor"; never asks max_version.
//        producer: at::toDLPack only; a request carrying max_version / dl_device / copy is refused
//                  with DLC_ERR_TYPE, as an old __dlpack__(stream=None) raises TypeError (VER-5),
//                  so that the caller retries as a legacy caller.
//
// The producer builds the requested tensor with torch itself: at::empty over a storage large
// enough for the byte_offset, the strided span and pad_after, filled byte by byte with the fill
// rule through the logical row-major walk, then viewed with as_strided (torch supports positive,
// zero and overlapping strides, not negative ones). The consumer hands the struct to torch and
// reads back everything (shape, strides, dtype, device, values) from the resulting at::Tensor.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
#include <ATen/dlpack.h>
#include <c10/util/Exception.h>
#include <torch/headeronly/version.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "dlconform/plugin.h"
#include "adapter_support.hpp"

#ifndef DLC_TORCH_VERSIONED
#define DLC_TORCH_VERSIONED 1
#endif

namespace {

constexpr bool kVersioned = DLC_TORCH_VERSIONED != 0;

using dlc_adapter::set_error;

std::string exception_text(const std::exception& e) {
  if (const auto* c10e = dynamic_cast<const c10::Error*>(&e)) return c10e->what_without_backtrace();
  return e.what();
}

// ---------------------------------------------------------------------------------------------
// Consumer
// ---------------------------------------------------------------------------------------------

// The imported tensor, kept alive until release(): its storage's deleter is the producer's.
at::Tensor* g_imported = nullptr;

void observe(const at::Tensor& t, DLCObservation* obs) {
  const DLDataType dt = at::getDLDataType(t);
  obs->dtype = {dt.code, dt.bits, dt.lanes};
  const DLDevice dev = at::torchDeviceToDLDevice(t.device());
  obs->device = {static_cast<int32_t>(dev.device_type), dev.device_id};
  obs->ndim = static_cast<int32_t>(t.dim());
  obs->has_strides = 1;
  for (int64_t i = 0; i < t.dim() && i < DLC_MAX_NDIM; ++i) {
    obs->shape[i] = t.size(i);
    obs->strides[i] = t.stride(i);
  }
  obs->byte_offset = 0;  // torch has no byte_offset: it folds it into the data pointer
  if (!t.device().is_cpu()) {
    obs->data_not_read = 1;
    return;
  }
  // The values as torch sees them: torch's data pointer (storage offset included) walked with
  // torch's own sizes and strides, in logical row-major order. (A t.contiguous() copy would do
  // the same, except that torch's copy kernel rewrites bool bytes other than 0/1 to 1.)
  const int64_t n = t.numel();
  const int64_t element = static_cast<int64_t>(t.element_size());
  if (n > 0 && t.data_ptr() == nullptr) {
    obs->data_not_read = 1;  // torch accepted elements at NULL: nothing there to read
    return;
  }
  uint64_t digest = dlc_digest_init();
  if (n > 0) {
    const int64_t nd = t.dim();
    const auto* origin = static_cast<const uint8_t*>(t.data_ptr());
    std::vector<int64_t> index(static_cast<size_t>(nd), 0);
    const auto sizes = t.sizes();
    const auto strides = t.strides();
    int64_t offset = 0;
    for (int64_t k = 0; k < n; ++k) {
      digest = dlc_digest_update(digest, origin + offset * element, static_cast<size_t>(element));
      for (int64_t d = nd - 1; d >= 0; --d) {
        if (++index[d] < sizes[d]) {
          offset += strides[d];
          break;
        }
        offset -= (sizes[d] - 1) * strides[d];
        index[d] = 0;
      }
    }
  }
  obs->digest = digest;
  obs->elements_read = static_cast<uint64_t>(n);
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  // Which struct: the capsule name, or for a raw exchange the struct this importer asks for.
  bool versioned = kVersioned;
  if (handoff->name != nullptr) {
    if (std::strcmp(handoff->name, "dltensor") == 0) {
      versioned = false;
    } else if (kVersioned && std::strcmp(handoff->name, "dltensor_versioned") == 0) {
      versioned = true;
    } else {
      set_error(err, err_len,
                std::string("expected a ") +
                    (kVersioned ? "dltensor or dltensor_versioned" : "dltensor") +
                    " capsule but found " + handoff->name);
      return DLC_ERR_BUFFER;  // not renamed: the producer keeps it
    }
  }
  // The library's contract on a failed call: not taken. torch's own entry point
  // (tensor_fromDLPack, torch/csrc/utils/tensor_new.cpp) renames the capsule only after
  // at::fromDLPack returns, so a refused capsule stays its producer's, whose destructor deletes
  // it; a deleter call inside the failed call is then a double free (capsule-not-renamed).
  const char* used = versioned ? "used_dltensor_versioned" : "used_dltensor";
  const char* api = versioned ? "at::fromDLPackVersioned" : "at::fromDLPack";
  try {
    at::Tensor t;
    if (versioned) {
      auto* managed = static_cast<DLManagedTensorVersioned*>(handoff->pointer);
      // The version and flags live at the same place in every major: read before importing.
      obs->struct_kind = DLC_STRUCT_VERSIONED;
      obs->version = {managed->version.major, managed->version.minor};
      // Only version, manager_ctx and deleter are readable in a struct of another major (VER-2).
      obs->flags = managed->version.major == DLPACK_MAJOR_VERSION ? managed->flags : 0;
      t = at::fromDLPackVersioned(managed);
    } else {
      auto* managed = static_cast<DLManagedTensor*>(handoff->pointer);
      obs->struct_kind = DLC_STRUCT_LEGACY;
      obs->version = {0, 0};
      obs->flags = 0;
      t = at::fromDLPack(managed);
    }
    // From here the storage owns the struct: taken (LIFE-1), and kept before anything else can
    // throw.
    if (handoff->name != nullptr) handoff->name = used;
    g_imported = new at::Tensor(t);
    observe(*g_imported, obs);
    return DLC_OK;
  } catch (const std::exception& e) {
    // Not renamed: the producer keeps the tensor (the contract above); whether torch called
    // its deleter anyway is what LIFE-1 and LIFE-3 check.
    set_error(err, err_len, std::string(api) + " refused: " + exception_text(e));
    return DLC_ERR_BUFFER;
  } catch (...) {
    set_error(err, err_len, std::string(api) + " refused: unknown exception");
    return DLC_ERR_BUFFER;
  }
}

void release(void*) noexcept {
  try {
    delete g_imported;  // the storage's deleter calls the producer's deleter (LIFE-3)
  } catch (...) {
  }
  g_imported = nullptr;
}

// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------

int make_tensor(const DLCTensorSpec& s, at::Tensor* out, char* err, size_t err_len) {
  if (s.device.device_type != kDLCPU || s.device.device_id != 0) {
    set_error(err, err_len, "expected a CPU tensor (this torch build exports CPU only)");
    return DLC_ERR_BUFFER;
  }
  if (s.ndim < 0 || s.ndim > DLC_MAX_NDIM) {
    set_error(err, err_len, "expected 0 to 32 dimensions but found " + std::to_string(s.ndim));
    return DLC_ERR_INVALID;
  }
  if (s.misalign != 0) {
    set_error(err, err_len, "torch cannot place its storage at a misaligned address");
    return DLC_ERR_BUFFER;
  }
  at::ScalarType st;
  try {
    st = at::toScalarType(DLDataType{s.dtype.code, s.dtype.bits, s.dtype.lanes});
  } catch (const std::exception& e) {
    set_error(err, err_len, "torch has no such dtype: " + exception_text(e));
    return DLC_ERR_BUFFER;
  }
  const uint64_t element = c10::elementSize(st);
  std::vector<int64_t> sizes(s.shape, s.shape + s.ndim);
  dlc_adapter::SpecLayout layout;
  std::string why;
  if (!dlc_adapter::plan_layout(s, "torch", &layout, &why)) {
    set_error(err, err_len, why);
    return DLC_ERR_BUFFER;
  }
  const std::vector<int64_t>& strides = layout.strides;
  const int64_t span = layout.span;
  if (s.byte_offset % element != 0) {
    set_error(err, err_len, "torch's storage offset counts elements: byte_offset " +
                                std::to_string(s.byte_offset) + " is not a multiple of " +
                                std::to_string(element));
    return DLC_ERR_BUFFER;
  }
  const int64_t lead = static_cast<int64_t>(s.byte_offset / element);
  const int64_t tail = static_cast<int64_t>((s.pad_after + element - 1) / element);
  try {
    at::Tensor base = at::empty({lead + span + tail}, at::TensorOptions().dtype(st));
    auto* bytes = static_cast<uint8_t*>(base.data_ptr());
    // Padding bytes get something recognisable rather than garbage.
    const size_t total = static_cast<size_t>((lead + span + tail) * element);
    if (total != 0) std::memset(bytes, 0xA5, total);  // zero-size storage has NULL data
    dlc_adapter::fill_elements(bytes + lead * element, s, layout, element);
    *out = base.as_strided(sizes, strides, lead);
  } catch (const std::exception& e) {
    set_error(err, err_len, "torch could not make the tensor: " + exception_text(e));
    return DLC_ERR_BUFFER;
  }
  return DLC_OK;
}

int produce(void*, const DLCRequest* req, DLCHandoff* out, char* err, size_t err_len) noexcept {
  if (req == nullptr || out == nullptr) return DLC_ERR_INVALID;
  try {
    const bool legacy_caller = dlc_adapter::legacy_caller(*req);
    if (!kVersioned && !req->raw &&
        (req->has_max_version || req->copy != -1 || req->has_dl_device)) {
      set_error(err, err_len, "__dlpack__() got an unexpected keyword argument 'max_version'");
      return DLC_ERR_TYPE;
    }
    if (req->has_dl_device &&
        (req->dl_device.device_type != kDLCPU || req->dl_device.device_id != 0)) {
      set_error(err, err_len, "cannot export a CPU tensor to another device");
      return DLC_ERR_BUFFER;
    }
    if (req->copy == 1) {
      set_error(err, err_len, "copy=True is not supported by this adapter");
      return DLC_ERR_BUFFER;
    }
    if (req->tensor.options & DLC_SPEC_READ_ONLY) {
      set_error(err, err_len, "torch tensors cannot be exported READ_ONLY");
      return DLC_ERR_BUFFER;
    }
    at::Tensor t;
    const int rc = make_tensor(req->tensor, &t, err, err_len);
    if (rc != DLC_OK) return rc;
    // Raw: the native struct of this plugin (versioned for the versioned build).
    const bool versioned = kVersioned && (req->raw || !legacy_caller);
    if (versioned) {
      DLManagedTensorVersioned* m = at::toDLPackVersioned(t);
      out->name = req->raw ? nullptr : "dltensor_versioned";
      out->pointer = m;
    } else {
      DLManagedTensor* m = at::toDLPack(t);
      out->name = req->raw ? nullptr : "dltensor";
      out->pointer = m;
    }
    return DLC_OK;
  } catch (const std::exception& e) {
    set_error(err, err_len, std::string("at::toDLPack failed: ") + exception_text(e));
    return DLC_ERR_BUFFER;
  } catch (...) {
    set_error(err, err_len, "at::toDLPack failed: unknown exception");
    return DLC_ERR_BUFFER;
  }
}

// Runs every torch path the slots use once, so that torch's lazily built thread-local state
// (allocated once per thread, never freed) is not counted against the first produce() or
// consume() of a worker as a leak.
int create(const DLCHost*, void** state, char* err, size_t err_len) noexcept {
  *state = nullptr;
  try {
    at::Tensor base = at::arange(12, at::TensorOptions().dtype(at::kFloat));
    at::Tensor view = base.as_strided({3, 2}, {1, 3}, 0);
    DLManagedTensor* legacy = at::toDLPack(view);
    at::Tensor back = at::fromDLPack(legacy);
    (void)back.contiguous();
    (void)at::getDLDataType(back);
    (void)at::torchDeviceToDLDevice(back.device());
    back = at::Tensor();
    DLManagedTensorVersioned* versioned = at::toDLPackVersioned(view);
    at::Tensor back2 = at::fromDLPackVersioned(versioned);
    back2 = at::Tensor();
    try {
      (void)at::toScalarType(DLDataType{kDLOpaqueHandle, 64, 1});
    } catch (const std::exception& e) {
      (void)exception_text(e);
    }
  } catch (const std::exception& e) {
    set_error(err, err_len, "torch warm-up failed: " + exception_text(e));
    return DLC_ERR_INTERNAL;
  }
  return DLC_OK;
}

// ---------------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------------

constexpr DLCDtype kDtypes[] = {
    {kDLInt, 8, 1},     {kDLInt, 16, 1},     {kDLInt, 32, 1},   {kDLInt, 64, 1},
    {kDLUInt, 8, 1},    {kDLUInt, 16, 1},    {kDLUInt, 32, 1},  {kDLUInt, 64, 1},
    {kDLFloat, 16, 1},  {kDLBfloat, 16, 1},  {kDLFloat, 32, 1}, {kDLFloat, 64, 1},
    {kDLComplex, 64, 1}, {kDLComplex, 128, 1}, {kDLBool, 8, 1},
};
constexpr int32_t kDevices[] = {kDLCPU};

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), kDtypes, std::size(kDtypes), kDevices, std::size(kDevices),
    DLC_STRIDES_POSITIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE,
    8,
    {0, 0},
};

#define DLC_TORCH_DESCRIPTION(api) \
  "PyTorch's C++ " api " (ATen/DLConvertor.h, libtorch " TORCH_VERSION ")"

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    kVersioned ? "torch-fromDLPackVersioned" : "torch-fromDLPack",
    kVersioned ? DLC_TORCH_DESCRIPTION("at::fromDLPackVersioned / at::toDLPackVersioned")
               : DLC_TORCH_DESCRIPTION("at::fromDLPack / at::toDLPack, legacy DLPack only"),
    DLC_ROLE_CONSUMER | DLC_ROLE_PRODUCER,
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    kVersioned ? 1 : 0,
    kVersioned ? DLCVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION} : DLCVersion{0, 0},
    kVersioned ? "versioned" : "legacy",
    create, nullptr, produce, consume, release, &kProfile,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask (plugin ABI 3)
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
