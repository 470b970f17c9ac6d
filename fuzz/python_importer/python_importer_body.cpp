// The body of the python-importer consumer plugin: a Python library's importer (from_dlpack, or a
// capsule API) under the fuzz targets, in the interpreter of the library's own environment.
//
// python_importer_loader.cpp (the plugin the targets load) has already loaded that environment's
// libpython with RTLD_GLOBAL, so this file is built against the stable ABI (Py_LIMITED_API 3.10)
// without linking any libpython: it runs in Python 3.10 and every later version.
//
// For every handoff, consume()
//   1. wraps handoff->pointer in a PyCapsule named like the handoff, with NO destructor: while the
//      name is unchanged the harness owns the struct and deletes it, as a producer's capsule
//      destructor would; a destructor of ours would delete a struct the library took twice;
//   2. calls dlconform_fuzz_importer.Importer.take(capsule, versioned, device, made), which hands
//      it to the library (through an exporter object, or to a capsule API) and reads the result
//      back through the adapter's own to_np, never through DLPack, as DLPack would say it of what
//      the harness made (`made`: dtype and ndim; a library may show lanes as one more axis);
//   3. copies the capsule's name back into handoff->name: the rename (LIFE-1) is the library's;
//   4. digests the bytes take() returned (dlc_digest_*), for the judge to compare.
// release() drops the library's result: the library calls the deleter then (LIFE-3).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <signal.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "dlconform/plugin.h"
#include "adapter_support.hpp"
#include "embedded_python.hpp"
#include "python_protocol.h"

