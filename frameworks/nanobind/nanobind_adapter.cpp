// dlconform consumer plugin "nanobind-ndarray": nanobind's nb::ndarray<> type caster, the DLPack
// importer of every C++ library bound with nanobind, driven through an embedded CPython.
//
// How a tensor reaches the caster. nanobind's importer only runs inside a Python interpreter, on
// Python objects: a bound C++ function taking nb::ndarray<> receives whatever Python passes and
// the caster turns it into an ndarray (for an object with __dlpack__ it calls
// __dlpack__(max_version=(1, 1)) and then imports the capsule it gets back). This plugin starts
// the interpreter once (create()), imports the extension module dlc_nb_probe (built from
// nb_probe_module.cpp, placed next to this plugin), and for every handoff
//   1. wraps handoff->pointer in a PyCapsule named like the handoff ("dltensor" or
//      "dltensor_versioned"), with NO destructor: the handoff itself plays the capsule. If
//      nanobind does not take the capsule, the name stays and the harness deletes the struct, as
//      a producer's capsule destructor would in Python; had this capsule a destructor that called
//      the deleter too, an unconsumed struct would be deleted twice.
//   2. calls dlc_nb_probe.hold(capsule): the caster imports the capsule, the function describes
//      the ndarray it got (dtype, shape, strides, device, digest of the values walked through the
//      ndarray's own data/shape/strides) and keeps the ndarray in a module global.
//   3. copies the capsule's name back into handoff->name: nanobind renames a capsule it takes to
//      "used_dltensor[_versioned]" (LIFE-1) - that rename is nanobind's, not this plugin's.
// release() calls dlc_nb_probe.drop(): nanobind drops its ndarray and calls the producer's
// deleter (LIFE-3). A raw exchange (name NULL) is offered as "dltensor_versioned", the kind a
// writable nb::ndarray<> asks a producer for first.
//
// The consumer asks max_version 1.1, nanobind's own DLPack version (nanobind::dlpack::major_version
// / minor_version in ndarray.h), and takes both capsule kinds, as nanobind does.
#include <Python.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "dlconform/plugin.h"
#include "adapter_support.hpp"
#include "embedded_python.hpp"

#ifndef DLC_NANOBIND_VERSION
#define DLC_NANOBIND_VERSION "3.x"
#endif

namespace {

// The head of DLManagedTensorVersioned as this plugin reads it before the import (own
// declaration): version, manager_ctx and deleter stay in place in every major (LAY-3); flags is
// major 1's and is read only for major 1.
struct VersionedHead {
  uint32_t major;
  uint32_t minor;
  void* manager_ctx;
  void (*deleter)(void*);
  uint64_t flags;
};

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";
constexpr const char* kUsedLegacyName = "used_dltensor";
constexpr const char* kUsedVersionedName = "used_dltensor_versioned";

using dlc_adapter::fetch_python_error;
using dlc_adapter::set_error;
using dlc_adapter::to_int64;

// The interpreter and the probe module; set once by create().
std::once_flag g_init_once;
std::string g_init_error;
PyObject* g_hold = nullptr;  // dlc_nb_probe.hold (strong reference, never released)
PyObject* g_drop = nullptr;  // dlc_nb_probe.drop
bool g_holding = false;      // hold() succeeded since the last drop()

// Runs with the GIL held: makes the probe module importable and looks up its functions.
bool load_probe_module() {
  const std::string folder = dlc_adapter::plugin_folder();
  PyObject* sys_path = PySys_GetObject("path");  // borrowed
  PyObject* entry = PyUnicode_FromString(folder.c_str());
  if (sys_path == nullptr || entry == nullptr || PyList_Insert(sys_path, 0, entry) != 0) {
    Py_XDECREF(entry);
    g_init_error = "cannot add " + folder + " to sys.path: " + fetch_python_error();
    return false;
  }
  Py_DECREF(entry);
  PyObject* module = PyImport_ImportModule("dlc_nb_probe");
  if (module == nullptr) {
    g_init_error = "cannot import dlc_nb_probe from " + folder + ": " + fetch_python_error();
    return false;
  }
  g_hold = PyObject_GetAttrString(module, "hold");
  g_drop = PyObject_GetAttrString(module, "drop");
  Py_DECREF(module);
  if (g_hold == nullptr || g_drop == nullptr) {
    g_init_error = "dlc_nb_probe lacks hold/drop: " + fetch_python_error();
    return false;
  }
  return true;
}

void initialise() {
  // The extension module is built without -lpython (like every CPython extension) and
  // resolves the C API from the global scope: make the libpython this plugin links global
  // (the harness dlopen()s plugins RTLD_LOCAL).
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&Py_IsInitialized), &info) != 0 &&
      info.dli_fname != nullptr) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  }
  if (Py_IsInitialized()) {
    // Someone in this process already runs an interpreter: borrow it.
    PyGILState_STATE gil = PyGILState_Ensure();
    load_probe_module();
    PyGILState_Release(gil);
    return;
  }
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  config.install_signal_handlers = 0;  // leave SIGINT/SIGPIPE to the harness
  config.site_import = 0;              // the probe needs nothing beyond the standard library
  config.parse_argv = 0;
  PyStatus status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    g_init_error = std::string("Py_InitializeFromConfig failed: ") +
                   (status.err_msg != nullptr ? status.err_msg : "unknown");
    return;
  }
  load_probe_module();
  // Hand the GIL back: every slot takes it with PyGILState_Ensure, from whatever thread.
  PyEval_SaveThread();
}

