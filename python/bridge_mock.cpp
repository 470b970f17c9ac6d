// MockTensor: a mock producer plugin's tensor, in guarded memory with the deleter ledger, behind
// __dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) and __dlpack_device__();
// frameworks import it, and judge_import (dlconform_bridge.cpp) judges what they did with it.
#include <dlpack/dlpack.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "bridge.h"
#include "catalogue.h"
#include "phase.h"

namespace dlc::bridge {

dlc::HostState& host() { return dlc::process_host(); }

// What became of each capsule we handed out, keyed by the managed struct it carried.
std::unordered_map<void*, CapsuleFate>& fates() {
  static auto* map = new std::unordered_map<void*, CapsuleFate>();
  return *map;
}

std::unordered_map<std::string, dlc::LoadedPlugin>& plugins() {
  static auto* map = new std::unordered_map<std::string, dlc::LoadedPlugin>();
  return *map;
}

const dlc::LoadedPlugin* load(const std::string& path, uint32_t role) {
  auto it = plugins().find(path);
  if (it != plugins().end()) return &it->second;
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none) {
    PyErr_SetString(PyExc_OSError, r.message.c_str());
    return nullptr;
  }
  if ((r.plugin.table->roles & role) == 0) {
    PyErr_Format(PyExc_ValueError, "%s: expected a %s plugin but found none", path.c_str(),
                 role == DLC_ROLE_PRODUCER ? "producer" : "consumer");
    return nullptr;
  }
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&host().table, &r.plugin.state, error, sizeof error) != DLC_OK) {
    PyErr_Format(PyExc_OSError, "%s: create() failed: %s", path.c_str(), error);
    return nullptr;
  }
  return &plugins().emplace(path, r.plugin).first->second;
}