namespace {

constexpr const char* kLegacyName = "dltensor";
constexpr const char* kVersionedName = "dltensor_versioned";

// The struct heads this plugin reads to tell the exporter's __dlpack_device__ where the tensor
// lives (own declarations; the library's reads are what is under test).
struct TensorHead {  // DLTensor up to the device
  void* data;
  int32_t device_type;
  int32_t device_id;
};
struct VersionedHead {
  uint32_t major;
  uint32_t minor;
  void* manager_ctx;
  void (*deleter)(void*);
  uint64_t flags;
  TensorHead tensor;
};

// The interpreter's objects, set once by dlc_python_importer_body().
PyObject* g_importer = nullptr;  // a dlconform_fuzz_importer.Importer
PyObject* g_take = nullptr;      // its bound take
PyObject* g_drop = nullptr;      // its bound drop
std::string g_error;              // why the body cannot run, for create()
std::string g_name = "python-importer";
std::string g_description;
std::vector<DLCDtype> g_dtypes;
std::vector<int32_t> g_device_types;
DLCProfile g_profile{};
DLCPlugin g_table{};
// The capsule's name for the next consume() of a protocol input (python_protocol.h), and whether
// a plan is set.
int32_t g_name_mode = DLC_PROTOCOL_NAME_OWN;
bool g_protocol_planned = false;

using dlc_adapter::fetch_python_error;
using dlc_adapter::set_error;
using dlc_adapter::to_int64;
// Prepends each entry of a newline-separated list to sys.path (the last first, so the order is
// kept), or replaces sys.path by it when `replace`.
bool set_sys_path(const char* lines, bool replace) {
  PyObject* path = PySys_GetObject("path");  // borrowed
  if (path == nullptr || !PyList_Check(path)) {
    g_error = "sys.path is not a list";
    return false;
  }
  std::vector<std::string> entries;
  for (const char* p = lines; p != nullptr && *p != '\0';) {
    const char* end = std::strchr(p, '\n');
    const std::string entry = end != nullptr ? std::string(p, end) : std::string(p);
    if (!entry.empty()) entries.push_back(entry);
    p = end != nullptr ? end + 1 : nullptr;
  }
  if (replace && PyList_SetSlice(path, 0, PyList_Size(path), nullptr) != 0) {
    g_error = "cannot clear sys.path: " + fetch_python_error();
    return false;
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    PyObject* entry = PyUnicode_FromString(it->c_str());
    if (entry == nullptr || PyList_Insert(path, 0, entry) != 0) {
      Py_XDECREF(entry);
      g_error = "cannot add " + *it + " to sys.path: " + fetch_python_error();
      return false;
    }
    Py_DECREF(entry);
  }
  return true;
}

// The profile the adapter declares: dtypes, strides, features and devices, from
// Importer.profile().
bool read_profile(PyObject* t) {
  if (t == nullptr || !PyTuple_Check(t) || PyTuple_Size(t) != 5) return false;
  PyObject* dtypes = PyTuple_GetItem(t, 0);
  int64_t strides = 0, features = 0, max_ndim = 0;
  if (!PyTuple_Check(dtypes) || !to_int64(PyTuple_GetItem(t, 1), &strides) ||
      !to_int64(PyTuple_GetItem(t, 2), &features) || !to_int64(PyTuple_GetItem(t, 3), &max_ndim)) {
    return false;
  }
  for (Py_ssize_t i = 0; i < PyTuple_Size(dtypes); ++i) {
    PyObject* d = PyTuple_GetItem(dtypes, i);
    int64_t code = 0, bits = 0, lanes = 0;
    if (!PyTuple_Check(d) || PyTuple_Size(d) != 3 || !to_int64(PyTuple_GetItem(d, 0), &code) ||
        !to_int64(PyTuple_GetItem(d, 1), &bits) || !to_int64(PyTuple_GetItem(d, 2), &lanes)) {
      return false;
    }
    g_dtypes.push_back({static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                        static_cast<uint16_t>(lanes)});
  }
  PyObject* devices = PyTuple_GetItem(t, 4);
  if (!PyTuple_Check(devices) || PyTuple_Size(devices) < 1) return false;
  for (Py_ssize_t i = 0; i < PyTuple_Size(devices); ++i) {
    int64_t device_type = 0;
    if (!to_int64(PyTuple_GetItem(devices, i), &device_type)) return false;
    g_device_types.push_back(static_cast<int32_t>(device_type));
  }
  g_profile = {sizeof(DLCProfile), g_dtypes.data(), static_cast<uint32_t>(g_dtypes.size()),
               g_device_types.data(), static_cast<uint32_t>(g_device_types.size()),
               static_cast<uint32_t>(strides), static_cast<uint32_t>(features),
               static_cast<int32_t>(max_ndim), {0, 0}};
  return true;
}

// With the GIL: imports the Python half and starts the library's importer.
// A library's own crash handlers are not under test, and take a crash from the harness before it
// names it: TVM-FFI's prints a backtrace on SIGSEGV and exits, so no crash file is written. The
// handlers a library sets while it imports are put back as they were.
constexpr int kCrashSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};

class CrashHandlersKept {
 public:
  CrashHandlersKept() {
    for (size_t i = 0; i < std::size(kCrashSignals); ++i) sigaction(kCrashSignals[i], nullptr, &saved_[i]);
  }
  ~CrashHandlersKept() {
    for (size_t i = 0; i < std::size(kCrashSignals); ++i) sigaction(kCrashSignals[i], &saved_[i], nullptr);
  }
  CrashHandlersKept(const CrashHandlersKept&) = delete;
  CrashHandlersKept& operator=(const CrashHandlersKept&) = delete;

 private:
  struct sigaction saved_[std::size(kCrashSignals)] {};
};

// Python line coverage as libFuzzer's extra counters (DLCONFORM_PYTHON_COVERAGE=PACKAGE): the
// counters Importer.cover_lines() sets, and the table of made-up PCs libFuzzer wants beside
// them (one per counter). In a build without libFuzzer the lines are counted, not registered.
constexpr size_t kLineCounters = size_t{1} << 14;
alignas(64) uint8_t g_line_counters[kLineCounters];
uintptr_t g_line_pcs[2 * kLineCounters];

