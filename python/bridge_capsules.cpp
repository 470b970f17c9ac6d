// What the bridge reads of a capsule a framework hands out, and does with it, for the driver's
// cases: its deleter interposed and counted (framework pairs), the struct kind, flags, device and
// first element read before a consumer takes it, the guard arena's blocks, and the capsule
// released while an exception propagates (the peers' P-55: the producer's destructor must leave
// the exception as it was, LIFE-2). The facts are read here; the verdicts are the judge's.
#include <cstdint>
#include <string>

#include "abi.h"
#include "alloc_track.h"
#include "bridge.h"

namespace dlc::bridge {
PyObject* capsule_argument(PyObject* args) {
  PyObject* capsule = nullptr;
  if (!PyArg_ParseTuple(args, "O", &capsule)) return nullptr;
  if (!PyCapsule_CheckExact(capsule)) {
    PyErr_SetString(PyExc_TypeError, "expected a PyCapsule");
    return nullptr;
  }
  return capsule;
}

namespace {

// The one argument's capsule name and pointer; false, with a Python exception set, if it is
// not a valid capsule.
bool capsule_argument(PyObject* args, const char** name, void** pointer) {
  PyObject* capsule = dlc::bridge::capsule_argument(args);
  if (capsule == nullptr) return false;
  *name = PyCapsule_GetName(capsule);
  *pointer = PyCapsule_GetPointer(capsule, *name);
  return *pointer != nullptr;
}

// The tensor a capsule carries (a legacy struct, or a versioned one of major 1), read before a
// consumer takes it; nullptr for a struct of another major.
const dlc::abi::Tensor* tensor_in_capsule(const char* name, void* pointer) {
  if (dlc::abi::struct_kind_of_name(name) == dlc::abi::StructKind::versioned) {
    if (static_cast<dlc::abi::FrozenHead*>(pointer)->version.major != 1) return nullptr;
    return &static_cast<dlc::abi::ManagedTensorVersioned*>(pointer)->dl_tensor;
  }
  return &static_cast<dlc::abi::ManagedTensor*>(pointer)->dl_tensor;
}

}  // namespace

bool in_loaded_image(const void* p) {
  return dlc::alloc_track::loaded_object_of(p) != nullptr;
}

// capsule_name_storage(capsule): (name, static) of the name a capsule holds, static when its
// bytes lie in a loaded object (python_spec.rst: the names "must be statically allocated").
PyObject* capsule_name_storage(PyObject*, PyObject* args) {
  PyObject* capsule = capsule_argument(args);
  if (capsule == nullptr) return nullptr;
  const char* name = PyCapsule_GetName(capsule);
  if (name == nullptr && PyErr_Occurred()) return nullptr;
  return Py_BuildValue("(sO)", name != nullptr ? name : "NULL",
                       in_loaded_image(name) ? Py_True : Py_False);
}

// static_capsule_names(): {name: address} of the four DLPack capsule names in this module's
// static storage, for capsules made through ctypes, whose bytes objects are heap memory.
PyObject* static_capsule_names(PyObject*, PyObject*) {
  static const char* const kNames[] = {"dltensor", "dltensor_versioned", "used_dltensor",
                                       "used_dltensor_versioned"};
  PyObject* out = PyDict_New();
  for (const char* name : kNames) {
    PyObject* key = PyBytes_FromString(name);
    PyObject* address = PyLong_FromUnsignedLongLong(
        static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(name)));
    if (out == nullptr || key == nullptr || address == nullptr ||
        PyDict_SetItem(out, key, address) < 0) {
      Py_XDECREF(key);
      Py_XDECREF(address);
      Py_XDECREF(out);
      return nullptr;
    }
    Py_DECREF(key);
    Py_DECREF(address);
  }
  return out;
}

// interpose(capsule): (handle, interposed): the ledger counts the deleter calls of the struct a
// capsule carries (framework pairs); deleter_calls(handle) reads them, forget(handle) drops it.
PyObject* interpose(PyObject*, PyObject* args) {
  const char* name = nullptr;
  void* pointer = nullptr;
  if (!capsule_argument(args, &name, &pointer)) return nullptr;
  dlc::abi::StructKind kind = dlc::abi::struct_kind_of_name(name);
  if (kind == dlc::abi::StructKind::versioned &&
      static_cast<dlc::abi::FrozenHead*>(pointer)->version.major != 1) {
    kind = dlc::abi::StructKind::foreign_major;
  }
  const bool interposed = host().ledger.interpose(pointer, kind);
  const auto handle = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer));
  return Py_BuildValue("(KO)", handle, interposed ? Py_True : Py_False);
}

// capsule_kind(capsule): "legacy" or "versioned M.m", what crossed (read before the consumer
// takes it).
PyObject* capsule_kind(PyObject*, PyObject* args) {
  const char* name = nullptr;
  void* pointer = nullptr;
  if (!capsule_argument(args, &name, &pointer)) return nullptr;
  if (dlc::abi::struct_kind_of_name(name) != dlc::abi::StructKind::versioned) {
    return PyUnicode_FromString("legacy");
  }
  const DLCVersion v = static_cast<dlc::abi::FrozenHead*>(pointer)->version;
  return PyUnicode_FromFormat("versioned %u.%u", v.major, v.minor);
}

