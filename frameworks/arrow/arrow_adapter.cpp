// dlconform adapter plugin around Arrow C++'s DLPack functions (arrow/c/dlpack.h), built against
// the libarrow that ships in the pyarrow wheel (26.x, vendoring DLPack 1.3 in arrow/c/dlpack_abi.h).
//
// One source, two plugins, picked by -DDLC_ARROW_IMPORT=0|1:
//   0: "arrow-ExportTensor" (producer only). The requested tensor is made as an arrow::Tensor:
//      a buffer from Arrow's default memory pool, large enough for byte_offset + the strided span
//      + pad_after, filled with the fill rule, sliced to the window and wrapped with
//      arrow::Tensor::Make and byte strides. A caller asking max_version >= 1.0 gets
//      arrow::dlpack::ExportTensorVersioned (copy as asked; an immutable slice when READ_ONLY is
//      asked, so that Arrow sets the flag itself); a legacy caller gets arrow::dlpack::ExportTensor,
//      or DLC_ERR_BUFFER with Arrow's own message when that refuses. Arrow tensors have no
//      negative strides and no bool / bf16 / complex element types.
//   1: "arrow-ImportTensorVersioned" (consumer only): arrow::dlpack::ImportTensorVersioned on a
//      "dltensor_versioned" (Arrow has no importer for the legacy struct: a "dltensor" is refused
//      without being taken), asking max_version 1.3; the observation is read back from the
//      arrow::Tensor (type, shape, byte strides, raw_data).
#include <arrow/api.h>
#include <arrow/c/dlpack.h>
#include <arrow/util/config.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dlconform/plugin.h"
#include "adapter_support.hpp"

#ifndef DLC_ARROW_IMPORT
#define DLC_ARROW_IMPORT 0
#endif

