// _dlconform_planted_capsules: the capsule destructors of python/planted_producers.py, in C
// because a capsule may die while an exception propagates, where a ctypes callback cannot run,
// and the deleter of deleter-without-gil, which must run where ctypes would take the GIL.
// It does what DLPack's Python spec asks of a producer: a capsule that dies unconsumed (still
// named dltensor or dltensor_versioned) calls its struct's deleter; a used_* one does not. The
// deleter may be Python code (a ctypes function), so a pending exception is set aside around it.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

namespace {

// Calls the deleter of the struct at `pointer`, with any pending exception set aside (the deleter
// may be Python code).
void call_deleter(void* pointer, bool versioned) {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  if (versioned) {
    auto* managed = static_cast<DLManagedTensorVersioned*>(pointer);
    if (managed->deleter != nullptr) managed->deleter(managed);
  } else {
    auto* managed = static_cast<DLManagedTensor*>(pointer);
    if (managed->deleter != nullptr) managed->deleter(managed);
  }
  PyErr_Restore(type, value, traceback);
}

// The pointer a capsule holds under its own name, or nullptr (no error left set).
void* pointer_of(PyObject* capsule, const char* name) {
  void* pointer = name != nullptr ? PyCapsule_GetPointer(capsule, name) : nullptr;
  if (pointer == nullptr) PyErr_Clear();
  return pointer;
}

void delete_if_unconsumed(PyObject* capsule) {
  const char* name = PyCapsule_GetName(capsule);
  if (name == nullptr) {
    PyErr_Clear();
    return;
  }
  const bool versioned = std::strcmp(name, "dltensor_versioned") == 0;
  if (!versioned && std::strcmp(name, "dltensor") != 0) return;  // consumed: not ours to delete
  if (void* pointer = pointer_of(capsule, name)) call_deleter(pointer, versioned);
}

// The planted defect of name-blind-destructor (LIFE-2): the deleter is called whatever the name,
// so a capsule its consumer renamed used_* and deleted is deleted again.
void delete_whatever_the_name(PyObject* capsule) {
  const char* name = PyCapsule_GetName(capsule);
  void* pointer = pointer_of(capsule, name);
  if (pointer == nullptr) return;
  const size_t length = std::strlen(name);
  const size_t suffix = std::strlen("dltensor_versioned");  // of both its names, used or not
  call_deleter(pointer,
               length >= suffix && std::strcmp(name + length - suffix, "dltensor_versioned") == 0);
}

// The planted defect of destructor-clears-exception (LIFE-2): it clears whatever error is
// pending before it deletes, so an exception in flight while the capsule dies is lost.
void delete_clearing_errors(PyObject* capsule) {
  PyErr_Clear();
  delete_if_unconsumed(capsule);
}

// deleter-without-gil (LIFE-7): a struct's own deleter, wrapped by one that first releases a
// Python object of its own without taking the GIL, then takes it for the rest. Called with the
// GIL held, as every Python consumer calls it, it is correct; on a thread without it, the release
// uses Python's allocator unlocked.
std::mutex g_wrapped_mutex;
std::map<void*, std::pair<void*, PyObject*>> g_wrapped;  // struct -> (its own deleter, object)

template <typename Managed>
void release_without_gil(Managed* self) {
  std::pair<void*, PyObject*> entry{nullptr, nullptr};
  {
    std::lock_guard<std::mutex> lock(g_wrapped_mutex);
    auto found = g_wrapped.find(self);
    if (found == g_wrapped.end()) return;
    entry = found->second;
    g_wrapped.erase(found);
  }
  Py_DECREF(entry.second);  // the planted defect: no GIL is taken for it
  const PyGILState_STATE state = PyGILState_Ensure();
  reinterpret_cast<void (*)(Managed*)>(entry.first)(self);
  PyGILState_Release(state);
}

// release_without_gil(address, versioned, obj): the struct at `address` gets the planted deleter;
// it holds a reference to obj (a new object of its own: nothing else releases it).
PyObject* plant_release_without_gil(PyObject*, PyObject* args) {
  unsigned long long address = 0;
  int versioned = 0;
  PyObject* object = nullptr;
  if (!PyArg_ParseTuple(args, "KpO", &address, &versioned, &object)) return nullptr;
  void* pointer = reinterpret_cast<void*>(static_cast<uintptr_t>(address));
  void* own = nullptr;
  if (versioned) {
    auto* managed = static_cast<DLManagedTensorVersioned*>(pointer);
    own = reinterpret_cast<void*>(managed->deleter);
    managed->deleter = &release_without_gil<DLManagedTensorVersioned>;
  } else {
    auto* managed = static_cast<DLManagedTensor*>(pointer);
    own = reinterpret_cast<void*>(managed->deleter);
    managed->deleter = &release_without_gil<DLManagedTensor>;
  }
  Py_INCREF(object);
  std::lock_guard<std::mutex> lock(g_wrapped_mutex);
  g_wrapped[pointer] = {own, object};
  Py_RETURN_NONE;
}

// destructors(): {name: address} of each destructor, for PyCapsule_New through ctypes: the right
// one ("unconsumed") and the planted ones ("name-blind", "clearing").
PyObject* destructors(PyObject*, PyObject*) {
  auto address = [](void (*destructor)(PyObject*)) {
    return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(destructor));
  };
  return Py_BuildValue("{s:K,s:K,s:K}", "unconsumed", address(&delete_if_unconsumed),
                       "name-blind", address(&delete_whatever_the_name), "clearing",
                       address(&delete_clearing_errors));
}

PyMethodDef module_methods[] = {
    {"destructors", destructors, METH_NOARGS,
     "{name: address} of the PyCapsule_Destructors: unconsumed (calls the deleter of a capsule "
     "dropped unconsumed), name-blind and clearing (planted)."},
    {"release_without_gil", plant_release_without_gil, METH_VARARGS,
     "release_without_gil(address, versioned, obj): the struct's deleter first releases obj "
     "without the GIL (planted: deleter-without-gil), then calls its own deleter with it."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                          "_dlconform_planted_capsules",
                          "The capsule destructor of the planted Python producers.",
                          -1,
                          module_methods,
                          nullptr,
                          nullptr,
                          nullptr,
                          nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dlconform_planted_capsules() { return PyModule_Create(&module_def); }
