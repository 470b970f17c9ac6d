// _dlconform: the CPython capsule bridge. Real frameworks meet dlconform's mock producers and its
// strict consumer through the Python DLPack protocol:
//
//   MockTensor(producer_plugin_path, tensor_name)  an object with __dlpack__(*, stream=None,
//       max_version=None, dl_device=None, copy=None) and __dlpack_device__(), backed by a mock
//       producer plugin, guarded memory and the deleter ledger. numpy.from_dlpack(t) and
//       torch.from_dlpack(t) consume it; t.deleter_calls() and t.capsule_renamed() say what they
//       did with it (LIFE-1, LIFE-3).
//   consume(obj, max_version=(1, 3))  imports obj.__dlpack__ the way the spec says (VER-4: ask
//       with max_version, fall back on TypeError; LIFE-1: check and rename the capsule), validates
//       the struct at the full level (every element read and digested), calls the deleter once,
//       and returns what it saw as a dict.
//   tensor_names(), digest(bytes)  the matrix's tensor catalogue, and its FNV-1a digest.
//
// Every function is noexcept towards Python: C++ errors become Python exceptions.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstring>
#include <string>
#include <unordered_map>

#include "abi.h"
#include "catalogue.h"
#include "host.h"
#include "plugin_loader.h"
#include "validate.h"

namespace {

// One host for the life of the process: frameworks may delete tensors late (LIFE-7), so the
// arena is never reset under them.
dlc::HostState& host() { return dlc::process_host(); }

// What became of each capsule we handed out, keyed by the managed struct it carried.
struct CapsuleFate {
  bool destroyed = false;
  bool renamed = false;  // a consumer took it (LIFE-1)
};
std::unordered_map<void*, CapsuleFate>& fates() {
  static auto* map = new std::unordered_map<void*, CapsuleFate>();
  return *map;
}

struct LoadedProducers {
  std::unordered_map<std::string, dlc::LoadedPlugin> by_path;
};
LoadedProducers& producers() {
  static auto* p = new LoadedProducers();
  return *p;
}

const dlc::LoadedPlugin* load_producer(const std::string& path) {
  auto it = producers().by_path.find(path);
  if (it != producers().by_path.end()) return &it->second;
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none) {
    PyErr_SetString(PyExc_OSError, r.message.c_str());
    return nullptr;
  }
  if (!r.plugin.is_producer()) {
    PyErr_Format(PyExc_ValueError, "%s: expected a producer plugin but found none", path.c_str());
    return nullptr;
  }
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&host().table, &r.plugin.state, error, sizeof error) != DLC_OK) {
    PyErr_Format(PyExc_OSError, "%s: create() failed: %s", path.c_str(), error);
    return nullptr;
  }
  return &producers().by_path.emplace(path, r.plugin).first->second;
}

void capsule_destructor(PyObject* capsule) {
  void* managed = PyCapsule_GetContext(capsule);
  CapsuleFate& fate = fates()[managed];
  fate.destroyed = true;
  const char* name = PyCapsule_GetName(capsule);
  if (name != nullptr && std::strncmp(name, "used_", 5) == 0) {
    fate.renamed = true;
    return;
  }
  if (name != nullptr) dlc::delete_unclaimed(DLCHandoff{name, managed});
  PyErr_Clear();
}

// ---------------------------------------------------------------------------------------------
// MockTensor

struct MockTensor {
  PyObject_HEAD
  const dlc::LoadedPlugin* producer;
  int tensor_index;
  void* last_managed;  // the struct of the last capsule handed out
};

int mock_init(MockTensor* self, PyObject* args, PyObject*) {
  const char* path = nullptr;
  const char* tensor = nullptr;
  if (!PyArg_ParseTuple(args, "ss", &path, &tensor)) return -1;
  self->producer = load_producer(path);
  if (self->producer == nullptr) return -1;
  const auto& catalogue = dlc::tensor_catalogue();
  self->tensor_index = -1;
  for (size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].name == tensor) self->tensor_index = static_cast<int>(i);
  }
  if (self->tensor_index < 0) {
    PyErr_Format(PyExc_ValueError, "expected a tensor name of the catalogue but found '%s'", tensor);
    return -1;
  }
  self->last_managed = nullptr;
  return 0;
}