int create(const DLCHost*, void** state, char* err, size_t err_len) noexcept {
  try {
    std::call_once(g_init_once, initialise);
  } catch (...) {
    g_init_error = "interpreter initialisation threw";
  }
  if (g_hold == nullptr || g_drop == nullptr) {
    set_error(err, err_len,
              g_init_error.empty() ? std::string("nanobind probe unavailable") : g_init_error);
    return DLC_ERR_INTERNAL;
  }
  if (state != nullptr) *state = nullptr;
  return DLC_OK;
}

// Fills obs from hold()'s tuple (with the GIL).
bool observe(PyObject* t, DLCObservation* obs, std::string* why) {
  if (t == nullptr || !PyTuple_Check(t) || PyTuple_Size(t) != 9) {
    *why = "dlc_nb_probe.hold returned something other than a 9-tuple";
    return false;
  }
  int64_t code = 0, bits = 0, lanes = 0, dev_type = 0, dev_id = 0, count = 0;
  if (!to_int64(PyTuple_GetItem(t, 0), &code) || !to_int64(PyTuple_GetItem(t, 1), &bits) ||
      !to_int64(PyTuple_GetItem(t, 2), &lanes) || !to_int64(PyTuple_GetItem(t, 5), &dev_type) ||
      !to_int64(PyTuple_GetItem(t, 6), &dev_id) || !to_int64(PyTuple_GetItem(t, 8), &count)) {
    *why = "dlc_nb_probe.hold returned a malformed tuple";
    return false;
  }
  PyObject* shape = PyTuple_GetItem(t, 3);
  PyObject* strides = PyTuple_GetItem(t, 4);
  if (!PyTuple_Check(shape) || !PyTuple_Check(strides) ||
      PyTuple_Size(shape) != PyTuple_Size(strides)) {
    *why = "dlc_nb_probe.hold returned malformed shape/strides";
    return false;
  }
  obs->dtype = {static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                static_cast<uint16_t>(lanes)};
  obs->device = {static_cast<int32_t>(dev_type), static_cast<int32_t>(dev_id)};
  const Py_ssize_t ndim = PyTuple_Size(shape);
  obs->ndim = static_cast<int32_t>(ndim);
  obs->has_strides = 1;  // nanobind fills in row-major strides for a NULL strides field
  for (Py_ssize_t i = 0; i < ndim && i < DLC_MAX_NDIM; ++i) {
    int64_t e = 0, s = 0;
    if (PyTuple_GetItem(shape, i) == Py_None) {
      // nanobind kept a NULL shape for ndim > 0: no extent to report, nothing was read.
      obs->data_not_read = 1;
      continue;
    }
    if (!to_int64(PyTuple_GetItem(shape, i), &e) || !to_int64(PyTuple_GetItem(strides, i), &s)) {
      *why = "dlc_nb_probe.hold returned a non-integer extent or stride";
      return false;
    }
    obs->shape[i] = e;
    obs->strides[i] = s;
  }
  obs->byte_offset = 0;  // nb::ndarray::data() already includes the byte offset
  PyObject* digest = PyTuple_GetItem(t, 7);
  if (digest == Py_None || obs->data_not_read) {
    obs->data_not_read = 1;  // not a CPU array: nothing was read
  } else {
    const unsigned long long d = PyLong_AsUnsignedLongLong(digest);
    if (d == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      *why = "dlc_nb_probe.hold returned a malformed digest";
      return false;
    }
    obs->digest = d;
    obs->elements_read = static_cast<uint64_t>(count);
  }
  return true;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest*, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  if (g_hold == nullptr) {
    set_error(err, err_len, "nanobind probe unavailable: " + g_init_error);
    return DLC_ERR_INTERNAL;
  }
  const bool raw = handoff->name == nullptr;
  bool versioned = true;  // raw: what a writable nb::ndarray<> asks producers for
  // A capsule consumed already keeps its used_ name, so that nanobind itself meets it (LIFE-8).
  const char* capsule_name = versioned ? kVersionedName : kLegacyName;
  if (!raw) {
    if (std::strcmp(handoff->name, kLegacyName) == 0 ||
        std::strcmp(handoff->name, kUsedLegacyName) == 0) {
      versioned = false;
    } else if (std::strcmp(handoff->name, kVersionedName) == 0 ||
               std::strcmp(handoff->name, kUsedVersionedName) == 0) {
      versioned = true;
    } else {
      // nanobind's caster takes only these capsule names; the producer keeps the rest.
      set_error(err, err_len,
                std::string("expected a dltensor or dltensor_versioned capsule but found ") +
                    handoff->name);
      return DLC_ERR_BUFFER;
    }
    capsule_name = handoff->name;
  }
  if (versioned) {
    // The version sits at the same place in every major (LAY-3); the flags only in major 1,
    // so this plugin reads them only there (nanobind's own reads are what is under test).
    const auto* head = static_cast<const VersionedHead*>(handoff->pointer);
    obs->struct_kind = DLC_STRUCT_VERSIONED;
    obs->version = {head->major, head->minor};
    obs->flags = head->major == 1 ? head->flags : 0;
  } else {
    obs->struct_kind = DLC_STRUCT_LEGACY;
    obs->version = {0, 0};
    obs->flags = 0;
  }

  int rc = DLC_OK;
  std::string message;
  PyGILState_STATE gil = PyGILState_Ensure();
  {
    // No destructor: while the name is unchanged the harness owns the struct (see the top).
    PyObject* capsule = PyCapsule_New(handoff->pointer, capsule_name, nullptr);
    if (capsule == nullptr) {
      message = "PyCapsule_New failed: " + fetch_python_error();
      rc = DLC_ERR_INTERNAL;
    } else {
      // IS_SUBBYTE_TYPE_PADDED (bit 2): the probe needs it to read packed sub-byte dtypes.
      PyObject* padded = versioned && (obs->flags & (uint64_t{1} << 2)) ? Py_True : Py_False;
      PyObject* result = PyObject_CallFunctionObjArgs(g_hold, capsule, padded, nullptr);
      // nanobind renames a capsule it took (LIFE-1): report its rename, whatever happened next.
      const char* after = PyCapsule_GetName(capsule);
      if (after == nullptr) PyErr_Clear();
      if (!raw && after != nullptr) {
        if (std::strcmp(after, kUsedLegacyName) == 0) {
          handoff->name = kUsedLegacyName;
        } else if (std::strcmp(after, kUsedVersionedName) == 0) {
          handoff->name = kUsedVersionedName;
        }
      }
      if (result == nullptr) {
        message = "nb::ndarray<> refused: " + fetch_python_error();
        rc = DLC_ERR_BUFFER;
      } else {
        g_holding = true;
        if (!observe(result, obs, &message)) rc = DLC_ERR_INTERNAL;
        Py_DECREF(result);
      }
      Py_DECREF(capsule);
    }
  }
  PyGILState_Release(gil);
  if (rc != DLC_OK) set_error(err, err_len, message);
  return rc;
}

