// check_exchange_api(obj): XAPI-1 to XAPI-5 on the type's __dlpack_c_exchange_api__. This file
// finds the table: the attribute on the type (not the instance), the capsule and its name, the
// same table on every lookup (XAPI-1); the header's major, walking prev_api to a major-1 table,
// and a chain that ends (XAPI-2); the required slots (XAPI-3). bridge_xapi_calls.cpp then calls
// into the table: every call guarded against an escaping C++ exception (XAPI-3), the allocator
// (XAPI-4), and from_py_object, dltensor_from_py_object, to_py_object and current_work_stream
// (XAPI-5). planted_xapi.cpp has a table that fails each record, planted_xapi_test.py the proof.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bridge_xapi.h"

namespace dlc::bridge {
namespace xapi {

constexpr const char* kAttribute = "__dlpack_c_exchange_api__";
constexpr const char* kCapsuleName = "dlpack_exchange_api";
constexpr int kMaxChain = 16;  // a longer prev_api chain is taken for a cycle

void Records::add(const char* rule, bool ok, const std::string& words) {
  PyObject* item = Py_BuildValue("(sOs)", rule, ok ? Py_True : Py_False, words.c_str());
  if (item == nullptr || PyList_Append(list_, item) < 0) PyErr_Clear();
  Py_XDECREF(item);
}

std::string Values::text() const {
  std::string s = "[";
  for (int64_t i = 0; i < rows; ++i) {
    s += i == 0 ? "[" : ", [";
    for (int64_t j = 0; j < cols; ++j) {
      const double x = v[static_cast<size_t>(i * cols + j)];
      char number[32];  // NaN as "nan", whatever its sign bit: a scribbled block is all ones
      std::snprintf(number, sizeof number, "%s%g", j == 0 ? "" : ", ", std::isnan(x) ? NAN : x);
      s += number;
    }
    s += "]";
  }
  return s + "]";
}

bool python_values(PyObject* obj, Values* out) {
  PyObject* rows = PyObject_CallMethod(obj, "tolist", nullptr);
  bool ok = rows != nullptr && PyList_Check(rows);
  *out = Values{};
  if (ok) out->rows = PyList_Size(rows);
  for (int64_t i = 0; ok && i < out->rows; ++i) {
    PyObject* row = PyList_GetItem(rows, i);  // borrowed
    ok = PyList_Check(row) && (i == 0 || PyList_Size(row) == out->cols);
    if (!ok) break;
    out->cols = PyList_Size(row);
    ok = out->rows * out->cols <= (1 << 16);
    for (int64_t j = 0; ok && j < out->cols; ++j) {
      const double x = PyFloat_AsDouble(PyList_GetItem(row, j));
      ok = !(x == -1.0 && PyErr_Occurred());
      out->v.push_back(x);
    }
  }
  Py_XDECREF(rows);
  PyErr_Clear();
  return ok;
}

bool tensor_values(const DLTensor& t, Values* out) {
  if (t.ndim != 2 || t.shape == nullptr || t.data == nullptr || t.dtype.code != kDLFloat ||
      t.dtype.bits != 32 || t.dtype.lanes != 1 || t.device.device_type != kDLCPU) {
    return false;
  }
  const int64_t rows = t.shape[0], cols = t.shape[1];
  if (rows < 0 || cols < 0 || rows * cols > (1 << 16)) return false;
  const int64_t s0 = t.strides != nullptr ? t.strides[0] : cols;
  const int64_t s1 = t.strides != nullptr ? t.strides[1] : 1;
  *out = Values{rows, cols, {}};
  const char* first = static_cast<const char*>(t.data) + t.byte_offset;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      float x;
      std::memcpy(&x, first + (i * s0 + j * s1) * static_cast<int64_t>(sizeof x), sizeof x);
      out->v.push_back(x);
    }
  }
  return true;
}