bool parse_version(PyObject* object, DLCVersion* out) {
  unsigned int major = 0, minor = 0;
  if (!PyArg_ParseTuple(object, "II", &major, &minor)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "expected max_version as a (major, minor) tuple");
    return false;
  }
  *out = {major, minor};
  return true;
}

PyObject* mock_dlpack(MockTensor* self, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"stream", "max_version", "dl_device", "copy", nullptr};
  PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|$OOOO", const_cast<char**>(keywords), &stream,
                                   &max_version, &dl_device, &copy)) {
    return nullptr;
  }
  const dlc::TensorCase& t = dlc::tensor_catalogue()[self->tensor_index];
  DLCRequest request{};
  request.tensor = t.spec;
  request.copy = copy == Py_None ? t.copy : (PyObject_IsTrue(copy) ? 1 : 0);
  if (max_version != Py_None) {
    request.has_max_version = 1;
    if (!parse_version(max_version, &request.max_version)) return nullptr;
  }
  if (dl_device != Py_None) {
    int type = 0, id = 0;
    if (!PyArg_ParseTuple(dl_device, "ii", &type, &id)) return nullptr;
    request.has_dl_device = 1;
    request.dl_device = {type, id};
  }
  if (stream != Py_None) {
    request.has_stream = 1;
    request.stream = PyLong_AsLongLong(stream);
    if (PyErr_Occurred()) return nullptr;
  }
  DLCHandoff handoff{};
  char error[512] = {};
  const DLCPlugin& p = *self->producer->table;
  const int rc = p.produce(self->producer->state, &request, &handoff, error, sizeof error);
  if (rc == DLC_ERR_TYPE) {
    PyErr_Format(PyExc_TypeError, "__dlpack__(): %s", error);
    return nullptr;
  }
  if (rc != DLC_OK) {
    PyErr_Format(PyExc_BufferError, "__dlpack__(): %s", error);
    return nullptr;
  }
  const char* name = handoff.name != nullptr && std::strcmp(handoff.name, "dltensor_versioned") == 0
                         ? "dltensor_versioned"
                         : "dltensor";
  PyObject* capsule = PyCapsule_New(handoff.pointer, name, capsule_destructor);
  if (capsule == nullptr) {
    dlc::delete_unclaimed(DLCHandoff{name, handoff.pointer});
    return nullptr;
  }
  PyCapsule_SetContext(capsule, handoff.pointer);
  fates()[handoff.pointer] = CapsuleFate{};
  self->last_managed = handoff.pointer;
  return capsule;
}

PyObject* mock_dlpack_device(MockTensor* self, PyObject*) {
  const DLCDevice d = dlc::tensor_catalogue()[self->tensor_index].spec.device;
  return Py_BuildValue("(ii)", d.device_type, d.device_id);
}

PyObject* mock_deleter_calls(MockTensor* self, PyObject*) {
  if (self->last_managed == nullptr) return PyLong_FromLong(0);
  return PyLong_FromUnsignedLong(host().ledger.calls(self->last_managed));
}

// None while the capsule lives; then True if a consumer renamed it, False if not.
PyObject* mock_capsule_renamed(MockTensor* self, PyObject*) {
  auto it = fates().find(self->last_managed);
  if (it == fates().end() || !it->second.destroyed) Py_RETURN_NONE;
  return PyBool_FromLong(it->second.renamed);
}

PyObject* mock_expected(MockTensor* self, PyObject*) {
  const dlc::TensorCase& t = dlc::tensor_catalogue()[self->tensor_index];
  return Py_BuildValue("(KK)", static_cast<unsigned long long>(t.digest),
                       static_cast<unsigned long long>(t.elements));
}

