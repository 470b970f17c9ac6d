// Internal to the _dlconform extension: what its translation units share. dlconform_bridge.cpp
// holds the judges and the module; bridge_mock.cpp the mock producers' tensors (MockTensor) and
// the capsules handed out; bridge_capsules.cpp what is read of a framework's capsules;
// bridge_xapi.cpp the checks of the C exchange API; bridge_asks.cpp the judges of how a consumer
// asks and of writes through immutable data.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <unordered_map>

#include "finding.h"
#include "host.h"
#include "plugin_loader.h"

namespace dlc::bridge {

HostState& host();

// What became of each capsule handed out, keyed by the managed struct it carried.
struct CapsuleFate {
  bool destroyed = false;
  bool renamed = false;  // a consumer took it (LIFE-1)
  std::string name_after;  // the used_* name it was renamed to (capsule-misnamed when another)
  bool deleted = false;  // its destructor called the deleter (LIFE-2: nobody took it)
};
std::unordered_map<void*, CapsuleFate>& fates();

// A plugin loaded once per process and created with the host services; nullptr with a Python
// exception set when it cannot be loaded or does not play `role`.
const LoadedPlugin* load(const std::string& path, uint32_t role);

// A finding as the driver reads it: (class, rule, severity, words), or None.
PyObject* finding_tuple(const Finding& f);
// A (major, minor) tuple; false with a TypeError set otherwise.
bool parse_version(PyObject* object, DLCVersion* out);

// Text of a str object, and the short name of an object's type ("" on failure; the limited API
// of 3.9 has neither PyUnicode_AsUTF8 nor PyType_GetName).
std::string utf8(PyObject* v);
std::string type_name(PyObject* obj);

// MockTensor(producer_plugin_path, tensor_name): a mock producer's tensor behind __dlpack__.
struct MockTensor {
  PyObject_HEAD
  const dlc::LoadedPlugin* producer;
  int tensor_index;
  void* last_managed;  // the struct of the last capsule handed out
  bool refused;        // the producer refused a request (BufferError)
  bool type_error_unanswered;  // __dlpack__(max_version=...) raised TypeError, no retry since
  bool asked;                  // the first __dlpack__ call passed max_version
  DLCVersion asked_version;    // ... this one: the consumer's own header version
  int calls;                   // __dlpack__ calls so far
  PyObject* held;              // the last capsule handed out while holding (a new reference)
  bool holding;                // hold() was called and release_held() not yet
};
extern PyObject* g_mock_type;
// Creates the MockTensor type into g_mock_type; nullptr with an exception set on failure.
PyObject* make_mock_type();
// A heap type with a docstring, methods, an __init__ and the generic __new__. `name` must
// outlive the type (a literal): the type keeps pointing at it.
PyObject* make_type(const char* name, size_t basic_size, const char* doc, PyMethodDef* methods,
                    void* init);

// Calls obj.__dlpack__ as a consumer must (VER-5): with max_version first (when `ask`), without
// it on TypeError; `keywords` are passed as well. Returns a new reference to the capsule, or
// nullptr with a Python error set; *type_error gets the text of a TypeError that made it fall
// back (a new reference), else stays nullptr.
PyObject* ask_for_capsule(PyObject* obj, bool ask, DLCVersion asked, bool* fell_back,
                          PyObject** type_error, PyObject* keywords = nullptr);

// bridge_plugin.cpp: the PluginConsumer type; nullptr with an exception set on failure.
PyObject* make_plugin_consumer_type();

// check_exchange_api(obj): XAPI-1 to XAPI-5 on the type's __dlpack_c_exchange_api__.
PyObject* check_exchange_api(PyObject*, PyObject* args);
// xapi_current_work_stream(obj, device_type, device_id): (rc, stream) or None.
PyObject* xapi_current_work_stream(PyObject*, PyObject* args);
// xapi_from_py_object(obj): (rc, capsule or None, error words, is a BufferError) or None.
PyObject* xapi_from_py_object(PyObject*, PyObject* args);

// bridge_asks.cpp: judge_asks(calls, facts), judge_write_through(facts) and
// judge_used_capsule(facts), each a finding tuple or None.
PyObject* judge_asks(PyObject*, PyObject* args);
PyObject* judge_write_through(PyObject*, PyObject* args);
PyObject* judge_used_capsule(PyObject*, PyObject* args);

// bridge_capsules.cpp: what the driver reads of a capsule and does with it (the module's
// docstrings say each); release_while_raising(obj): obj.__dlpack__()'s capsule dropped
// unconsumed while a RuntimeError is pending, (kept, what was pending after it), kept None when
// __dlpack__ returned no capsule.
PyObject* interpose(PyObject*, PyObject* args);
PyObject* deleter_calls(PyObject*, PyObject* args);
PyObject* forget(PyObject*, PyObject* args);
PyObject* capsule_kind(PyObject*, PyObject* args);
PyObject* capsule_flags(PyObject*, PyObject* args);
PyObject* capsule_device(PyObject*, PyObject* args);
PyObject* capsule_data(PyObject*, PyObject* args);
PyObject* data_live(PyObject*, PyObject* args);
PyObject* guarded_blocks(PyObject*, PyObject* args);
PyObject* release_while_raising(PyObject*, PyObject* args);
// The one argument of a module function, a PyCapsule (borrowed); nullptr with a TypeError set
// when it is none.
PyObject* capsule_argument(PyObject* args);
// Whether p lies in a loaded object's segments (text, rodata, data, bss): statically allocated.
// Heap memory and anonymous mappings are not.
bool in_loaded_image(const void* p);
PyObject* capsule_name_storage(PyObject*, PyObject* args);
PyObject* static_capsule_names(PyObject*, PyObject*);

// bridge_gil.cpp: a producer's deleter called on a thread without the GIL (LIFE-7):
// take_for_thread(capsule) takes the struct as a consumer does, delete_off_thread(handle,
// versioned) calls its deleter there and counts its Python allocator calls without the GIL.
PyObject* take_for_thread(PyObject*, PyObject* args);
PyObject* delete_off_thread(PyObject*, PyObject* args);

}  // namespace dlc::bridge
