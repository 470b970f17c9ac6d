// A capsule released while an exception propagates (the peers' P-55, NumPy's
// test_dlpack_destructor_exception): the producer's capsule destructor runs with an error set,
// and must leave it as it was (LIFE-2: the destructor is the producer's). The facts are read
// here; the driver files the finding.
#include <string>

#include "bridge.h"

namespace dlc::bridge {

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