bool cover_python_lines() {
  const char* packages = std::getenv("DLCONFORM_PYTHON_COVERAGE");
  if (packages == nullptr || *packages == '\0') return true;
  using CountersInit = void (*)(uint8_t*, uint8_t*);
  using PcsInit = void (*)(const uintptr_t*, const uintptr_t*);
  auto counters_init =
      reinterpret_cast<CountersInit>(dlsym(RTLD_DEFAULT, "__sanitizer_cov_8bit_counters_init"));
  auto pcs_init = reinterpret_cast<PcsInit>(dlsym(RTLD_DEFAULT, "__sanitizer_cov_pcs_init"));
  const bool guiding = counters_init != nullptr && pcs_init != nullptr;
  if (guiding) {
    for (size_t i = 0; i < kLineCounters; ++i) {
      g_line_pcs[2 * i] = reinterpret_cast<uintptr_t>(&g_line_counters[i]);
      g_line_pcs[2 * i + 1] = 0;
    }
    counters_init(g_line_counters, g_line_counters + kLineCounters);
    pcs_init(g_line_pcs, g_line_pcs + 2 * kLineCounters);
  }
  PyObject* roots = PyObject_CallMethod(
      g_importer, "cover_lines", "Kn",
      static_cast<unsigned long long>(guiding ? reinterpret_cast<uintptr_t>(g_line_counters) : 0),
      static_cast<Py_ssize_t>(kLineCounters));
  if (roots == nullptr) {
    g_error = "DLCONFORM_PYTHON_COVERAGE: " + fetch_python_error();
    return false;
  }
  Py_DECREF(roots);
  return true;
}

bool start_importer(const char* sources) {
  const CrashHandlersKept kept;  // over the library's import and its first calls (the probes)
  if (!set_sys_path(sources, false)) return false;
  PyObject* module = PyImport_ImportModule("dlconform_fuzz_importer");
  if (module == nullptr) {
    g_error = "cannot import dlconform_fuzz_importer: " + fetch_python_error();
    return false;
  }
  PyObject* cls = PyObject_GetAttrString(module, "Importer");
  Py_DECREF(module);
  g_importer = cls != nullptr ? PyObject_CallObject(cls, nullptr) : nullptr;
  Py_XDECREF(cls);
  if (g_importer == nullptr) {
    g_error = "expected the library's importer to start but found " + fetch_python_error();
    return false;
  }
  if (!cover_python_lines()) {
    Py_CLEAR(g_importer);
    return false;
  }
  g_take = PyObject_GetAttrString(g_importer, "take");
  g_drop = PyObject_GetAttrString(g_importer, "drop");
  PyObject* description = PyObject_CallMethod(g_importer, "describe", nullptr);
  PyObject* header = PyObject_CallMethod(g_importer, "header", nullptr);
  PyObject* profile = PyObject_CallMethod(g_importer, "profile", nullptr);
  int64_t major = 0, minor = 0;
  const bool ok = g_take != nullptr && g_drop != nullptr && description != nullptr &&
                  PyTuple_Check(description) && PyTuple_Size(description) == 2 &&
                  header != nullptr && PyTuple_Check(header) && PyTuple_Size(header) == 2 &&
                  to_int64(PyTuple_GetItem(header, 0), &major) &&
                  to_int64(PyTuple_GetItem(header, 1), &minor) && read_profile(profile);
  if (ok) {
    g_name = dlc_adapter::python_text(PyTuple_GetItem(description, 0));
    g_description = dlc_adapter::python_text(PyTuple_GetItem(description, 1)) + ", in an embedded CPython " +
                    dlc_adapter::python_text(PySys_GetObject("version")).substr(0, 6);
    g_table.dlpack_version = {static_cast<uint32_t>(major), static_cast<uint32_t>(minor)};
    g_table.max_version = g_table.dlpack_version;
    g_table.has_max_version = major >= 1;
  } else {
    g_error = "the importer's describe/header/profile answered wrongly: " + fetch_python_error();
  }
  // The library whose importer this one is, or calls (NumPy's, from array-api-strict's): its
  // known bugs are routed for this one too (fuzz/known_bugs.cpp), unless the caller set
  // $DLCONFORM_KNOWN_VIA itself (empty: none).
  if (ok && std::getenv("DLCONFORM_KNOWN_VIA") == nullptr) {
    PyObject* reaches = PyObject_CallMethod(g_importer, "reaches", nullptr);
    if (reaches != nullptr && PyTuple_Check(reaches) && PyTuple_Size(reaches) == 2) {
      const std::string party = dlc_adapter::python_text(PyTuple_GetItem(reaches, 0));
      const std::string how = dlc_adapter::python_text(PyTuple_GetItem(reaches, 1));
      if (!party.empty()) setenv("DLCONFORM_KNOWN_VIA", (party + " " + how).c_str(), 0);
    } else {
      PyErr_Clear();  // no such answer: nothing is routed through another library
    }
    Py_XDECREF(reaches);
  }
  Py_XDECREF(description);
  Py_XDECREF(header);
  Py_XDECREF(profile);
  return ok;
}

