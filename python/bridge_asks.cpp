// The judges of the consumer's side of the Python protocol, for the driver's `asks`, `immutable`
// and `used-capsule` scenarios: the calls a consumer made on the object it was handed, a write
// through its import of immutable data, and a second import of a consumed capsule. The facts
// come from Python; the verdicts from harness/judge, like every other verdict.
#include <string>
#include <vector>

#include "bridge.h"
#include "judge.h"

namespace dlc::bridge {
namespace {

PyObject* item(PyObject* dict, const char* key) { return PyDict_GetItemString(dict, key); }

bool truthy(PyObject* dict, const char* key) {
  PyObject* v = item(dict, key);
  return v != nullptr && v != Py_None && PyObject_IsTrue(v) == 1;
}

bool parse_device(PyObject* v, DLCDevice* out) {
  int type = 0, id = 0;
  if (!PyArg_ParseTuple(v, "ii", &type, &id)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, "expected a device as a (type, id) tuple");
    return false;
  }
  *out = {type, id};
  return true;
}

// A 2-tuple of ints, as the Array API prescribes max_version and dl_device: a list or an int is
// malformed (the consumer's defect), though a lenient producer may take it.
bool is_int_pair(PyObject* v) {
  return PyTuple_Check(v) && PyTuple_Size(v) == 2 && PyIndex_Check(PyTuple_GetItem(v, 0)) &&
         PyIndex_Check(PyTuple_GetItem(v, 1));
}

// One call record: {"kind": "device"|"dlpack", "max_version": (M, m)|None, "stream": int|None,
// "copy": bool|None (absent: not passed), "dl_device": (t, id)|None, "answer": "capsule"|
// "TypeError"|"BufferError"|"error"}.
bool parse_call(PyObject* d, AskCall* c) {
  if (!PyDict_Check(d)) {
    PyErr_SetString(PyExc_TypeError, "expected a dict per call");
    return false;
  }
  const std::string kind = item(d, "kind") != nullptr ? utf8(item(d, "kind")) : "";
  c->kind = kind == "device" ? AskCall::Kind::device : AskCall::Kind::dlpack;
  if (PyObject* v = item(d, "max_version"); v != nullptr && v != Py_None) {
    c->has_max_version = true;
    c->max_version_malformed = !is_int_pair(v);  // judged first: its values are never read
    if (!c->max_version_malformed && !parse_version(v, &c->max_version)) return false;
  }
  if (PyObject* v = item(d, "stream"); v != nullptr && v != Py_None) {
    c->stream_given = true;
    c->stream = PyLong_AsLongLong(v);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      c->stream = -2;  // not an int at all: still "a stream other than None"
    }
  }
  if (PyObject* v = item(d, "copy"); v != nullptr) {
    c->copy = v == Py_None ? -1 : PyObject_IsTrue(v) == 1 ? 1 : 0;
  }
  if (PyObject* v = item(d, "dl_device"); v != nullptr && v != Py_None) {
    c->dl_device_given = true;
    c->dl_device_malformed = !is_int_pair(v);
    if (!parse_device(v, &c->dl_device)) {
      PyErr_Clear();
      c->dl_device = {-1, -1};  // not a (type, id) pair: never the device the caller asked for
    }
  }
  const std::string answer = item(d, "answer") != nullptr ? utf8(item(d, "answer")) : "capsule";
  c->answer = answer == "capsule"       ? AskCall::Answer::capsule
              : answer == "TypeError"   ? AskCall::Answer::type_error
              : answer == "BufferError" ? AskCall::Answer::buffer_error
                                        : AskCall::Answer::other_error;
  return true;
}

}  // namespace

// judge_asks(calls, facts): facts {"consumer": str, "consumer_version": (M, m), "imported": bool,
// "caller_copy": bool|None, "caller_device": (t, id)|None, "producer_device": (t, id)}.
PyObject* judge_asks(PyObject*, PyObject* args) {
  PyObject* calls = nullptr;
  PyObject* facts = nullptr;
  if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &calls, &PyDict_Type, &facts)) return nullptr;
  std::vector<AskCall> parsed(static_cast<size_t>(PyList_Size(calls)));
  for (size_t i = 0; i < parsed.size(); ++i) {
    if (!parse_call(PyList_GetItem(calls, static_cast<Py_ssize_t>(i)), &parsed[i])) return nullptr;
  }
  AskFacts f;
  f.calls = parsed.data();
  f.count = parsed.size();
  const std::string label = item(facts, "consumer") != nullptr ? utf8(item(facts, "consumer")) : "";
  f.consumer_label = label.c_str();
  if (PyObject* v = item(facts, "consumer_version"); v != nullptr && v != Py_None) {
    if (!parse_version(v, &f.consumer_version)) return nullptr;
  }
  if (PyObject* v = item(facts, "producer_device"); v != nullptr && v != Py_None) {
    if (!parse_device(v, &f.producer_device)) return nullptr;
  }
  if (PyObject* v = item(facts, "caller_copy"); v != nullptr && v != Py_None) {
    f.caller_copy = PyObject_IsTrue(v) == 1 ? 1 : 0;
  }
  if (PyObject* v = item(facts, "caller_device"); v != nullptr && v != Py_None) {
    f.caller_device = true;
    if (!parse_device(v, &f.caller_device_value)) return nullptr;
  }
  f.imported = truthy(facts, "imported");
  Finding out;
  dlc::judge_asks(f, &out);
  return finding_tuple(out);
}

// judge_write_through(facts): facts {"versioned", "read_only_flag", "asked_versioned",
// "producer_versioned", "consumer_has_read_only": bool, "producer", "consumer": str}.
PyObject* judge_write_through(PyObject*, PyObject* args) {
  PyObject* facts = nullptr;
  if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &facts)) return nullptr;
  const std::string producer = item(facts, "producer") != nullptr ? utf8(item(facts, "producer")) : "";
  const std::string consumer = item(facts, "consumer") != nullptr ? utf8(item(facts, "consumer")) : "";
  WriteThroughFacts f;
  f.crossed_versioned = truthy(facts, "versioned");
  f.read_only_flag = truthy(facts, "read_only_flag");
  f.asked_versioned = truthy(facts, "asked_versioned");
  f.producer_versioned = truthy(facts, "producer_versioned");
  f.consumer_has_read_only = truthy(facts, "consumer_has_read_only");
  f.producer_label = producer.c_str();
  f.consumer_label = consumer.c_str();
  Finding out;
  dlc::judge_write_through(f, &out);
  return finding_tuple(out);
}

PyObject* judge_used_capsule(PyObject*, PyObject* args) {
  PyObject* facts = nullptr;
  if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &facts)) return nullptr;
  auto text = [&](const char* key) {
    return item(facts, key) != nullptr ? utf8(item(facts, key)) : std::string();
  };
  const std::string used_name = text("used_name");
  const std::string error = text("error");
  const std::string consumer = text("consumer");
  PyObject* calls = item(facts, "consumer_calls");
  UsedCapsuleFacts f;
  f.used_name = used_name.c_str();
  f.imported = truthy(facts, "imported");
  f.consumer_error = error.c_str();
  f.consumer_calls = calls != nullptr ? static_cast<uint32_t>(PyLong_AsUnsignedLong(calls)) : 0;
  if (PyErr_Occurred()) return nullptr;
  f.consumer_label = consumer.c_str();
  Finding out;
  dlc::judge_used_capsule(f, &out);
  return finding_tuple(out);
}

}  // namespace dlc::bridge