// capsule_flags(capsule): the flags of a versioned struct of major 1; 0 for anything else.
PyObject* capsule_flags(PyObject*, PyObject* args) {
  const char* name = nullptr;
  void* pointer = nullptr;
  if (!capsule_argument(args, &name, &pointer)) return nullptr;
  if (dlc::abi::struct_kind_of_name(name) != dlc::abi::StructKind::versioned ||
      static_cast<dlc::abi::FrozenHead*>(pointer)->version.major != 1) {
    return PyLong_FromLong(0);
  }
  const auto* managed = static_cast<dlc::abi::ManagedTensorVersioned*>(pointer);
  return PyLong_FromUnsignedLongLong(managed->flags);
}

// capsule_device(capsule): (device type, device id) of the tensor a capsule carries.
PyObject* capsule_device(PyObject*, PyObject* args) {
  const char* name = nullptr;
  void* pointer = nullptr;
  if (!capsule_argument(args, &name, &pointer)) return nullptr;
  const dlc::abi::Tensor* t = tensor_in_capsule(name, pointer);
  if (t == nullptr) Py_RETURN_NONE;
  return Py_BuildValue("(ii)", t->device.device_type, t->device.device_id);
}

// capsule_data(capsule): the address of the first element (data + byte_offset) of the tensor a
// capsule carries, which tells whether two arrays share memory; None for another major.
PyObject* capsule_data(PyObject*, PyObject* args) {
  const char* name = nullptr;
  void* pointer = nullptr;
  if (!capsule_argument(args, &name, &pointer)) return nullptr;
  const dlc::abi::Tensor* t = tensor_in_capsule(name, pointer);
  if (t == nullptr) Py_RETURN_NONE;
  return PyLong_FromUnsignedLongLong(reinterpret_cast<uintptr_t>(t->data) + t->byte_offset);
}

// data_live(address): whether the guarded block holding `address` is live and writable: a mock
// producer's data its deleter has not freed (a write there reaches no other memory).
PyObject* data_live(PyObject*, PyObject* args) {
  unsigned long long address = 0;
  if (!PyArg_ParseTuple(args, "K", &address)) return nullptr;
  const dlc::BlockFacts facts = host().arena.facts(static_cast<uintptr_t>(address));
  return PyBool_FromLong(facts.found && facts.state == dlc::BlockState::live && facts.offset >= 0 &&
                         static_cast<size_t>(facts.offset) < facts.size);
}

PyObject* forget(PyObject*, PyObject* args) {
  unsigned long long handle = 0;
  if (!PyArg_ParseTuple(args, "K", &handle)) return nullptr;
  host().ledger.forget(reinterpret_cast<const void*>(static_cast<uintptr_t>(handle)));
  Py_RETURN_NONE;
}

// guarded_blocks(): blocks of the guard arena still live in this process (never deleted: a
// framework's leak, or a capsule it keeps), out of how many it can hold, and whether the arena
// is three quarters used (live blocks, or the address space its freed blocks keep).
PyObject* guarded_blocks(PyObject*, PyObject*) {
  return Py_BuildValue("(nnO)", static_cast<Py_ssize_t>(host().arena.live_blocks()),
                       static_cast<Py_ssize_t>(dlc::GuardArena::kMaxLiveBlocks),
                       host().arena.nearly_full() ? Py_True : Py_False);
}

PyObject* deleter_calls(PyObject*, PyObject* args) {
  unsigned long long handle = 0;
  if (!PyArg_ParseTuple(args, "K", &handle)) return nullptr;
  const void* pointer = reinterpret_cast<const void*>(static_cast<uintptr_t>(handle));
  return PyLong_FromUnsignedLong(host().ledger.calls(pointer));
}

PyObject* release_while_raising(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  bool fell_back = false;
  PyObject* type_error = nullptr;
  PyObject* capsule = ask_for_capsule(obj, true, DLCVersion{1, 3}, &fell_back, &type_error);
  Py_XDECREF(type_error);
  if (capsule == nullptr) return nullptr;  // the export failed: the caller's to judge
  if (!PyCapsule_CheckExact(capsule)) {    // not-a-capsule: the caller's to judge
    const std::string what = type_name(capsule);
    Py_DECREF(capsule);
    const std::string words = "__dlpack__ returned " + what + ", not a capsule";
    return Py_BuildValue("(Os)", Py_None, words.c_str());
  }
  static const char kMarker[] = "dlconform: an exception in flight while a capsule dies";
  PyErr_SetString(PyExc_RuntimeError, kMarker);
  Py_DECREF(capsule);  // the only reference, unless the producer keeps one
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  std::string found = "no exception pending";
  bool kept = false;
  if (type != nullptr) {
    PyErr_NormalizeException(&type, &value, &traceback);
    PyObject* str = value != nullptr ? PyObject_Str(value) : nullptr;
    const std::string text = str != nullptr ? utf8(str) : "";
    Py_XDECREF(str);
    PyErr_Clear();
    kept = type == PyExc_RuntimeError && text == kMarker;
    found = (value != nullptr ? type_name(value) : std::string("an exception")) +
            (text.empty() ? "" : ": " + text);
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  return Py_BuildValue("(Os)", kept ? Py_True : Py_False, found.c_str());
}

}  // namespace dlc::bridge