std::string layout(const DLTensor& t) {
  std::string s = "shape [";
  for (int32_t d = 0; t.shape != nullptr && d < t.ndim && d < 8; ++d) {
    s += (d ? ", " : "") + std::to_string(t.shape[d]);
  }
  s += "], strides ";
  if (t.strides == nullptr) {
    s += "NULL";
  } else {
    s += "[";
    for (int32_t d = 0; d < t.ndim && d < 8; ++d) {
      s += (d ? ", " : "") + std::to_string(t.strides[d]);
    }
    s += "]";
  }
  return s + ", byte_offset " + std::to_string(t.byte_offset);
}

std::string take_python_error(bool* buffer_error) {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  if (buffer_error != nullptr) {
    *buffer_error = type != nullptr && PyErr_GivenExceptionMatches(type, PyExc_BufferError);
  }
  PyObject* type_name_obj =
      type != nullptr ? PyObject_GetAttrString(type, "__name__") : nullptr;
  PyObject* text = value != nullptr ? PyObject_Str(value) : nullptr;
  const std::string what = utf8(type_name_obj) + ": " + utf8(text);
  Py_XDECREF(type_name_obj);
  Py_XDECREF(text);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(traceback);
  PyErr_Clear();
  return what;
}

std::string failure_words(const char* slot, const std::string& doing, int rc) {
  if (PyErr_Occurred() == nullptr) {
    return std::string("expected ") + slot + " to return 0, or -1 with a Python exception set, " +
           "but found " + std::to_string(rc) + " without a Python exception";
  }
  return std::string("expected ") + slot + " to " + doing + " but found " + std::to_string(rc) +
         " with " + take_python_error();
}

void collect() {
  PyObject* gc = PyImport_ImportModule("gc");
  if (gc != nullptr) {
    PyObject* collected = PyObject_CallMethod(gc, "collect", nullptr);
    Py_XDECREF(collected);
    Py_DECREF(gc);
  }
  PyErr_Clear();
}