void release(void*) noexcept {
  if (g_drop == nullptr || !g_holding) return;
  g_holding = false;
  dlc_adapter::call_and_discard(g_drop);  // nanobind calls the producer's deleter here
}

// What nb::ndarray<> takes: any dtype nanobind knows (it checks none), any strides, 0-d,
// zero-size, any alignment; CPU here. It refuses a READ_ONLY tensor (it asks for a writable
// array), which FLAG-1 allows, so READ_ONLY is not promised.
constexpr DLCDtype kDtypes[] = {
    {0, 8, 1},  {0, 16, 1}, {0, 32, 1},  {0, 64, 1},   // int
    {1, 8, 1},  {1, 16, 1}, {1, 32, 1},  {1, 64, 1},   // uint
    {2, 16, 1}, {2, 32, 1}, {2, 64, 1},                // float
    {4, 16, 1},                                        // bfloat16
    {5, 64, 1}, {5, 128, 1},                           // complex
    {6, 8, 1},                                         // bool
};
constexpr int32_t kDevices[] = {1};

constexpr DLCProfile kProfile = {
    sizeof(DLCProfile), kDtypes, std::size(kDtypes), kDevices, std::size(kDevices),
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING,
    DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE | DLC_FEATURE_MISALIGNED | DLC_FEATURE_NEEDS_WRITE,
    32,
    {0, 0},
};

const DLCPlugin kPlugin = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "nanobind-ndarray",
    "nanobind " DLC_NANOBIND_VERSION "'s nb::ndarray<> type caster on a DLPack capsule, in an "
    "embedded CPython " PY_VERSION,
    DLC_ROLE_CONSUMER,
    {1, 1},
    1,
    {1, 1},
    nullptr,
    create, nullptr, nullptr, consume, release, &kProfile,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask (plugin ABI 3)
};

}  // namespace

DLC_ADAPTER_ENTRY(kPlugin)