PyObject* finding_tuple(const dlc::Finding& f) {
  if (!f.any()) Py_RETURN_NONE;
  return Py_BuildValue("(ssss)", dlc::name_of(f.cls), dlc::id_of(f.rule),
                       dlc::to_string(f.severity()), f.words);
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

void capsule_destructor(PyObject* capsule) {
  // The last reference often dies while the consumer's own exception is in flight (a refusal
  // dropping the capsule): keep it. Clearing it turned a BufferError into "SystemError: ...
  // returned NULL without setting an exception" in the consumer's name.
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  void* managed = PyCapsule_GetContext(capsule);
  CapsuleFate& fate = fates()[managed];
  fate.destroyed = true;
  const char* name = PyCapsule_GetName(capsule);
  if (name != nullptr && std::strncmp(name, "used_", 5) == 0) {
    fate.renamed = true;
    fate.name_after = name;
  } else if (name != nullptr && host().ledger.calls(managed) > 0) {
    // The consumer called the deleter and kept the capsule's name: a real producer's destructor
    // deletes the tensor again here (a double free). The judge names the cause, the missing
    // rename (capsule-not-renamed [LIFE-1]), as the fuzz targets do; the second call is not made.
  } else if (name != nullptr) {
    fate.deleted = true;
    dlc::delete_unclaimed(DLCHandoff{name, managed});  // LIFE-2
  }
  PyErr_Clear();
  PyErr_Restore(type, value, trace);
}

namespace {

int mock_init(MockTensor* self, PyObject* args, PyObject*) {
  const char* path = nullptr;
  const char* tensor = nullptr;
  if (!PyArg_ParseTuple(args, "ss", &path, &tensor)) return -1;
  self->producer = load(path, DLC_ROLE_PRODUCER);
  if (self->producer == nullptr) return -1;
  self->tensor_index = dlc::find_tensor(tensor);
  if (self->tensor_index < 0) {
    PyErr_Format(PyExc_ValueError, "expected a tensor name of the catalogue but found '%s'", tensor);
    return -1;
  }
  self->last_managed = nullptr;
  self->held = nullptr;
  self->holding = false;
  self->refused = false;
  self->type_error_unanswered = false;
  self->asked = false;
  self->asked_version = {};
  self->calls = 0;
  return 0;
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
  request.copy = copy == Py_None ? -1 : (PyObject_IsTrue(copy) ? 1 : 0);
  if (max_version != Py_None) {
    request.has_max_version = 1;
    if (!parse_version(max_version, &request.max_version)) return nullptr;
  }
  if (self->calls++ == 0 && request.has_max_version) {
    self->asked = true;
    self->asked_version = request.max_version;
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
  int rc = DLC_OK;
  {
    dlc::ScopedPhase phase("produce()", p.name, dlc::Party::producer);
    rc = p.produce(self->producer->state, &request, &handoff, error, sizeof error);
  }
  self->type_error_unanswered = rc == DLC_ERR_TYPE && request.has_max_version;
  if (rc == DLC_ERR_TYPE) {
    PyErr_Format(PyExc_TypeError, "__dlpack__(): %s", error);
    return nullptr;
  }
  if (rc == DLC_ERR_INTERNAL) {  // the harness's failure, never a refusal a framework sees
    PyErr_Format(PyExc_RuntimeError,
                 "__dlpack__(): the mock producer failed (code %d) with %zu of %zu guarded "
                 "blocks live: %s",
                 rc, host().arena.live_blocks(), dlc::GuardArena::kMaxLiveBlocks,
                 error[0] != '\0' ? error : "no guarded memory left");
    return nullptr;
  }
  if (rc != DLC_OK) {
    self->refused = true;
    PyErr_Format(PyExc_BufferError, "__dlpack__(): %s", error);
    return nullptr;
  }
  const char* name = handoff.name != nullptr && std::strcmp(handoff.name, "dltensor_versioned") == 0
                         ? "dltensor_versioned"
                         : "dltensor";
  host().arena.tag_struct(handoff.pointer, dlc::abi::struct_kind_of_name(name));
  PyObject* capsule = PyCapsule_New(handoff.pointer, name, capsule_destructor);
  if (capsule == nullptr) {
    dlc::delete_unclaimed(DLCHandoff{name, handoff.pointer});
    return nullptr;
  }
  PyCapsule_SetContext(capsule, handoff.pointer);
  fates()[handoff.pointer] = CapsuleFate{};
  self->last_managed = handoff.pointer;
  if (self->holding) {  // the driver reads its name once the consumer returns (release_held)
    Py_INCREF(capsule);
    PyObject* previous = self->held;
    self->held = capsule;
    Py_XDECREF(previous);
  }
  return capsule;
}

// await_deleter(ms): waits up to `ms` milliseconds, the GIL released, for the first deleter call
// on the last struct handed out (a consumer may free an array's buffer on its own thread, as
// JAX's runtime does, after the array died); the calls so far. A struct without a deleter
// (DLC_SPEC_NULL_DELETER) is not waited for.
PyObject* mock_await_deleter(MockTensor* self, PyObject* args) {
  int ms = 0;
  if (!PyArg_ParseTuple(args, "i", &ms)) return nullptr;
  const dlc::TensorCase& t = dlc::tensor_catalogue()[self->tensor_index];
  const void* managed = self->last_managed;
  const dlc::DeleterLedger::Entry* entry =
      managed != nullptr ? host().ledger.find(managed) : nullptr;
  if (entry != nullptr && (t.spec.options & DLC_SPEC_NULL_DELETER) == 0) {
    Py_BEGIN_ALLOW_THREADS
    // The consumer's thread counts the call: read it atomically.
    for (int waited = 0; waited < ms && __atomic_load_n(&entry->calls, __ATOMIC_ACQUIRE) == 0;
         ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    Py_END_ALLOW_THREADS
  }
  return PyLong_FromUnsignedLong(managed != nullptr ? host().ledger.calls(managed) : 0);
}

// hold(): the next capsules handed out are held until release_held(): a consumer may clear a
// capsule's destructor when it takes it, and its name is then read while the driver holds it.
PyObject* mock_hold(MockTensor* self, PyObject*) {
  self->holding = true;
  Py_RETURN_NONE;
}

// release_held(): (name, destructor kept, name static) of the last capsule handed out since
// hold(), or None: static when the name's bytes lie in a loaded object (in_loaded_image). The
// capsule is let go (its destructor runs now if nobody else holds it), holding stops.
PyObject* mock_release_held(MockTensor* self, PyObject*) {
  self->holding = false;
  if (self->held == nullptr) Py_RETURN_NONE;
  const char* name = PyCapsule_GetName(self->held);
  const bool kept = PyCapsule_GetDestructor(self->held) == capsule_destructor;
  PyErr_Clear();  // a capsule the consumer left without a name or destructor raises nothing here
  PyObject* out = Py_BuildValue("(sOO)", name != nullptr ? name : "", kept ? Py_True : Py_False,
                                in_loaded_image(name) ? Py_True : Py_False);
  Py_CLEAR(self->held);
  return out;
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

PyObject* mock_refused(MockTensor* self, PyObject*) { return PyBool_FromLong(self->refused); }

// The max_version of the consumer's first __dlpack__ call, or None when it asked for none.
PyObject* mock_asked(MockTensor* self, PyObject*) {
  if (!self->asked) Py_RETURN_NONE;
  return Py_BuildValue("(II)", self->asked_version.major, self->asked_version.minor);
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
    {"await_deleter", reinterpret_cast<PyCFunction>(mock_await_deleter), METH_VARARGS,
     "await_deleter(ms): wait up to ms for the first deleter call (none for a NULL deleter); "
     "the calls so far."},
    {"hold", reinterpret_cast<PyCFunction>(mock_hold), METH_NOARGS,
     "Hold the next capsules handed out until release_held()."},
    {"release_held", reinterpret_cast<PyCFunction>(mock_release_held), METH_NOARGS,
     "(name, destructor kept, name static) of the last capsule held, or None; the capsule let "
     "go and holding stopped."},
    {"asked", reinterpret_cast<PyCFunction>(mock_asked), METH_NOARGS,
     "The max_version of the first __dlpack__ call (the consumer's header), or None."},
    {"refused", reinterpret_cast<PyCFunction>(mock_refused), METH_NOARGS,
     "Whether the producer refused a request (as the rules make it for some tensors)."},
    {"expected", reinterpret_cast<PyCFunction>(mock_expected), METH_NOARGS,
     "(digest, elements) a correct reader of the tensor reports."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* make_type(const char* name, size_t basic_size, const char* doc, PyMethodDef* methods,
                    void* init) {
  PyType_Slot slots[] = {{Py_tp_doc, const_cast<char*>(doc)},
                         {Py_tp_methods, methods},
                         {Py_tp_init, init},
                         {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
                         {0, nullptr}};
  PyType_Spec spec = {name, static_cast<int>(basic_size), 0, Py_TPFLAGS_DEFAULT, slots};
  return PyType_FromSpec(&spec);
}
PyObject* g_mock_type = nullptr;

PyObject* make_mock_type() {
  g_mock_type = make_type("_dlconform.MockTensor", sizeof(MockTensor),
                          "A dlconform mock producer's tensor, exported through __dlpack__.",
                          mock_methods, reinterpret_cast<void*>(mock_init));
  return g_mock_type;
}

}  // namespace dlc::bridge
