// What the plugins that embed CPython share (nanobind-ndarray, python-importer): the pending
// exception as one line, integers out of Python, the folder a plugin was loaded from. Include
// <Python.h> first; everything here is in Python's stable ABI (3.10), so a plugin built against
// it may use this too.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>

namespace dlc_adapter {

// str(o) as UTF-8; empty when it has none (any exception cleared).
inline std::string python_text(PyObject* o) {
  if (o == nullptr) return {};
  PyObject* s = PyObject_Str(o);
  std::string out;
  if (s != nullptr) {
    Py_ssize_t n = 0;
    const char* u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u != nullptr) out.assign(u, static_cast<size_t>(n));
    Py_DECREF(s);
  }
  if (PyErr_Occurred()) PyErr_Clear();
  return out;
}

// The pending Python exception as one line, "TypeName: message", cleared.
inline std::string fetch_python_error() {
  if (!PyErr_Occurred()) return "no Python exception set";
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  std::string text;
  if (type != nullptr) {
    PyObject* name = PyObject_GetAttrString(type, "__name__");
    text = python_text(name);
    Py_XDECREF(name);
  }
  const std::string message = python_text(value);
  if (!message.empty()) text += ": " + message;
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return text.empty() ? "unknown Python error" : text;
}

// A Python int as int64 (with the GIL); false if it is not one.
inline bool to_int64(PyObject* o, int64_t* out) {
  if (o == nullptr || !PyLong_Check(o)) return false;
  const long long v = PyLong_AsLongLong(o);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  *out = v;
  return true;
}

// Calls fn() under the GIL and drops what it returns or raises: the plugins' release(), where
// the library lets go of what it imported and calls the producer's deleter.
inline void call_and_discard(PyObject* fn) {
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject* r = PyObject_CallNoArgs(fn);
  if (r == nullptr) {
    PyErr_Clear();
  } else {
    Py_DECREF(r);
  }
  PyGILState_Release(gil);
}

}  // namespace dlc_adapter