namespace {

std::string version_text(const DLPackVersion& v) {
  return std::to_string(v.major) + "." + std::to_string(v.minor);
}

// The table on type(obj), checked as far as XAPI-3's slots; then the calls.
void check(PyObject* obj, Records& rec) {
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  PyObject* attr = PyObject_GetAttrString(type, kAttribute);
  if (attr == nullptr) {
    PyErr_Clear();
    PyObject* on_instance = PyObject_GetAttrString(obj, kAttribute);
    PyErr_Clear();
    rec.add("XAPI-1", false,
            on_instance != nullptr
                ? "expected __dlpack_c_exchange_api__ on the type (dlpack.h: \"this must be "
                  "defined on the type\") but found it on the instance only"
                : "expected __dlpack_c_exchange_api__ on the type but found no such attribute");
    Py_XDECREF(on_instance);
    return;
  }
  const char* capsule_name = PyCapsule_CheckExact(attr) ? PyCapsule_GetName(attr) : nullptr;
  const bool named = capsule_name != nullptr && std::strcmp(capsule_name, kCapsuleName) == 0;
  PyErr_Clear();
  rec.add("XAPI-1", named,
          named ? "a PyCapsule named dlpack_exchange_api on the type"
                : std::string("expected a PyCapsule named dlpack_exchange_api but found ") +
                      (PyCapsule_CheckExact(attr)
                           ? std::string("one named ") + (capsule_name ? capsule_name : "NULL")
                           : "a " + type_name(attr)));
  if (!named) {
    Py_DECREF(attr);
    return;
  }
  auto* top = static_cast<const DLPackExchangeAPIHeader*>(PyCapsule_GetPointer(attr, kCapsuleName));
  PyObject* again = PyObject_GetAttrString(type, kAttribute);
  const void* top_again = again != nullptr && PyCapsule_CheckExact(again)
                              ? PyCapsule_GetPointer(again, PyCapsule_GetName(again))
                              : nullptr;
  PyErr_Clear();
  Py_XDECREF(again);
  Py_DECREF(attr);  // the table lives as long as the process (dlpack.h)
  if (top == nullptr) {
    rec.add("XAPI-1", false, "expected the capsule to hold a table but found NULL");
    return;
  }
  rec.add("XAPI-1", top_again == top,
          top_again == top ? "the same table on every lookup (cacheable per type)"
                           : "expected the same table on every lookup (a consumer caches it "
                             "per type) but found another on the second");
  // XAPI-2: a major-1 table, this one or one prev_api leads to; a chain that ends.
  const DLPackExchangeAPIHeader* h = top;
  int hops = 0;
  while (h != nullptr && h->version.major != 1 && hops < kMaxChain) {
    h = h->prev_api;
    ++hops;
  }
  if (h == nullptr || h->version.major != 1) {
    rec.add("XAPI-2", false,
            "expected header major 1, or a prev_api chain that reaches a major-1 table, but "
            "found " + version_text(top->version) +
                (top->prev_api == nullptr ? " with prev_api NULL"
                                          : " and no major-1 table behind it"));
    return;
  }
  rec.add("XAPI-2", true,
          hops == 0 ? "header version " + version_text(h->version)
                    : "header version " + version_text(top->version) + ": prev_api leads to " +
                          version_text(h->version) + " after " + std::to_string(hops) +
                          " hop(s), the table checked below");
  int chain = 0;
  for (const DLPackExchangeAPIHeader* p = top->prev_api; p != nullptr && chain < kMaxChain;
       p = p->prev_api) {
    ++chain;
  }
  rec.add("XAPI-2", chain < kMaxChain,
          chain < kMaxChain
              ? "prev_api chain of " + std::to_string(chain) + " older table(s), ending in NULL"
              : "expected the prev_api chain to end in NULL but found more than " +
                    std::to_string(kMaxChain) + " tables (a cycle)");
  // XAPI-3: the required slots. The calls below skip what is NULL.
  const auto& api = *reinterpret_cast<const DLPackExchangeAPI*>(h);
  std::string missing;
  auto need = [&](bool present, const char* slot) {
    if (!present) missing += (missing.empty() ? "" : ", ") + std::string(slot);
  };
  need(api.managed_tensor_allocator != nullptr, "managed_tensor_allocator");
  need(api.managed_tensor_from_py_object_no_sync != nullptr,
       "managed_tensor_from_py_object_no_sync");
  need(api.managed_tensor_to_py_object_no_sync != nullptr, "managed_tensor_to_py_object_no_sync");
  need(api.current_work_stream != nullptr, "current_work_stream");
  rec.add("XAPI-3", missing.empty(),
          missing.empty()
              ? "allocator, from_py_object, to_py_object and current_work_stream are non-NULL"
              : "expected allocator, from_py_object, to_py_object and current_work_stream "
                "non-NULL (dlpack.h: \"This function must not be NULL\") but found " +
                    missing + " NULL");
  check_from_py_object(api, obj, rec);
  check_sliced(api, obj, rec);
  check_dltensor(api, obj, rec);
  check_allocator(api, rec);
  check_prototype_reads(api, rec);
  check_ownership(api, rec);
  check_work_stream(api, rec);
  if (rec.escaped == 0) {
    rec.add("XAPI-3", true,
            "no C++ exception escaped the " + std::to_string(rec.calls) + " calls into the table");
  }
}

}  // namespace
}  // namespace xapi

PyObject* check_exchange_api(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  PyObject* checks = PyList_New(0);
  if (checks == nullptr) return nullptr;
  try {  // our own failures (std::bad_alloc): the table's exceptions are xapi::guarded's
    xapi::Records rec(checks);
    xapi::check(obj, rec);
  } catch (const std::exception& e) {
    Py_DECREF(checks);
    PyErr_Format(PyExc_RuntimeError, "check_exchange_api: expected to finish but found %s",
                 e.what());
    return nullptr;
  }
  return checks;
}

