// _dlconform_planted_capsules: the capsule destructor of python/planted_producers.py, in C
// because a capsule may die while an exception propagates, where a ctypes callback cannot run.
// It does what DLPack's Python spec asks of a producer: a capsule that dies unconsumed (still
// named dltensor or dltensor_versioned) calls its struct's deleter; a used_* one does not. The
// deleter may be Python code (a ctypes function), so a pending exception is set aside around it.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlpack/dlpack.h>

#include <cstdint>
#include <cstring>

namespace {

void delete_if_unconsumed(PyObject* capsule) {
  const char* name = PyCapsule_GetName(capsule);
  if (name == nullptr) {
    PyErr_Clear();
    return;
  }
  const bool legacy = std::strcmp(name, "dltensor") == 0;
  const bool versioned = std::strcmp(name, "dltensor_versioned") == 0;
  if (!legacy && !versioned) return;  // consumed: the deleter is the consumer's to call
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  void* pointer = PyCapsule_GetPointer(capsule, name);
  if (pointer == nullptr) {
    PyErr_Clear();
  } else if (versioned) {
    auto* managed = static_cast<DLManagedTensorVersioned*>(pointer);
    if (managed->deleter != nullptr) managed->deleter(managed);
  } else {
    auto* managed = static_cast<DLManagedTensor*>(pointer);
    if (managed->deleter != nullptr) managed->deleter(managed);
  }
  PyErr_Restore(type, value, traceback);
}

// destructor(): the address of the destructor, for PyCapsule_New through ctypes.
PyObject* destructor(PyObject*, PyObject*) {
  return PyLong_FromUnsignedLongLong(reinterpret_cast<uintptr_t>(&delete_if_unconsumed));
}

PyMethodDef module_methods[] = {
    {"destructor", destructor, METH_NOARGS,
     "The address of a PyCapsule_Destructor that calls the deleter of an unconsumed capsule."},
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