namespace {

using dlc_adapter::set_error;

constexpr DLCDtype kDtypes[] = {
    {kDLInt, 8, 1},   {kDLInt, 16, 1},   {kDLInt, 32, 1},   {kDLInt, 64, 1},
    {kDLUInt, 8, 1},  {kDLUInt, 16, 1},  {kDLUInt, 32, 1},  {kDLUInt, 64, 1},
    {kDLFloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 64, 1},
};
constexpr int32_t kDevices[] = {kDLCPU};

#if DLC_ARROW_IMPORT
// ---------------------------------------------------------------------------------------------
// Consumer
// ---------------------------------------------------------------------------------------------

std::shared_ptr<arrow::Tensor>* g_imported = nullptr;

// Arrow's element type back to a DLPack dtype (Arrow keeps no DLDataType).
bool to_dl(const arrow::DataType& type, DLCDtype* out) {
  switch (type.id()) {
    case arrow::Type::INT8: *out = {kDLInt, 8, 1}; return true;
    case arrow::Type::INT16: *out = {kDLInt, 16, 1}; return true;
    case arrow::Type::INT32: *out = {kDLInt, 32, 1}; return true;
    case arrow::Type::INT64: *out = {kDLInt, 64, 1}; return true;
    case arrow::Type::UINT8: *out = {kDLUInt, 8, 1}; return true;
    case arrow::Type::UINT16: *out = {kDLUInt, 16, 1}; return true;
    case arrow::Type::UINT32: *out = {kDLUInt, 32, 1}; return true;
    case arrow::Type::UINT64: *out = {kDLUInt, 64, 1}; return true;
    case arrow::Type::HALF_FLOAT: *out = {kDLFloat, 16, 1}; return true;
    case arrow::Type::FLOAT: *out = {kDLFloat, 32, 1}; return true;
    case arrow::Type::DOUBLE: *out = {kDLFloat, 64, 1}; return true;
    default: return false;
  }
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  if (handoff->name != nullptr) {
    if (std::strcmp(handoff->name, "dltensor_versioned") != 0) {
      set_error(err, err_len,
                std::string("expected a dltensor_versioned capsule (Arrow imports only "
                            "DLManagedTensorVersioned) but found ") +
                    handoff->name);
      return DLC_ERR_BUFFER;  // not renamed: the producer keeps it
    }
    // The library's contract on a failed call: taken. ImportTensorVersioned
    // (cpp/src/arrow/c/dlpack.cc) first wraps the struct in CppDLTensor::TakeOwnership, whose
    // destructor calls the deleter on every failure after it, so the capsule is renamed first.
    handoff->name = "used_dltensor_versioned";  // LIFE-1
  }
  auto* m = static_cast<DLManagedTensorVersioned*>(handoff->pointer);
  obs->struct_kind = DLC_STRUCT_VERSIONED;
  obs->version = {m->version.major, m->version.minor};
  try {
    // Only version, manager_ctx and deleter are readable in a struct of another major (VER-2).
    if (m->version.major == DLPACK_MAJOR_VERSION) obs->flags = m->flags;
    arrow::Result<std::shared_ptr<arrow::Tensor>> r = arrow::dlpack::ImportTensorVersioned(m);
    if (!r.ok()) {
      // Whether Arrow called the deleter on refusal is what LIFE-3 checks: not ours to do.
      set_error(err, err_len, "arrow::dlpack::ImportTensorVersioned refused: " + r.status().ToString());
      return DLC_ERR_BUFFER;
    }
    g_imported = new std::shared_ptr<arrow::Tensor>(std::move(r).ValueUnsafe());
    const arrow::Tensor& t = **g_imported;
    DLCDtype dt{};
    if (!to_dl(*t.type(), &dt)) {
      set_error(err, err_len, "imported an arrow::Tensor of type " + t.type()->ToString() +
                                  " that this adapter cannot map back");
      return DLC_ERR_INTERNAL;
    }
    obs->dtype = dt;
    const bool on_cpu = t.data() == nullptr || t.data()->is_cpu();
    arrow::Result<DLDevice> dev = arrow::dlpack::ExportDevice(*g_imported);
    obs->device = dev.ok() ? DLCDevice{static_cast<int32_t>(dev->device_type), dev->device_id}
                           : DLCDevice{kDLCPU, 0};
    obs->ndim = t.ndim();
    obs->has_strides = 1;
    const int64_t element = t.type()->byte_width();
    for (int i = 0; i < t.ndim() && i < DLC_MAX_NDIM; ++i) {
      obs->shape[i] = t.shape()[i];
      obs->strides[i] = t.strides()[i] / element;
    }
    if (!on_cpu) {
      obs->data_not_read = 1;
      return DLC_OK;
    }
    const int64_t n = t.size();
    if (n > 0 && t.raw_data() == nullptr) {
      obs->data_not_read = 1;  // Arrow accepted elements at NULL: nothing there to read
      return DLC_OK;
    }
    uint64_t digest = dlc_digest_init();
    if (n > 0) {
      const uint8_t* origin = t.raw_data();
      std::vector<int64_t> index(static_cast<size_t>(t.ndim()), 0);
      int64_t offset = 0;  // bytes
      for (int64_t k = 0; k < n; ++k) {
        digest = dlc_digest_update(digest, origin + offset, static_cast<size_t>(element));
        for (int d = t.ndim() - 1; d >= 0; --d) {
          if (++index[d] < t.shape()[d]) {
            offset += t.strides()[d];
            break;
          }
          offset -= (t.shape()[d] - 1) * t.strides()[d];
          index[d] = 0;
        }
      }
    }
    obs->digest = digest;
    obs->elements_read = static_cast<uint64_t>(n);
    return DLC_OK;
  } catch (const std::exception& e) {
    set_error(err, err_len, std::string("arrow::dlpack::ImportTensorVersioned threw: ") + e.what());
    return DLC_ERR_BUFFER;
  } catch (...) {
    set_error(err, err_len, "arrow::dlpack::ImportTensorVersioned threw");
    return DLC_ERR_BUFFER;
  }
}

void release(void*) noexcept {
  delete g_imported;  // the last reference runs the producer's deleter (LIFE-3)
  g_imported = nullptr;
}

#else
// ---------------------------------------------------------------------------------------------
// Producer
// ---------------------------------------------------------------------------------------------

std::shared_ptr<arrow::DataType> to_arrow(DLCDtype d) {
  if (d.lanes != 1) return nullptr;
  switch (d.code) {
    case kDLInt:
      switch (d.bits) {
        case 8: return arrow::int8();
        case 16: return arrow::int16();
        case 32: return arrow::int32();
        case 64: return arrow::int64();
      }
      break;
    case kDLUInt:
      switch (d.bits) {
        case 8: return arrow::uint8();
        case 16: return arrow::uint16();
        case 32: return arrow::uint32();
        case 64: return arrow::uint64();
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16: return arrow::float16();
        case 32: return arrow::float32();
        case 64: return arrow::float64();
      }
      break;
  }
  return nullptr;
}

int make_tensor(const DLCTensorSpec& s, std::shared_ptr<arrow::Tensor>* out, char* err,
                size_t err_len) {
  if (s.device.device_type != kDLCPU || s.device.device_id != 0) {
    set_error(err, err_len, "this adapter makes CPU tensors only");
    return DLC_ERR_BUFFER;
  }
  if (s.ndim < 0 || s.ndim > DLC_MAX_NDIM) {
    set_error(err, err_len, "expected 0 to 32 dimensions but found " + std::to_string(s.ndim));
    return DLC_ERR_INVALID;
  }
  std::shared_ptr<arrow::DataType> type = to_arrow(s.dtype);
  if (type == nullptr) {
    set_error(err, err_len, "arrow::Tensor has no element type for this DLPack dtype");
    return DLC_ERR_BUFFER;
  }
  const int64_t element = type->byte_width();
  std::vector<int64_t> shape(s.shape, s.shape + s.ndim);
  dlc_adapter::SpecLayout layout;
  std::string why;
  if (!dlc_adapter::plan_layout(s, "arrow::Tensor", &layout, &why)) {
    set_error(err, err_len, why);
    return DLC_ERR_BUFFER;
  }
  std::vector<int64_t> byte_strides(layout.strides);
  for (int64_t& stride : byte_strides) stride *= element;
  const int64_t span = layout.span * element;  // bytes from the first element to the end of the last
  const int64_t total = static_cast<int64_t>(s.byte_offset) + span + static_cast<int64_t>(s.pad_after);
  arrow::Result<std::unique_ptr<arrow::Buffer>> allocated =
      arrow::AllocateBuffer(total + static_cast<int64_t>(s.misalign));
  if (!allocated.ok()) {
    set_error(err, err_len, "arrow::AllocateBuffer failed: " + allocated.status().ToString());
    return DLC_ERR_INTERNAL;
  }
  std::shared_ptr<arrow::Buffer> parent(std::move(allocated).ValueUnsafe());
  uint8_t* bytes = parent->mutable_data();
  std::memset(bytes, 0xA5, static_cast<size_t>(parent->size()));
  dlc_adapter::fill_elements(bytes + s.misalign + s.byte_offset, s, layout,
                             static_cast<uint64_t>(element));
  // The window the tensor sees: a slice of the larger parent. Arrow exports READ_ONLY exactly
  // when the buffer is immutable.
  const int64_t start = static_cast<int64_t>(s.misalign + s.byte_offset);
  std::shared_ptr<arrow::Buffer> window =
      (s.options & DLC_SPEC_READ_ONLY) ? arrow::SliceBuffer(parent, start, span)
                                       : arrow::SliceMutableBuffer(parent, start, span);
  arrow::Result<std::shared_ptr<arrow::Tensor>> t =
      arrow::Tensor::Make(type, window, shape, byte_strides);
  if (!t.ok()) {
    set_error(err, err_len, "arrow::Tensor::Make refused: " + t.status().ToString());
    return DLC_ERR_BUFFER;
  }
  *out = std::move(t).ValueUnsafe();
  return DLC_OK;
}

int produce(void*, const DLCRequest* req, DLCHandoff* out, char* err, size_t err_len) noexcept {
  if (req == nullptr || out == nullptr) return DLC_ERR_INVALID;
  const bool legacy_caller = dlc_adapter::legacy_caller(*req);
  const bool versioned = req->raw || !legacy_caller;  // raw: Arrow's tensor struct is versioned
  try {
    if (req->has_dl_device &&
        (req->dl_device.device_type != kDLCPU || req->dl_device.device_id != 0)) {
      set_error(err, err_len, "cannot export a CPU tensor to another device");
      return DLC_ERR_BUFFER;
    }
    std::shared_ptr<arrow::Tensor> t;
    const int rc = make_tensor(req->tensor, &t, err, err_len);
    if (rc != DLC_OK) return rc;
    if (versioned) {
      arrow::Result<DLManagedTensorVersioned*> r =
          arrow::dlpack::ExportTensorVersioned(t, req->copy == 1);
      if (!r.ok()) {
        set_error(err, err_len, "arrow::dlpack::ExportTensorVersioned refused: " + r.status().ToString());
        return DLC_ERR_BUFFER;
      }
      out->name = req->raw ? nullptr : "dltensor_versioned";
      out->pointer = *r;
    } else {
      if (req->copy == 1) {
        // The legacy exporter has no copy argument: copy the window with Arrow, then export.
        arrow::Result<std::shared_ptr<arrow::Buffer>> copied = t->data()->CopySlice(0, t->data()->size());
        if (!copied.ok()) {
          set_error(err, err_len, "arrow::Buffer::CopySlice failed: " + copied.status().ToString());
          return DLC_ERR_INTERNAL;
        }
        arrow::Result<std::shared_ptr<arrow::Tensor>> fresh =
            arrow::Tensor::Make(t->type(), *copied, t->shape(), t->strides());
        if (!fresh.ok()) {
          set_error(err, err_len, "arrow::Tensor::Make refused the copy: " + fresh.status().ToString());
          return DLC_ERR_BUFFER;
        }
        t = *fresh;
      }
      // Arrow refuses a legacy export of an immutable (READ_ONLY) tensor itself.
      arrow::Result<DLManagedTensor*> r = arrow::dlpack::ExportTensor(t);
      if (!r.ok()) {
        set_error(err, err_len, "arrow::dlpack::ExportTensor refused: " + r.status().ToString());
        return DLC_ERR_BUFFER;
      }
      out->name = "dltensor";
      out->pointer = *r;
    }
    return DLC_OK;
  } catch (const std::exception& e) {
    set_error(err, err_len, std::string("arrow threw: ") + e.what());
    return DLC_ERR_BUFFER;
  } catch (...) {
    set_error(err, err_len, "arrow threw");
    return DLC_ERR_BUFFER;
  }
}
#endif

// Runs Arrow's paths once so that lazily built global or per-thread state (the default memory
// pool, type singletons, Status details) is not counted against a worker's first exchange.
int create(const DLCHost*, void** state, char*, size_t) noexcept {
  *state = nullptr;
  try {
    // Arrow's type factories build their singletons on first use.
    for (const std::shared_ptr<arrow::DataType>& ty :
         {arrow::int8(), arrow::int16(), arrow::int32(), arrow::int64(), arrow::uint8(),
          arrow::uint16(), arrow::uint32(), arrow::uint64(), arrow::float16(), arrow::float32(),
          arrow::float64(), arrow::boolean()}) {
      (void)ty->ToString();
    }
    std::shared_ptr<arrow::Buffer> b = *arrow::AllocateBuffer(64);
    std::shared_ptr<arrow::Tensor> t = *arrow::Tensor::Make(arrow::float32(), b, {2, 3});
    for (bool copy : {false, true}) {
      arrow::Result<DLManagedTensorVersioned*> r = arrow::dlpack::ExportTensorVersioned(t, copy);
      if (r.ok()) {
        DLManagedTensorVersioned* m = *r;
#if DLC_ARROW_IMPORT
        arrow::Result<std::shared_ptr<arrow::Tensor>> back = arrow::dlpack::ImportTensorVersioned(m);
        (void)back;
#else
        m->deleter(m);
#endif
      }
    }
    arrow::Result<DLManagedTensor*> legacy = arrow::dlpack::ExportTensor(t);
    if (legacy.ok()) (*legacy)->deleter(*legacy);
    std::shared_ptr<arrow::Tensor> frozen =
        *arrow::Tensor::Make(arrow::float32(), arrow::SliceBuffer(b, 0, 24), {2, 3});
    arrow::Result<DLManagedTensor*> refused = arrow::dlpack::ExportTensor(frozen);
    if (refused.ok()) (*refused)->deleter(*refused);
    (void)b->CopySlice(0, 8);
    (void)arrow::Tensor::Make(arrow::float32(), b, {2, 3}, {-12, 4});
  } catch (...) {
  }
  return DLC_OK;
}

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), kDtypes, std::size(kDtypes), kDevices, std::size(kDevices),
    DLC_STRIDES_POSITIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
#if DLC_ARROW_IMPORT
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE,
#else
    DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_COPY,
#endif
    8,
    {0, 0},
};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
#if DLC_ARROW_IMPORT
    "arrow-ImportTensorVersioned",
    "Arrow C++ arrow::dlpack::ImportTensorVersioned into arrow::Tensor (Arrow " ARROW_VERSION_STRING ")",
    DLC_ROLE_CONSUMER,
#else
    "arrow-ExportTensor",
    "Arrow C++ arrow::dlpack::ExportTensor[Versioned] of an arrow::Tensor (Arrow " ARROW_VERSION_STRING ")",
    DLC_ROLE_PRODUCER,
#endif
    {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
    DLC_ARROW_IMPORT ? 1 : 0,
    DLC_ARROW_IMPORT ? DLCVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION} : DLCVersion{0, 0},
    DLC_ARROW_IMPORT ? nullptr : "versioned",
    create,
    nullptr,
#if DLC_ARROW_IMPORT
    nullptr,
    consume,
    release,
#else
    produce,
    nullptr,
    nullptr,
#endif
    &kProfile,
    nullptr,  // available
    nullptr,  // ask
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