namespace {

// The major-1 table of obj's type (on top, or behind prev_api), or nullptr; no error stays set.
const DLPackExchangeAPI* major1_table(PyObject* obj) {
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  PyObject* attr = PyObject_GetAttrString(type, xapi::kAttribute);
  const char* name =
      attr != nullptr && PyCapsule_CheckExact(attr) ? PyCapsule_GetName(attr) : nullptr;
  const bool named = name != nullptr && std::strcmp(name, xapi::kCapsuleName) == 0;
  const auto* h =
      named ? static_cast<const DLPackExchangeAPIHeader*>(PyCapsule_GetPointer(attr, name))
            : nullptr;
  PyErr_Clear();
  Py_XDECREF(attr);
  for (int hops = 0; h != nullptr && h->version.major != 1 && hops < xapi::kMaxChain; ++hops) {
    h = h->prev_api;
  }
  if (h == nullptr || h->version.major != 1) return nullptr;
  return reinterpret_cast<const DLPackExchangeAPI*>(h);
}

// The destructor of the capsule xapi_from_py_object hands its tensor over in: the deleter of a
// tensor nobody consumed (LIFE-2), an exception in flight kept.
void from_py_object_capsule_destructor(PyObject* capsule) {
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto* m = static_cast<DLManagedTensorVersioned*>(
        PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    if (m != nullptr && m->deleter != nullptr) m->deleter(m);
  }
  PyErr_Clear();
  PyErr_Restore(type, value, trace);
}

}  // namespace

// xapi_current_work_stream(obj, device_type, device_id) -> (rc, stream as an int): what the
// type's exchange API says is its current work stream on that device (XAPI-5: on CUDA the
// stream a consumer of the framework would pass, STRM-1). None when the type has no table with
// major 1 (on top, or behind prev_api).
PyObject* xapi_current_work_stream(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  int device_type = 0, device_id = 0;
  if (!PyArg_ParseTuple(args, "Oii", &obj, &device_type, &device_id)) return nullptr;
  const DLPackExchangeAPI* api = major1_table(obj);
  if (api == nullptr) Py_RETURN_NONE;
  void* stream = nullptr;
  int rc = -2;
  if (api->current_work_stream != nullptr) {
    try {
      rc = api->current_work_stream(static_cast<DLDeviceType>(device_type), device_id, &stream);
    } catch (...) {
      rc = xapi::kThrew;  // XAPI-3 is check_exchange_api's to record
    }
  }
  PyErr_Clear();
  return Py_BuildValue("(iK)", rc, static_cast<unsigned long long>(
                                       reinterpret_cast<uintptr_t>(stream)));
}

// xapi_from_py_object(obj) -> None (no major-1 table on its type) | (rc, capsule, error,
// buffer_error): the type's managed_tensor_from_py_object_no_sync on obj (XAPI-5, OB-075: data
// DLPack cannot describe "should be a BufferError"). rc 0 hands the tensor over in a
// dltensor_versioned capsule (its destructor deletes it unless consumed); -1 gives the words of
// the exception set ("RuntimeError: ...") and whether it is a BufferError; kThrew a C++
// exception that escaped the C function.
PyObject* xapi_from_py_object(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  const DLPackExchangeAPI* api = major1_table(obj);
  if (api == nullptr || api->managed_tensor_from_py_object_no_sync == nullptr) Py_RETURN_NONE;
  DLManagedTensorVersioned* tensor = nullptr;
  int rc = -2;
  try {
    rc = api->managed_tensor_from_py_object_no_sync(obj, &tensor);
  } catch (...) {
    rc = xapi::kThrew;
  }
  bool buffer_error = false;
  const std::string error =
      PyErr_Occurred() != nullptr ? xapi::take_python_error(&buffer_error) : "";
  PyObject* capsule = Py_None;
  Py_INCREF(capsule);
  if (rc == 0 && tensor != nullptr) {
    Py_DECREF(capsule);
    capsule = PyCapsule_New(tensor, "dltensor_versioned", from_py_object_capsule_destructor);
    if (capsule == nullptr) {
      if (tensor->deleter != nullptr) tensor->deleter(tensor);
      return nullptr;
    }
  }
  return Py_BuildValue("(iNsO)", rc, capsule, error.c_str(), buffer_error ? Py_True : Py_False);
}

}  // namespace dlc::bridge