int create(const DLCHost*, void** state, char* err, size_t err_len) noexcept {
  if (g_take == nullptr) {
    set_error(err, err_len, g_error.empty() ? std::string("the Python importer did not start")
                                            : g_error);
    return DLC_ERR_INTERNAL;
  }
  if (state != nullptr) *state = nullptr;
  return DLC_OK;
}

// Fills obs from take()'s (code, bits, lanes, shape, on_host, bytes).
bool observe(PyObject* t, DLCObservation* obs, std::string* why) {
  if (t == nullptr || !PyTuple_Check(t) || PyTuple_Size(t) != 6) {
    *why = "expected a 6-tuple from Importer.take but found another value";
    return false;
  }
  int64_t code = 0, bits = 0, lanes = 0;
  PyObject* shape = PyTuple_GetItem(t, 3);
  if (!to_int64(PyTuple_GetItem(t, 0), &code) || !to_int64(PyTuple_GetItem(t, 1), &bits) ||
      !to_int64(PyTuple_GetItem(t, 2), &lanes) || !PyTuple_Check(shape)) {
    *why = "Importer.take returned a malformed tuple";
    return false;
  }
  obs->dtype = {static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                static_cast<uint16_t>(lanes)};
  obs->ndim = static_cast<int32_t>(PyTuple_Size(shape));
  uint64_t elements = 1;
  for (Py_ssize_t i = 0; i < PyTuple_Size(shape); ++i) {
    int64_t e = 0;
    if (!to_int64(PyTuple_GetItem(shape, i), &e)) {
      *why = "Importer.take returned a non-integer extent";
      return false;
    }
    if (i < DLC_MAX_NDIM) obs->shape[i] = e;
    elements *= static_cast<uint64_t>(e);
  }
  obs->has_strides = 0;  // the result is read in logical order; its strides are its own
  if (PyTuple_GetItem(t, 4) != Py_True) {
    obs->data_not_read = 1;  // device memory: never read on the host
    return true;
  }
  char* bytes = nullptr;
  Py_ssize_t n = 0;
  if (PyBytes_AsStringAndSize(PyTuple_GetItem(t, 5), &bytes, &n) != 0) {
    PyErr_Clear();
    *why = "Importer.take returned no bytes";
    return false;
  }
  obs->digest = dlc_digest_update(dlc_digest_init(), bytes, static_cast<size_t>(n));
  obs->elements_read = elements;
  return true;
}