PyMethodDef mock_methods[] = {
    {"__dlpack__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(mock_dlpack)),
     METH_VARARGS | METH_KEYWORDS, "Export as a DLPack capsule (Python array API protocol)."},
    {"__dlpack_device__", reinterpret_cast<PyCFunction>(mock_dlpack_device), METH_NOARGS,
     "(device_type, device_id)"},
    {"deleter_calls", reinterpret_cast<PyCFunction>(mock_deleter_calls), METH_NOARGS,
     "How often the deleter of the last exported struct ran (LIFE-3: exactly once)."},
    {"capsule_renamed", reinterpret_cast<PyCFunction>(mock_capsule_renamed), METH_NOARGS,
     "None while the last capsule lives; then whether its consumer renamed it (LIFE-1)."},
    {"expected", reinterpret_cast<PyCFunction>(mock_expected), METH_NOARGS,
     "(digest, elements) a correct reader of the tensor reports."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot mock_slots[] = {
    {Py_tp_doc, const_cast<char*>("A dlconform mock producer's tensor, exported through __dlpack__.")},
    {Py_tp_methods, mock_methods},
    {Py_tp_init, reinterpret_cast<void*>(mock_init)},
    {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
    {0, nullptr}};
PyType_Spec mock_spec = {"_dlconform.MockTensor", sizeof(MockTensor), 0, Py_TPFLAGS_DEFAULT,
                         mock_slots};

// ---------------------------------------------------------------------------------------------
// consume()

PyObject* violations_list(const dlc::ValidateResult& r) {
  PyObject* list = PyList_New(0);
  for (int i = 0; i < r.count; ++i) {
    const dlc::Violation& v = r.violations[i];
    PyObject* item = Py_BuildValue("(sss)", dlc::id_of(v.rule), dlc::to_string(v.severity()),
                                   v.message);
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  return list;
}

PyObject* consume(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"obj", "max_version", nullptr};
  PyObject* obj = nullptr;
  PyObject* max_version = nullptr;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O", const_cast<char**>(keywords), &obj,
                                   &max_version)) {
    return nullptr;
  }
  DLCVersion asked{1, 3};
  if (max_version != nullptr && max_version != Py_None && !parse_version(max_version, &asked)) {
    return nullptr;
  }
  const bool ask = max_version != Py_None;
  // VER-4: ask for our version; a producer that predates the keyword raises TypeError.
  PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
  if (method == nullptr) return nullptr;
  PyObject* capsule = nullptr;
  bool fell_back = false;
  PyObject* type_error = nullptr;
  if (ask) {
    PyObject* empty = PyTuple_New(0);
    PyObject* kw = Py_BuildValue("{s:(II)}", "max_version", asked.major, asked.minor);
    capsule = PyObject_Call(method, empty, kw);
    Py_DECREF(empty);
    Py_DECREF(kw);
    if (capsule == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyObject *type, *value, *trace;
      PyErr_Fetch(&type, &value, &trace);
      type_error = value != nullptr ? PyObject_Str(value) : nullptr;
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(trace);
      fell_back = true;
    }
  }
  if (!ask || fell_back) capsule = PyObject_CallNoArgs(method);
  Py_DECREF(method);
  if (capsule == nullptr) {
    Py_XDECREF(type_error);
    return nullptr;
  }
  if (!PyCapsule_CheckExact(capsule)) {
    Py_DECREF(capsule);
    Py_XDECREF(type_error);
    PyErr_SetString(PyExc_TypeError, "expected __dlpack__ to return a PyCapsule");
    return nullptr;
  }
  const char* name = PyCapsule_GetName(capsule);
  const std::string capsule_name = name != nullptr ? name : "";
  const bool versioned = capsule_name == "dltensor_versioned";
  if (!versioned && capsule_name != "dltensor") {
    Py_DECREF(capsule);
    Py_XDECREF(type_error);
    PyErr_Format(PyExc_ValueError, "expected capsule name dltensor or dltensor_versioned but found %s",
                 capsule_name.c_str());
    return nullptr;
  }
  void* pointer = PyCapsule_GetPointer(capsule, name);
  // LIFE-1: take ownership before anything can fail.
  PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor");

  dlc::ValidateOptions options;
  options.level = dlc::Level::full;
  options.consumer_version = {1, 3};
  const DLCHandoff handoff{versioned ? "dltensor_versioned" : "dltensor", pointer};
  dlc::ValidateResult r;
  dlc::validate(handoff, options, &r);
  const DLCObservation& o = r.observation;
  PyObject* shape = PyTuple_New(o.ndim > 0 && o.ndim <= 32 ? o.ndim : 0);
  PyObject* strides = PyTuple_New(o.ndim > 0 && o.ndim <= 32 && o.has_strides ? o.ndim : 0);
  for (int i = 0; i < o.ndim && i < 32; ++i) {
    PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(o.shape[i]));
    if (o.has_strides) PyTuple_SET_ITEM(strides, i, PyLong_FromLongLong(o.strides[i]));
  }
  PyObject* result = Py_BuildValue(
      "{s:s,s:O,s:O,s:(II),s:K,s:(ii),s:(iii),s:i,s:N,s:N,s:K,s:K,s:K,s:O,s:N}", "capsule",
      capsule_name.c_str(), "fell_back", fell_back ? Py_True : Py_False, "type_error",
      type_error != nullptr ? type_error : Py_None, "version", o.version.major, o.version.minor,
      "flags", static_cast<unsigned long long>(o.flags), "device", o.device.device_type,
      o.device.device_id, "dtype", o.dtype.code, o.dtype.bits, o.dtype.lanes, "ndim", o.ndim,
      "shape", shape, "strides", o.has_strides ? strides : (Py_DECREF(strides), Py_None),
      "byte_offset", static_cast<unsigned long long>(o.byte_offset), "digest",
      static_cast<unsigned long long>(o.digest), "elements",
      static_cast<unsigned long long>(o.elements_read), "accepted",
      r.accepted ? Py_True : Py_False, "violations", violations_list(r));
  Py_XDECREF(type_error);
  // LIFE-3: exactly one deleter call, now that everything has been read.
  dlc::delete_unclaimed(DLCHandoff{handoff.name, pointer});
  Py_DECREF(capsule);
  return result;
}

