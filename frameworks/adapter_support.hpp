// What the framework adapters (frameworks/*) share: the entry point, the error line they hand
// back, and what a producer request's tensor spec (DLCTensorSpec) asks an exporting framework to
// make, in elements (torch, Arrow).
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "dlconform/plugin.h"

// The plugin's one exported symbol, returning its table.
#define DLC_ADAPTER_ENTRY(table)                                                               \
  extern "C" __attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry( \
      void) {                                                                                 \
    return &(table);                                                                          \
  }

namespace dlc_adapter {

// A caller that states no max_version, or one below 1.0, wants the legacy struct (VER-1).
inline bool legacy_caller(const DLCRequest& req) {
  return !req.has_max_version || req.max_version.major < 1;
}

// The folder of the shared object this is compiled into: a plugin's companion files lie there.
// "." where the loader cannot say.
inline std::string plugin_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&plugin_folder), &info) == 0 ||
      info.dli_fname == nullptr) {
    return ".";
  }
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The plugin ABI's error buffer gets the first line of `what`.
inline void set_error(char* err, size_t len, const std::string& what) {
  if (err == nullptr || len == 0) return;
  std::string line = what.substr(0, what.find('\n'));
  std::snprintf(err, len, "%s", line.c_str());
}

// True, with the error line set, when consume() got no tensor or nowhere to report.
inline bool null_handoff(const DLCHandoff* handoff, const DLCObservation* obs, char* err,
                         size_t len) {
  if (handoff != nullptr && handoff->pointer != nullptr && obs != nullptr) return false;
  set_error(err, len, "expected a tensor but found a NULL handoff");
  return true;
}

struct SpecLayout {
  std::vector<int64_t> strides;  // in elements; compact row-major where the spec gives none
  uint64_t numel = 1;
  int64_t span = 0;  // the highest element's offset + 1, in elements; 0 for a zero-size tensor
};

// False, with `why`, for what the framework cannot hold: a negative extent, a negative stride
// (on an extent of 0 or 1 it moves nothing, so its magnitude stands in), over 2^32 elements.
inline bool plan_layout(const DLCTensorSpec& s, const char* framework, SpecLayout* out,
                        std::string* why) {
  out->strides.assign(static_cast<size_t>(s.ndim), 0);
  out->numel = 1;
  int64_t compact = 1;
  for (int i = s.ndim - 1; i >= 0; --i) {
    if (s.shape[i] < 0) {
      *why = "expected extents >= 0 but found " + std::to_string(s.shape[i]);
      return false;
    }
    int64_t stride = s.has_strides ? s.strides[i] : compact;
    if (s.shape[i] <= 1 && stride < 0) stride = -stride;
    if (stride < 0) {
      *why = std::string(framework) + " tensors cannot have negative strides";
      return false;
    }
    out->strides[static_cast<size_t>(i)] = stride;
    compact *= s.shape[i] == 0 ? 1 : s.shape[i];
    out->numel *= static_cast<uint64_t>(s.shape[i]);
  }
  if (out->numel > (uint64_t{1} << 32)) {
    *why = "refusing to allocate more than 2^32 elements";
    return false;
  }
  out->span = 0;
  if (out->numel > 0) {
    out->span = 1;
    for (int i = 0; i < s.ndim; ++i) out->span += (s.shape[i] - 1) * out->strides[static_cast<size_t>(i)];
  }
  return true;
}

// Writes the fill rule (dlc_fill_value_byte) into every element, in logical order, the first at
// `origin`.
inline void fill_elements(uint8_t* origin, const DLCTensorSpec& s, const SpecLayout& layout,
                          uint64_t element) {
  std::vector<int64_t> index(static_cast<size_t>(s.ndim), 0);
  int64_t offset = 0;
  for (uint64_t k = 0; k < layout.numel; ++k) {
    uint8_t* e = origin + offset * static_cast<int64_t>(element);
    for (uint32_t j = 0; j < element; ++j) e[j] = dlc_fill_value_byte(s.dtype.code, s.fill_seed, k, j);
    for (int d = s.ndim - 1; d >= 0; --d) {
      const int64_t stride = layout.strides[static_cast<size_t>(d)];
      if (++index[static_cast<size_t>(d)] < s.shape[d]) {
        offset += stride;
        break;
      }
      offset -= (s.shape[d] - 1) * stride;
      index[static_cast<size_t>(d)] = 0;
    }
  }
}

}  // namespace dlc_adapter