int consume(void*, DLCHandoff* handoff, const DLCRequest* request, DLCObservation* obs, char* err,
            size_t err_len) noexcept {
  if (dlc_adapter::null_handoff(handoff, obs, err, err_len)) return DLC_ERR_BUFFER;
  if (g_take == nullptr) {
    set_error(err, err_len, "the Python importer did not start: " + g_error);
    return DLC_ERR_INTERNAL;
  }
  const bool versioned = handoff->name == nullptr || std::strcmp(handoff->name, kLegacyName) != 0;
  const char* capsule_name = versioned ? kVersionedName : kLegacyName;
  // A protocol input's capsule may go out under another name: the library must refuse it.
  switch (g_name_mode) {
    case DLC_PROTOCOL_NAME_USED: capsule_name = versioned ? "used_dltensor_versioned" : "used_dltensor"; break;
    case DLC_PROTOCOL_NAME_FOREIGN: capsule_name = "DLTensor"; break;
    case DLC_PROTOCOL_NAME_NONE: capsule_name = nullptr; break;
    default: break;
  }
  g_name_mode = DLC_PROTOCOL_NAME_OWN;  // for this consume() only
  DLCDevice device{1, 0};
  if (versioned) {
    const auto* head = static_cast<const VersionedHead*>(handoff->pointer);
    obs->struct_kind = DLC_STRUCT_VERSIONED;
    obs->version = {head->major, head->minor};
    // Past the version only in major 1: a struct of another major may end there (VER-2).
    if (head->major == 1) {
      obs->flags = head->flags;
      device = {head->tensor.device_type, head->tensor.device_id};
    }
  } else {
    const auto* tensor = static_cast<const TensorHead*>(handoff->pointer);
    obs->struct_kind = DLC_STRUCT_LEGACY;
    device = {tensor->device_type, tensor->device_id};
  }

  int rc = DLC_OK;
  std::string message;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* capsule = PyCapsule_New(handoff->pointer, capsule_name, nullptr);
  PyObject* where = Py_BuildValue("(ii)", device.device_type, device.device_id);
  // What the harness made, (dtype, ndim): a library may show a vector dtype as one more axis.
  const DLCTensorSpec no_spec{};
  const DLCTensorSpec& made = request != nullptr ? request->tensor : no_spec;
  PyObject* asked = Py_BuildValue("((iii)i)", made.dtype.code, made.dtype.bits, made.dtype.lanes,
                                  made.ndim);
  if (capsule == nullptr || where == nullptr || asked == nullptr) {
    message = "cannot make the capsule: " + fetch_python_error();
    rc = DLC_ERR_INTERNAL;
  } else {
    PyObject* result = PyObject_CallFunctionObjArgs(g_take, capsule, versioned ? Py_True : Py_False,
                                                    where, asked, nullptr);
    // The library renames a capsule it takes (LIFE-1): report its rename, whatever came next.
    // A capsule handed as used already is not taken by keeping that name.
    const char* after = PyCapsule_GetName(capsule);
    if (after == nullptr) PyErr_Clear();
    if (handoff->name != nullptr && after != nullptr && after != capsule_name &&
        std::strncmp(after, "used_", 5) == 0) {
      handoff->name = versioned ? "used_dltensor_versioned" : "used_dltensor";
    }
    if (result == nullptr) {
      // The exception's name comes first; a subclass of BufferError is said to be one, so that
      // the judge can tell a BufferError refusal (DEV-3) from another.
      const bool buffer_error = PyErr_ExceptionMatches(PyExc_BufferError) != 0;
      message = fetch_python_error();
      if (buffer_error && message.rfind("BufferError", 0) != 0) {
        message = "BufferError subclass " + message;
      }
      rc = DLC_ERR_BUFFER;
    } else {
      if (!observe(result, obs, &message)) rc = DLC_ERR_INTERNAL;
      Py_DECREF(result);
    }
  }
  Py_XDECREF(asked);
  Py_XDECREF(where);
  Py_XDECREF(capsule);
  PyGILState_Release(gil);
  if (rc != DLC_OK) set_error(err, err_len, message);
  return rc;
}

void release(void*) noexcept {
  if (g_drop == nullptr) return;
  dlc_adapter::call_and_discard(g_drop);  // the library calls the deleter here
}