PyObject* tensor_names(PyObject*, PyObject*) {
  PyObject* list = PyList_New(0);
  for (const dlc::TensorCase& t : dlc::tensor_catalogue()) {
    const bool valid = dlc::valid_for(t, DLCVersion{1, 3}, DLC_MAX_NDIM);
    PyObject* item = Py_BuildValue("(sssi)", t.name.c_str(), dlc::id_of(t.rule),
                                   valid ? "valid" : "invalid", t.spec.device.device_type);
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  return list;
}

PyObject* digest(PyObject*, PyObject* args) {
  Py_buffer view;
  if (!PyArg_ParseTuple(args, "y*", &view)) return nullptr;
  const uint64_t d = dlc_digest_update(dlc_digest_init(), view.buf, static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  return PyLong_FromUnsignedLongLong(d);
}

PyObject* stray_deleter_calls(PyObject*, PyObject*) {
  return PyLong_FromUnsignedLong(host().ledger.stray_calls());
}

PyMethodDef module_methods[] = {
    {"consume", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(consume)),
     METH_VARARGS | METH_KEYWORDS, "Import obj.__dlpack__() as the spec says; see the module doc."},
    {"tensor_names", tensor_names, METH_NOARGS,
     "[(name, rule, 'must-accept' or 'may-refuse', device_type)] of the tensor catalogue."},
    {"digest", digest, METH_VARARGS, "FNV-1a 64 of a bytes-like object (dlc_digest)."},
    {"stray_deleter_calls", stray_deleter_calls, METH_NOARGS,
     "Deleter calls on structs never produced or already deleted (LIFE-3)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_dlconform",
                          "dlconform's CPython capsule bridge.", -1, module_methods,
                          nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dlconform() {
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  PyObject* mock_type = PyType_FromSpec(&mock_spec);
  if (mock_type == nullptr || PyModule_AddObject(module, "MockTensor", mock_type) < 0) {
    Py_XDECREF(mock_type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
