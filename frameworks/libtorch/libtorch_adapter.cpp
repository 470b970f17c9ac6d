// A dlconform consumer and producer plugin around PyTorch's own C++ DLPack code: at::fromDLPack
// imports, at::toDLPack exports. Built against the libtorch it finds (Debian's libtorch-dev 1.13
// here, torch's wheel on the GPU machine), it puts the C++ importer that every torch.from_dlpack
// goes through into the matrix and under the fuzzers, uninstrumented, caught by guard pages.
//
// ATen carries its own copy of the DLPack header (v0.6 in 1.13, legacy structs only), so this
// plugin speaks "dltensor" capsules and never asks for max_version.
#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

#include <cstring>
#include <string>

#include "adapter_support.hpp"
#include "dlconform/plugin.h"

namespace {

void set_error(char* err, size_t len, const std::string& what) {
  if (len == 0) return;
  std::snprintf(err, len, "%s", what.c_str());
}

// The imported tensor, kept until release(): its storage's deleter is the producer's (LIFE-3).
at::Tensor* g_imported = nullptr;

// at::fromDLPack gets a proxy of the producer's struct whose deleter forwards to the producer's
// and says so: libtorch 1.13 can call it while it throws (a device it cannot hold, such as
// OpenCL, fails after the storage took the deleter), and then it is not ours to call again.
// The proxy is freed when it forwards, so a read of it after that is ASan's use-after-free.
struct Proxy {
  DLManagedTensor tensor;
  DLManagedTensor* producers;
};
bool g_proxy_released = false;

void forward_deleter(DLManagedTensor* self) {
  auto* proxy = reinterpret_cast<Proxy*>(self);
  DLManagedTensor* producers = proxy->producers;
  delete proxy;
  g_proxy_released = true;
  if (producers->deleter != nullptr) producers->deleter(producers);
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (handoff == nullptr || handoff->pointer == nullptr || handoff->name == nullptr ||
      std::strcmp(handoff->name, "dltensor") != 0) {
    set_error(err, err_len, "expected a dltensor capsule (at::fromDLPack takes DLManagedTensor)");
    return DLC_ERR_BUFFER;
  }
  // The library's contract on a failed call: not taken. torch.from_dlpack's C++ entry point
  // (tensor_fromDLPack, torch/csrc/utils/tensor_new.cpp) renames the capsule only after
  // at::fromDLPack returns, so a refused capsule stays its producer's; a deleter call inside the
  // failed call is then a double free (capsule-not-renamed).
  auto* managed = static_cast<DLManagedTensor*>(handoff->pointer);
  auto* proxy = new Proxy{*managed, managed};
  proxy->tensor.manager_ctx = nullptr;
  proxy->tensor.deleter = forward_deleter;
  g_proxy_released = false;
  try {
    at::Tensor t = at::fromDLPack(&proxy->tensor);
    handoff->name = "used_dltensor";  // taken (LIFE-1)
    obs->struct_kind = DLC_STRUCT_LEGACY;
    obs->ndim = static_cast<int32_t>(t.dim());
    obs->device = {managed->dl_tensor.device.device_type, managed->dl_tensor.device.device_id};
    obs->dtype = {managed->dl_tensor.dtype.code, managed->dl_tensor.dtype.bits,
                  managed->dl_tensor.dtype.lanes};
    obs->byte_offset = managed->dl_tensor.byte_offset;
    obs->has_strides = managed->dl_tensor.strides != nullptr;
    for (int64_t i = 0; i < t.dim() && i < 32; ++i) {
      obs->shape[i] = t.size(i);
      obs->strides[i] = t.stride(i);
    }
    if (!t.device().is_cpu()) {
      obs->data_not_read = 1;
    } else {
      // The values as torch sees them, in logical order.
      const at::Tensor dense = t.contiguous();
      const size_t element = dense.element_size();
      const auto* bytes = static_cast<const uint8_t*>(dense.data_ptr());
      uint64_t digest = dlc_digest_init();
      for (int64_t k = 0; k < dense.numel(); ++k) {
        digest = dlc_digest_update(digest, bytes + k * element, element);
      }
      obs->digest = digest;
      obs->elements_read = static_cast<uint64_t>(dense.numel());
    }
    g_imported = new at::Tensor(std::move(t));
    return DLC_OK;
  } catch (const std::exception& e) {
    // at::fromDLPack refused: the producer keeps its tensor (not renamed). The proxy is ours to
    // free unless libtorch's storage called its deleter while the exception unwound, which
    // forwarded to the producer's: LIFE-1 and LIFE-3 judge that call.
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    set_error(err, err_len, "at::fromDLPack refused: " + what);
    if (!g_proxy_released) delete proxy;
    return DLC_ERR_BUFFER;
  }
}

void release(void*) noexcept {
  delete g_imported;  // torch's storage deleter calls the producer's deleter (LIFE-3)
  g_imported = nullptr;
}

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "libtorch-fromDLPack",
    "PyTorch's C++ at::fromDLPack (libtorch " TORCH_VERSION ")",
    DLC_ROLE_CONSUMER,
    {0, DLPACK_VERSION / 10},
    0,
    {0, 0},
    nullptr,
    nullptr, nullptr, nullptr, consume, release, nullptr,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask (plugin ABI 3)
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