// python_protocol.h's plan(): Importer.set_protocol(choices) -> (words, rule, name mode).
int protocol_plan(const uint8_t* choices, size_t n, char* words, size_t words_len, char* rule,
                  size_t rule_len, DLCProtocolPlan* out) noexcept {
  if (rule != nullptr && rule_len > 0) rule[0] = '\0';
  if (g_importer == nullptr) {
    set_error(words, words_len, "the Python importer did not start: " + g_error);
    return -1;
  }
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = PyObject_CallMethod(g_importer, "set_protocol", "y#",
                                         reinterpret_cast<const char*>(choices),
                                         static_cast<Py_ssize_t>(n));
  int64_t mode = 0, legacy_only = 0;
  int rc = -1;
  if (result == nullptr) {
    set_error(words, words_len, fetch_python_error());
  } else if (!PyTuple_Check(result) || PyTuple_Size(result) != 4 ||
             !to_int64(PyTuple_GetItem(result, 2), &mode) ||
             !to_int64(PyTuple_GetItem(result, 3), &legacy_only)) {
    set_error(words, words_len, "expected (words, rule, name mode, legacy only) from "
                                "Importer.set_protocol but found another value");
  } else {
    set_error(words, words_len, dlc_adapter::python_text(PyTuple_GetItem(result, 0)));
    set_error(rule, rule_len, dlc_adapter::python_text(PyTuple_GetItem(result, 1)));
    g_name_mode = static_cast<int32_t>(mode);
    if (out != nullptr) *out = {g_name_mode, static_cast<int32_t>(legacy_only != 0)};
    g_protocol_planned = true;
    rc = 0;
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return rc;
}

// python_protocol.h's facts(): Importer.protocol_facts() -> (handed, calls, fallback missed).
int protocol_facts(DLCProtocolFacts* out) noexcept {
  if (out == nullptr || !g_protocol_planned) return -1;
  g_protocol_planned = false;
  *out = DLCProtocolFacts{};
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* result = PyObject_CallMethod(g_importer, "protocol_facts", nullptr);
  int64_t calls = 0;
  int rc = -1;
  if (result != nullptr && PyTuple_Check(result) && PyTuple_Size(result) == 3 &&
      to_int64(PyTuple_GetItem(result, 1), &calls)) {
    out->capsule_handed = PyObject_IsTrue(PyTuple_GetItem(result, 0)) == 1;
    out->dlpack_calls = static_cast<int32_t>(calls);
    out->fallback_missed = PyObject_IsTrue(PyTuple_GetItem(result, 2)) == 1;
    rc = 0;
  } else {
    PyErr_Clear();
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return rc;
}

const DLCPythonProtocol kProtocol = {protocol_plan, protocol_facts};

}  // namespace

// The protocol extension (python_protocol.h), handed on by the loader's
// dlc_python_importer_protocol().
extern "C" __attribute__((visibility("default"))) const DLCPythonProtocol*
dlc_python_importer_protocol_body(void) {
  return &kProtocol;
}

// Called once by the loader, with libpython loaded: `home` is the environment's base prefix,
// `sys_path` its sys.path (newline-separated) and `sources` the folders of the Python half.
// Returns the table; create() reports any failure.
extern "C" __attribute__((visibility("default"))) const DLCPlugin* dlc_python_importer_body(
    const char* sys_path, const char* sources) {
  g_table.header = {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr};
  g_table.roles = DLC_ROLE_CONSUMER;
  g_table.dlpack_version = {1, 3};
  g_table.has_max_version = 1;
  g_table.max_version = {1, 3};
  g_table.create = create;
  g_table.consume = consume;
  g_table.release = release;
  if (!Py_IsInitialized()) {
    Py_InitializeEx(0);  // no signal handlers: SIGINT and SIGSEGV stay the harness's
    if (!Py_IsInitialized()) {
      g_error = "Py_InitializeEx failed";
    } else {
      if (set_sys_path(sys_path, sys_path != nullptr && *sys_path != '\0') &&
          start_importer(sources)) {
        g_table.profile = &g_profile;
      }
      PyEval_SaveThread();  // every slot takes the GIL with PyGILState_Ensure
    }
  } else {
    PyGILState_STATE gil = PyGILState_Ensure();
    if (start_importer(sources)) g_table.profile = &g_profile;
    PyGILState_Release(gil);
  }
  g_table.name = g_name.c_str();
  g_table.description = g_description.c_str();
  return &g_table;
}
