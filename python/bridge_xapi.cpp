// check_exchange_api(obj): XAPI-1 to XAPI-5 on the type's __dlpack_c_exchange_api__: the capsule
// and its name, the header and its prev chain, the slots, from_py_object and to_py_object with
// the deleter ledger, the allocator's SetError, current_work_stream on the CPU.
#include <dlpack/dlpack.h>

#include <cstring>

#include "bridge.h"
#include "validate.h"

namespace dlc::bridge {
namespace {


struct XapiErrors {
  int calls = 0;
};
void set_error_counter(void* ctx, const char*, const char*) { ++static_cast<XapiErrors*>(ctx)->calls; }

}  // namespace

PyObject* check_exchange_api(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  if (!PyArg_ParseTuple(args, "O", &obj)) return nullptr;
  PyObject* checks = PyList_New(0);
  auto record = [&](const char* rule, bool ok, const std::string& words) {
    PyObject* item = Py_BuildValue("(sOs)", rule, ok ? Py_True : Py_False, words.c_str());
    PyList_Append(checks, item);
    Py_DECREF(item);
  };
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  PyObject* attr = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
  if (attr == nullptr) {
    PyErr_Clear();
    record("XAPI-1", false, "the type has no __dlpack_c_exchange_api__");
    return checks;
  }
  const char* capsule_name = PyCapsule_CheckExact(attr) ? PyCapsule_GetName(attr) : nullptr;
  const bool named = capsule_name != nullptr && std::strcmp(capsule_name, "dlpack_exchange_api") == 0;
  record("XAPI-1", named,
         named ? "a PyCapsule named dlpack_exchange_api"
               : std::string("expected a PyCapsule named dlpack_exchange_api but found ") +
                     (PyCapsule_CheckExact(attr) ? (capsule_name ? capsule_name : "NULL")
                                                 : type_name(attr)));
  if (!named) {
    Py_DECREF(attr);
    return checks;
  }
  auto* api = static_cast<DLPackExchangeAPI*>(PyCapsule_GetPointer(attr, capsule_name));
  PyObject* again = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
  const void* api_again = again != nullptr && PyCapsule_CheckExact(again)
                              ? PyCapsule_GetPointer(again, PyCapsule_GetName(again))
                              : nullptr;
  PyErr_Clear();
  Py_XDECREF(again);
  record("XAPI-1", api_again == api, "the table is the same on every lookup (cacheable per type)");
  // XAPI-2: the header, its version and the prev chain.
  const DLPackVersion v = api->header.version;
  record("XAPI-2", v.major == 1,
         "header version " + std::to_string(v.major) + "." + std::to_string(v.minor) +
             (v.major == 1 ? "" : ": expected major 1"));
  int chain = 0;
  for (const DLPackExchangeAPIHeader* h = api->header.prev_api; h != nullptr && chain < 16;
       h = h->prev_api) {
    ++chain;
  }
  record("XAPI-2", chain < 16, "prev_api chain of " + std::to_string(chain) + " older tables");
  // XAPI-3: the slots.
  const bool slots = api->managed_tensor_allocator != nullptr &&
                     api->managed_tensor_from_py_object_no_sync != nullptr &&
                     api->managed_tensor_to_py_object_no_sync != nullptr &&
                     api->current_work_stream != nullptr;
  record("XAPI-3", slots,
         slots ? "allocator, from_py_object, to_py_object and current_work_stream are non-NULL"
               : "expected allocator, from_py_object, to_py_object and current_work_stream "
                 "non-NULL but one is NULL");
  if (!slots) {
    Py_DECREF(attr);
    return checks;
  }
  // XAPI-5: from_py_object gives an owning versioned tensor that validates; one deleter call.
  DLManagedTensorVersioned* owned = nullptr;
  const int rc = api->managed_tensor_from_py_object_no_sync(obj, &owned);
  if (rc != 0 || owned == nullptr) {
    const bool error_set = PyErr_Occurred() != nullptr;
    PyErr_Clear();
    record("XAPI-5", false,
           "from_py_object returned " + std::to_string(rc) +
               (error_set ? " with a Python error" : " without a Python error set"));
  } else {
    dlc::ValidateOptions options;
    options.level = dlc::Level::full;
    dlc::ValidateResult r;
    dlc::validate(DLCHandoff{"dltensor_versioned", owned}, options, &r);
    const dlc::Violation* v = r.first_must();
    record("XAPI-5", v == nullptr,
           v == nullptr ? "from_py_object: an owning versioned tensor of " +
                              std::to_string(r.observation.elements_read) + " elements that validates"
                        : std::string("from_py_object's tensor breaks ") + dlc::id_of(v->rule) +
                              ": " + v->message);
    // to_py_object steals it: the deleter must then run exactly once, when the object dies.
    host().ledger.interpose(owned, dlc::abi::StructKind::versioned);
    void* py = nullptr;
    const int to_rc = api->managed_tensor_to_py_object_no_sync(owned, &py);
    if (to_rc != 0 || py == nullptr) {
      PyErr_Clear();
      record("XAPI-5", false, "to_py_object returned " + std::to_string(to_rc));
      if (owned->deleter != nullptr) owned->deleter(owned);
    } else {
      Py_DECREF(static_cast<PyObject*>(py));
      PyObject* gc = PyImport_ImportModule("gc");
      if (gc != nullptr) {
        PyObject* collected = PyObject_CallMethod(gc, "collect", nullptr);
        Py_XDECREF(collected);
        Py_DECREF(gc);
      }
      const uint32_t calls = host().ledger.calls(owned);
      record("XAPI-5", calls == 1,
             "to_py_object took the tensor; its deleter ran " + std::to_string(calls) +
                 " time(s) when the object died (expected 1)");
    }
    host().ledger.forget(owned);
  }
  // The non-owning export, when there is one.
  if (api->dltensor_from_py_object_no_sync != nullptr) {
    DLTensor borrowed{};
    const int b_rc = api->dltensor_from_py_object_no_sync(obj, &borrowed);
    PyErr_Clear();
    record("XAPI-5", b_rc == 0 && borrowed.ndim >= 0,
           "dltensor_from_py_object filled a borrowed DLTensor (rc " + std::to_string(b_rc) + ")");
  }
  // XAPI-4: the allocator; SetError exactly when it fails.
  {
    int64_t shape[2] = {2, 3};
    DLTensor prototype{};
    prototype.device.device_type = kDLCPU;
    prototype.ndim = 2;
    prototype.dtype = {kDLFloat, 32, 1};
    prototype.shape = shape;
    XapiErrors errors;
    DLManagedTensorVersioned* made = nullptr;
    const int a_rc = api->managed_tensor_allocator(&prototype, &made, &errors, set_error_counter);
    const bool ok = a_rc == 0 && made != nullptr && errors.calls == 0 && made->dl_tensor.ndim == 2;
    record("XAPI-4", ok,
           "allocator for a 2x3 float32 CPU tensor: rc " + std::to_string(a_rc) + ", SetError " +
               std::to_string(errors.calls) + " time(s)");
    if (made != nullptr && made->deleter != nullptr) made->deleter(made);
    prototype.dtype = {kDLFloat, 7, 1};  // a width no framework allocates
    XapiErrors bad;
    made = nullptr;
    const int bad_rc = api->managed_tensor_allocator(&prototype, &made, &bad, set_error_counter);
    PyErr_Clear();
    const bool bad_ok = (bad_rc != 0 && bad.calls == 1) || (bad_rc == 0 && bad.calls == 0);
    record("XAPI-4", bad_ok,
           "allocator for float7: rc " + std::to_string(bad_rc) + ", SetError " +
               std::to_string(bad.calls) + " time(s) (expected exactly once on failure)");
    if (bad_rc == 0 && made != nullptr && made->deleter != nullptr) made->deleter(made);
  }
  // current_work_stream on the CPU may give NULL.
  void* stream = reinterpret_cast<void*>(1);
  const int s_rc = api->current_work_stream(kDLCPU, 0, &stream);
  PyErr_Clear();
  record("XAPI-5", s_rc == 0,
         "current_work_stream(CPU) returned " + std::to_string(s_rc) +
             (stream == nullptr ? " and NULL" : " and a stream"));
  Py_DECREF(attr);
  return checks;
}

// xapi_current_work_stream(obj, device_type, device_id) -> (rc, stream as an int): what the
// type's exchange API says is its current work stream on that device (XAPI-5: on CUDA the
// stream a consumer of the framework would pass, STRM-1). None when the type has no table.
PyObject* xapi_current_work_stream(PyObject*, PyObject* args) {
  PyObject* obj = nullptr;
  int device_type = 0, device_id = 0;
  if (!PyArg_ParseTuple(args, "Oii", &obj, &device_type, &device_id)) return nullptr;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  PyObject* attr = PyObject_GetAttrString(type, "__dlpack_c_exchange_api__");
  const char* name = attr != nullptr && PyCapsule_CheckExact(attr) ? PyCapsule_GetName(attr) : nullptr;
  if (name == nullptr || std::strcmp(name, "dlpack_exchange_api") != 0) {
    PyErr_Clear();
    Py_XDECREF(attr);
    Py_RETURN_NONE;
  }
  auto* api = static_cast<DLPackExchangeAPI*>(PyCapsule_GetPointer(attr, name));
  void* stream = nullptr;
  const int rc = api->current_work_stream != nullptr
                     ? api->current_work_stream(static_cast<DLDeviceType>(device_type), device_id,
                                                &stream)
                     : -2;
  PyErr_Clear();
  Py_DECREF(attr);
  return Py_BuildValue("(iK)", rc, static_cast<unsigned long long>(
                                       reinterpret_cast<uintptr_t>(stream)));
}

}  // namespace dlc::bridge
