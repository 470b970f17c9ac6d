// _dlconform: the CPython bridge between real frameworks and dlconform's harness. The Python
// driver (dlconform_frameworks.py) only runs frameworks and hands what it observed to these
// functions; every verdict comes from the judge the matrix uses (harness/judge), so a defect has
// the same class and rule here as in the matrix and the fuzzers.
//
//   MockTensor(producer_plugin_path, tensor_name)  an object with __dlpack__(*, stream=None,
//       max_version=None, dl_device=None, copy=None) and __dlpack_device__(), backed by a mock
//       producer plugin, guarded memory and the deleter ledger; frameworks import it
//       (bridge_mock.cpp).
//   judge_import(mock, outcome)  judges what a framework did with a MockTensor: the lifecycle
//       (LIFE-1, LIFE-3), the import against the truth (accepted-invalid, rejected-valid,
//       wrong-data), READ_ONLY kept (FLAG-1, INFO).
//   consume(obj, max_version=(1, 3), expected=None)  imports obj.__dlpack__ (or a capsule) the way
//       the spec says (VER-4/VER-5: ask, fall back on TypeError; LIFE-1: rename), interposes the
//       deleter, and judges the handoff against what the framework says the tensor is
//       (judge_handoff: VER-4, VER-1, FLAG-1b, FLAG-2, LAY-5, the validator, fields, values).
//   interpose(capsule) / deleter_calls(handle)  counts a capsule's deleter calls (framework pairs;
//       bridge_capsules.cpp, with what else is read of a capsule).
//   check_exchange_api(obj)  XAPI-1 to XAPI-5 on the type's __dlpack_c_exchange_api__
//   xapi_from_py_object(obj)  the table's from_py_object on obj: its tensor, or what it raised
//       (bridge_xapi.cpp).
//   PluginConsumer(path)  a consumer plugin driven like a framework's from_dlpack.
//   guard_faults(path)  a fault handler that names a fault in guarded memory (judge_fault).
//
// Every function is noexcept towards Python: C++ errors become Python exceptions.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <dlpack/dlpack.h>

#include <cstring>
#include <string>
#include <unordered_map>

#include "abi.h"
#include "bridge.h"
#include "catalogue.h"
#include "fault.h"
#include "host.h"
#include "judge.h"
#include "phase.h"
#include "plugin_loader.h"
#include "profile.h"
#include "validate.h"

namespace dlc::bridge {

std::string utf8(PyObject* v) {
  PyObject* bytes = v != nullptr ? PyUnicode_AsUTF8String(v) : nullptr;
  if (bytes == nullptr) {
    PyErr_Clear();
    return "";
  }
  std::string s(PyBytes_AsString(bytes), static_cast<size_t>(PyBytes_Size(bytes)));
  Py_DECREF(bytes);
  return s;
}
std::string type_name(PyObject* obj) {
  PyObject* name = PyObject_GetAttrString(reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__name__");
  const std::string s = utf8(name);
  Py_XDECREF(name);
  return s;
}

PyObject* ask_for_capsule(PyObject* obj, bool ask, DLCVersion asked, bool* fell_back,
                          PyObject** type_error, PyObject* keywords) {
  if (PyCapsule_CheckExact(obj)) {  // a framework's own to_dlpack() gave a capsule already
    Py_INCREF(obj);
    return obj;
  }
  PyObject* method = PyObject_GetAttrString(obj, "__dlpack__");
  if (method == nullptr) return nullptr;
  PyObject* capsule = nullptr;
  if (ask) {
    PyObject* empty = PyTuple_New(0);
    PyObject* kw = Py_BuildValue("{s:(II)}", "max_version", asked.major, asked.minor);
    if (keywords != nullptr) PyDict_Update(kw, keywords);  // dl_device, copy (STRM-3, STRM-4)
    capsule = PyObject_Call(method, empty, kw);
    Py_DECREF(empty);
    Py_DECREF(kw);
    if (capsule == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
      PyObject *type, *value, *trace;
      PyErr_Fetch(&type, &value, &trace);
      *type_error = value != nullptr ? PyObject_Str(value) : nullptr;
      Py_XDECREF(type);
      Py_XDECREF(value);
      Py_XDECREF(trace);
      *fell_back = true;
    }
  }
  if (!ask || *fell_back) capsule = PyObject_CallObject(method, nullptr);
  Py_DECREF(method);
  return capsule;
}

}  // namespace dlc::bridge

namespace {

using namespace dlc::bridge;

// ---------------------------------------------------------------------------------------------
// judge_import(mock, outcome)

bool get_bool(PyObject* dict, const char* key, bool fallback) {
  PyObject* v = PyDict_GetItemString(dict, key);
  return v == nullptr || v == Py_None ? fallback : PyObject_IsTrue(v) == 1;
}
unsigned long long get_ull(PyObject* dict, const char* key) {
  PyObject* v = PyDict_GetItemString(dict, key);
  return v == nullptr || v == Py_None ? 0 : PyLong_AsUnsignedLongLongMask(v);
}
std::string get_str(PyObject* dict, const char* key) {
  PyObject* v = PyDict_GetItemString(dict, key);
  if (v == nullptr || v == Py_None) return "";
  return utf8(v);
}

// outcome: {"imported": bool, "error": str, "digest": int, "elements": int, "ndim": int,
//           "shape": tuple, "dtype": (code, bits, lanes), "writable": bool|None,
//           "must_accept": bool, "consumer": "numpy@2.4.6", "consumer_version": (major, minor),
//           "pending_write": bool (a device producer's write was left pending), "stream": the
//           stream the consumer passed (absent or None: none), "producer": its label}
PyObject* judge_import_py(PyObject*, PyObject* args) {
  PyObject* mock_object = nullptr;
  PyObject* outcome = nullptr;
  if (!PyArg_ParseTuple(args, "OO!", &mock_object, &PyDict_Type, &outcome)) return nullptr;
  if (!PyObject_TypeCheck(mock_object, reinterpret_cast<PyTypeObject*>(g_mock_type))) {
    PyErr_SetString(PyExc_TypeError, "expected a MockTensor");
    return nullptr;
  }
  auto* mock = reinterpret_cast<MockTensor*>(mock_object);
  const dlc::TensorCase& t = dlc::tensor_catalogue()[mock->tensor_index];
  const std::string who = get_str(outcome, "consumer");
  const bool imported = get_bool(outcome, "imported", false);
  const std::string error = get_str(outcome, "error");
  DLCVersion version{1, 3};
  if (PyObject* v = PyDict_GetItemString(outcome, "consumer_version"); v != nullptr && v != Py_None) {
    if (!parse_version(v, &version)) return nullptr;
  }
  dlc::Finding f;
  if (!imported && mock->type_error_unanswered) {  // an old producer, and no second question
    f.set(dlc::FindingClass::no_version_fallback)
        .add("expected ").add(who.c_str())
        .add(" to call __dlpack__() again without max_version after the producer's TypeError but ")
        .add("it gave up: ").add(error.c_str());
    return finding_tuple(f);
  }
  // The lifecycle: what the ledger and the capsule's fate say.
  auto fate = fates().find(mock->last_managed);
  const bool destroyed = fate != fates().end() && fate->second.destroyed;
  const dlc::DeleterLedger::Entry* entry =
      mock->last_managed != nullptr ? host().ledger.find(mock->last_managed) : nullptr;
  // A consumer that renamed the capsule and cleared its destructor when it took it (nanobind's
  // importers do) ends the capsule without the bridge seeing it: its name as the import left it
  // is judged. One that cleared it without the rename is judged once, by asks/*/used-name.
  const std::string name_after_import = get_str(outcome, "name_after_import");
  const bool taken_unseen = get_bool(outcome, "destructor_cleared", false) &&
                            name_after_import.rfind("used_", 0) == 0;
  if (mock->last_managed != nullptr && (destroyed || taken_unseen)) {
    dlc::LifecycleFacts lf;
    const dlc::abi::StructKind kind =
        host().arena.facts(reinterpret_cast<uintptr_t>(mock->last_managed)).struct_kind;
    const bool versioned = kind == dlc::abi::StructKind::versioned ||
                           kind == dlc::abi::StructKind::foreign_major;
    lf.other_major = kind == dlc::abi::StructKind::foreign_major;
    lf.offered_name = versioned ? "dltensor_versioned" : "dltensor";
    if (destroyed) {
      lf.name_after = fate->second.renamed ? fate->second.name_after.c_str() : lf.offered_name;
    } else {
      lf.name_after = name_after_import.c_str();
    }
    lf.imported = imported;
    lf.consumer_error = error.c_str();
    lf.deleter_expected = (t.spec.options & DLC_SPEC_NULL_DELETER) == 0;
    // A refused capsule that was not renamed was deleted by its destructor, not the consumer.
    lf.consumer_calls = entry != nullptr ? entry->calls : 0;
    if (destroyed && fate->second.deleted && lf.consumer_calls > 0) lf.consumer_calls -= 1;
    lf.first_call_where = entry != nullptr ? entry->where[0] : nullptr;
    lf.second_call_where = entry != nullptr ? entry->where[1] : nullptr;
    lf.stray_calls = host().ledger.stray_calls();
    lf.stray_where = host().ledger.stray_where();
    lf.consumer_label = who.c_str();
    dlc::judge_lifecycle(lf, &f);
    if (f.any()) return finding_tuple(f);
  }
  // The import against the truth.
  DLCObservation obs{};
  obs.ndim = static_cast<int32_t>(get_ull(outcome, "ndim"));
  if (PyObject* shape = PyDict_GetItemString(outcome, "shape"); shape != nullptr && PyTuple_Check(shape)) {
    for (Py_ssize_t i = 0; i < PyTuple_Size(shape) && i < DLC_MAX_NDIM; ++i) {
      obs.shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    }
  }
  if (PyObject* dtype = PyDict_GetItemString(outcome, "dtype"); dtype != nullptr && dtype != Py_None) {
    unsigned int code = 0, bits = 0, lanes = 0;
    if (!PyArg_ParseTuple(dtype, "III", &code, &bits, &lanes)) return nullptr;
    obs.dtype = {static_cast<uint8_t>(code), static_cast<uint8_t>(bits), static_cast<uint16_t>(lanes)};
  } else {
    obs.dtype = t.spec.dtype;  // the framework has no reverse mapping for this dtype
  }
  obs.digest = get_ull(outcome, "digest");
  obs.elements_read = get_ull(outcome, "elements");
  obs.data_not_read = get_bool(outcome, "data_not_read", false) ? 1 : 0;
  // A device producer's write left pending (the CUDA rows): a consumer that read its storage
  // still unwritten read too early, judged as the matrix's exchange judges it (STRM-1).
  if (imported && get_bool(outcome, "pending_write", false) && t.read_unwritten(obs)) {
    dlc::StreamFacts sf;
    sf.device_type = t.spec.device.device_type;
    PyObject* stream = PyDict_GetItemString(outcome, "stream");  // absent or None: none passed
    sf.has_stream = stream != nullptr && stream != Py_None;
    sf.stream = sf.has_stream ? PyLong_AsLongLong(stream) : 0;
    if (sf.has_stream && PyErr_Occurred()) return nullptr;
    sf.read_before_write = true;
    const std::string producer = get_str(outcome, "producer");
    sf.consumer_label = who.c_str();
    sf.producer_label = producer.c_str();
    dlc::judge_stream_read(sf, &f);
    return finding_tuple(f);
  }
  dlc::ValidateResult truth;
  const bool valid = dlc::valid_for(t, version, DLC_MAX_NDIM);
  truth.accepted = valid;
  if (!valid) {
    // The rule the truth breaks, for accepted-invalid: the validator's first MUST violation.
    truth.count = 1;
    truth.violations[0].rule = t.rule;
    dlc::SafeText(truth.violations[0].message, sizeof truth.violations[0].message)
        .add("the tensor breaks ").add(dlc::id_of(t.rule));
  }
  dlc::ImportFacts imp;
  imp.rc = imported ? DLC_OK : DLC_ERR_BUFFER;
  imp.consumer_error = error.c_str();
  imp.truth_known = true;
  imp.truth = &truth;
  imp.must_accept = get_bool(outcome, "must_accept", false);
  imp.tensor_rule = t.rule;
  // A framework that imported what it cannot read back itself: nothing to compare.
  imp.spec = obs.data_not_read ? nullptr : &t.spec;
  imp.observation = &obs;
  imp.digest_known = t.values_comparable() && imported;
  imp.digest = t.digest;
  imp.misreadings = t.misreadings.data();
  imp.misreading_count = t.misreadings.size();
  imp.elements = t.elements;
  imp.consumer_label = who.c_str();
  dlc::judge_import(imp, &f);
  if (f.any()) return finding_tuple(f);
  // READ_ONLY: a consumer that can express read-only keeps it; one that cannot may ignore it
  // (FLAG-1: an interop hazard, reported at INFO).
  if (imported && (t.spec.options & DLC_SPEC_READ_ONLY) && get_bool(outcome, "writable", false)) {
    f.set(dlc::FindingClass::read_only_ignored)
        .add("expected the import of a READ_ONLY tensor to be read-only but ")
        .add(who.c_str())
        .add(" made it writable");
  }
  return finding_tuple(f);
}

// ---------------------------------------------------------------------------------------------
// consume(obj, max_version, expected)

PyObject* violations_list(const dlc::ValidateResult& r) {
  PyObject* list = PyList_New(0);
  for (int i = 0; i < r.count; ++i) {
    const dlc::Violation& v = r.violations[i];
    PyObject* item = Py_BuildValue("(sss)", dlc::id_of(v.rule), dlc::to_string(v.weight()),
                                   v.message);
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  return list;
}


PyObject* consume(PyObject*, PyObject* args, PyObject* kwargs) {
  static const char* keywords[] = {"obj", "max_version", "expected", "producer", "device",
                                   "dl_device", "copy", nullptr};
  PyObject* obj = nullptr;
  PyObject* max_version = nullptr;
  PyObject* expected = nullptr;
  const char* producer = "framework";
  PyObject* device = Py_None;     // the device the answer must be on (default: the CPU)
  PyObject* dl_device = Py_None;  // passed on to __dlpack__ with max_version
  PyObject* copy = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOs$OOO", const_cast<char**>(keywords), &obj,
                                   &max_version, &expected, &producer, &device, &dl_device,
                                   &copy)) {
    return nullptr;
  }
  DLCDevice want_device{1, 0};
  if (device != Py_None && !PyArg_ParseTuple(device, "ii", &want_device.device_type,
                                             &want_device.device_id)) {
    return nullptr;
  }
  DLCVersion asked{1, 3};
  if (max_version != nullptr && max_version != Py_None && !parse_version(max_version, &asked)) {
    return nullptr;
  }
  const bool ask = max_version != Py_None;
  bool fell_back = false;
  PyObject* type_error = nullptr;
  PyObject* extra = nullptr;
  if (dl_device != Py_None || copy != Py_None) {
    extra = PyDict_New();
    if (dl_device != Py_None) PyDict_SetItemString(extra, "dl_device", dl_device);
    if (copy != Py_None) PyDict_SetItemString(extra, "copy", copy);
  }
  PyObject* capsule = ask_for_capsule(obj, ask, asked, &fell_back, &type_error, extra);
  Py_XDECREF(extra);
  if (capsule == nullptr) {
    Py_XDECREF(type_error);
    return nullptr;
  }
  if (!PyCapsule_CheckExact(capsule)) {  // the exporter's defect, not a refusal (VER-4)
    dlc::Finding f;
    f.set(dlc::FindingClass::not_a_capsule, dlc::Rule::VER_4)
        .add("expected __dlpack__ to return a PyCapsule but found ")
        .add(type_name(capsule).c_str());
    Py_DECREF(capsule);
    Py_XDECREF(type_error);
    return Py_BuildValue("{s:N}", "finding", finding_tuple(f));
  }
  const char* name = PyCapsule_GetName(capsule);
  const std::string capsule_name = name != nullptr ? name : "";
  const bool versioned = capsule_name == "dltensor_versioned";
  dlc::Finding f;
  if (!versioned && capsule_name != "dltensor") {
    f.set(dlc::FindingClass::producer_violation, dlc::Rule::LIFE_1)
        .add("expected capsule name dltensor or dltensor_versioned but found ")
        .add(capsule_name.c_str());
    Py_DECREF(capsule);
    Py_XDECREF(type_error);
    return Py_BuildValue("{s:N}", "finding", finding_tuple(f));
  }
  void* pointer = PyCapsule_GetPointer(capsule, name);
  // LIFE-1: take ownership before anything can fail; then the deleter is interposed, so that
  // the ledger counts its calls without the framework's cooperation.
  PyCapsule_SetName(capsule, versioned ? "used_dltensor_versioned" : "used_dltensor");
  const DLCHandoff handoff{versioned ? "dltensor_versioned" : "dltensor", pointer};
  dlc::abi::StructKind kind = dlc::abi::struct_kind_of_name(handoff.name);
  if (versioned && static_cast<dlc::abi::FrozenHead*>(pointer)->version.major != 1) {
    kind = dlc::abi::StructKind::foreign_major;
  }
  host().ledger.interpose(pointer, kind);

  // What the framework says the tensor is, as a request: dtype, shape, values (strides free).
  DLCRequest request{};
  request.has_max_version = ask && !fell_back;
  request.max_version = asked;
  request.copy = copy == Py_None ? -1 : (PyObject_IsTrue(copy) ? 1 : 0);
  request.tensor.device = want_device;
  dlc::ExpectedTensor want;
  std::string encoding_text;  // what want.encoding points at
  if (expected != nullptr && expected != Py_None && PyDict_Check(expected)) {
    PyObject* shape = PyDict_GetItemString(expected, "shape");
    if (shape != nullptr && PyTuple_Check(shape)) {
      request.tensor.ndim = static_cast<int32_t>(PyTuple_Size(shape));
      for (Py_ssize_t i = 0; i < PyTuple_Size(shape) && i < DLC_MAX_NDIM; ++i) {
        request.tensor.shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
      }
    }
    PyObject* dtype = PyDict_GetItemString(expected, "dtype");
    unsigned int code = 0, bits = 0, lanes = 0;
    if (dtype != nullptr && dtype != Py_None && PyArg_ParseTuple(dtype, "III", &code, &bits, &lanes)) {
      request.tensor.dtype = {static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                              static_cast<uint16_t>(lanes)};
      want.spec = &request.tensor;
    }
    PyErr_Clear();
    if (get_bool(expected, "read_only", false)) request.tensor.options |= DLC_SPEC_READ_ONLY;
    if (get_bool(expected, "copy", false)) request.copy = 1;
    want.digest_known = PyDict_GetItemString(expected, "digest") != nullptr;
    want.digest = get_ull(expected, "digest");
    want.elements = get_ull(expected, "elements");
    // The values stored in another element encoding (judge.h): DT-3 when that is what is read.
    PyObject* encoding = PyDict_GetItemString(expected, "encoding");
    if (encoding != nullptr && PyUnicode_Check(encoding) &&
        PyDict_GetItemString(expected, "encoding_digest") != nullptr) {
      want.encoding_digest_known = true;
      want.encoding_digest = get_ull(expected, "encoding_digest");
      encoding_text = utf8(encoding);
      want.encoding = encoding_text.c_str();
    }
  }
  dlc::HandoffFacts hf;
  hf.request = &request;
  hf.handoff = handoff;
  hf.producer_version = versioned ? static_cast<dlc::abi::FrozenHead*>(pointer)->version
                                  : DLCVersion{0, 0};
  hf.expected = want;
  {
    dlc::ScopedPhase phase("the harness's check of the handoff", producer, dlc::Party::harness);
    dlc::judge_handoff(hf, &f);
  }
  dlc::ValidateOptions options;
  options.level = dlc::Level::full;
  options.consumer_version = {1, 3};
  dlc::ValidateResult r;
  dlc::validate(handoff, options, &r);
  const DLCObservation& o = r.observation;
  PyObject* shape = PyTuple_New(o.ndim > 0 && o.ndim <= DLC_MAX_NDIM ? o.ndim : 0);
  PyObject* strides = PyTuple_New(o.ndim > 0 && o.ndim <= DLC_MAX_NDIM && o.has_strides ? o.ndim : 0);
  for (int i = 0; i < o.ndim && i < DLC_MAX_NDIM; ++i) {
    PyTuple_SetItem(shape, i, PyLong_FromLongLong(o.shape[i]));
    if (o.has_strides) PyTuple_SetItem(strides, i, PyLong_FromLongLong(o.strides[i]));
  }
  PyObject* result = Py_BuildValue(
      "{s:s,s:O,s:O,s:(II),s:K,s:(ii),s:(iii),s:i,s:N,s:N,s:K,s:K,s:K,s:O,s:N,s:N}", "capsule",
      capsule_name.c_str(), "fell_back", fell_back ? Py_True : Py_False, "type_error",
      type_error != nullptr ? type_error : Py_None, "version", o.version.major, o.version.minor,
      "flags", static_cast<unsigned long long>(o.flags), "device", o.device.device_type,
      o.device.device_id, "dtype", o.dtype.code, o.dtype.bits, o.dtype.lanes, "ndim", o.ndim,
      "shape", shape, "strides", o.has_strides ? strides : (Py_DECREF(strides), Py_None),
      "byte_offset", static_cast<unsigned long long>(o.byte_offset), "digest",
      static_cast<unsigned long long>(o.digest), "elements",
      static_cast<unsigned long long>(o.elements_read), "accepted",
      r.accepted ? Py_True : Py_False, "violations", violations_list(r), "finding",
      finding_tuple(f));
  Py_XDECREF(type_error);
  // LIFE-3: exactly one deleter call (through the trampoline, to the framework's deleter), now
  // that everything has been read; the ledger confirms it.
  dlc::delete_unclaimed(handoff);
  dlc::DestructorFacts df;
  df.used_name = versioned ? "used_dltensor_versioned" : "used_dltensor";
  df.calls_before = host().ledger.calls(pointer);
  PyObject* calls = PyLong_FromUnsignedLong(df.calls_before);
  PyDict_SetItemString(result, "deleter_calls", calls);
  Py_DECREF(calls);
  {
    // The last reference, as a rule: the producer's destructor runs now, and must leave the
    // deleter of a used_* capsule alone (LIFE-2). The ledger counts, and does not forward, a
    // second call.
    dlc::ScopedPhase phase("the producer's capsule destructor", producer, dlc::Party::producer);
    Py_DECREF(capsule);
  }
  df.calls_after = host().ledger.calls(pointer);
  host().ledger.forget(pointer);
  if (!f.any()) {
    dlc::judge_destructor(df, &f);
    if (f.any()) {
      PyObject* finding = finding_tuple(f);
      PyDict_SetItemString(result, "finding", finding);
      Py_DECREF(finding);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// negotiate(capsule, max_version, copy[, spoken]): what a framework's __dlpack__ answered (VER-4,
// FLAG-2). `spoken`: the newest version its versioned answers to other asks carried, the only
// way a legacy answer shows the producer speaks DLPack 1.x (a downgrade).

PyObject* negotiate(PyObject*, PyObject* args) {
  PyObject* capsule = nullptr;
  PyObject* max_version = Py_None;
  PyObject* spoken_object = Py_None;
  int copy = 0;
  if (!PyArg_ParseTuple(args, "OOp|O", &capsule, &max_version, &copy, &spoken_object)) {
    return nullptr;
  }
  if (!PyCapsule_CheckExact(capsule)) {
    PyErr_SetString(PyExc_TypeError, "expected a PyCapsule");
    return nullptr;
  }
  DLCRequest request{};
  request.copy = copy ? 1 : -1;
  if (max_version != Py_None) {
    request.has_max_version = 1;
    if (!parse_version(max_version, &request.max_version)) return nullptr;
  }
  const char* name = PyCapsule_GetName(capsule);
  dlc::Finding f;
  std::string answer = name != nullptr ? name : "NULL";
  void* pointer = name != nullptr ? PyCapsule_GetPointer(capsule, name) : nullptr;
  PyErr_Clear();
  const bool versioned = name != nullptr && std::strcmp(name, "dltensor_versioned") == 0;
  DLCVersion version{0, 0};
  if (versioned && pointer != nullptr) {
    version = static_cast<dlc::abi::FrozenHead*>(pointer)->version;
    answer += " " + std::to_string(version.major) + "." + std::to_string(version.minor);
    if (version.major == 1) {
      const uint64_t flags = static_cast<dlc::abi::ManagedTensorVersioned*>(pointer)->flags;
      if (flags != 0) answer += " flags=" + std::to_string(flags);
    }
  }
  dlc::HandoffFacts hf;
  hf.request = &request;
  hf.handoff = DLCHandoff{name, pointer};
  hf.producer_version = version;  // a framework says its version only in the struct
  if (!versioned && spoken_object != Py_None &&
      !parse_version(spoken_object, &hf.producer_version)) {
    return nullptr;
  }
  dlc::judge_handoff(hf, &f);
  // The capsule's destructor (still unused) deletes it when it dies: nothing to delete here.
  return Py_BuildValue("{s:N,s:s}", "finding", finding_tuple(f), "answer", answer.c_str());
}

// must_accept(tensor, profile_text, version): a valid tensor inside a consumer's profile.
PyObject* must_accept(PyObject*, PyObject* args) {
  const char* tensor = nullptr;
  const char* profile_text = nullptr;
  PyObject* version_object = nullptr;
  if (!PyArg_ParseTuple(args, "ssO", &tensor, &profile_text, &version_object)) return nullptr;
  DLCVersion version{};
  if (!parse_version(version_object, &version)) return nullptr;
  const int i = dlc::find_tensor(tensor);
  if (i < 0) {
    PyErr_Format(PyExc_ValueError, "no tensor named %s", tensor);
    return nullptr;
  }
  dlc::Profile profile;
  std::string error;
  if (!dlc::parse_profile(profile_text, "the driver's profile", &profile, &error)) {
    PyErr_SetString(PyExc_ValueError, error.c_str());
    return nullptr;
  }
  const dlc::TensorCase& t = dlc::tensor_catalogue()[i];
  return PyBool_FromLong(dlc::consumer_supports(profile, t) &&
                         dlc::valid_for(t, version, profile.max_ndim));
}

// ---------------------------------------------------------------------------------------------
// guard_faults(path): name a fault in guarded memory, or in a plugin, before the worker dies

char g_fault_path[512] = "";
char g_case_parties[256] = "-";  // the frameworks of the running case, for the fault's words
dlc::Rule g_case_rule = dlc::Rule::none;

void on_fault(int sig, siginfo_t* info, void* context) {
  dlc::FaultFacts facts;
  facts.signal = dlc::decode_signal(sig, info, context);
  facts.block = host().arena.facts(facts.signal.address);
  // Outside the harness's own calls, control is in Python or the frameworks of the case.
  const bool harness = dlc::g_phase.party == dlc::Party::harness;
  facts.where = harness ? "the frameworks' code" : dlc::g_phase.where;
  facts.plugin = harness ? g_case_parties : dlc::g_phase.plugin;
  facts.case_rule = g_case_rule;
  dlc::Finding f;
  dlc::judge_fault(facts, &f);
  // A SIGSEGV elsewhere in Python's or a framework's own code is not ours to name; one in
  // guarded memory, or while a plugin runs, is (as in the matrix's workers).
  if (facts.block.found || sig != SIGSEGV || !harness) {
    const int fd = open(g_fault_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      char line[640];
      dlc::SafeText t(line, sizeof line);
      t.add(dlc::name_of(f.cls)).add('\t').add(dlc::id_of(f.rule)).add('\t').add(f.words).add('\n');
      ssize_t ignored = write(fd, line, t.length());
      (void)ignored;
      close(fd);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

// begin_case(rule, parties): what a fault during the next case is attributed to; the case's
// stray deleter calls start from none.
PyObject* begin_case(PyObject*, PyObject* args) {
  const char* rule = nullptr;
  const char* parties = nullptr;
  if (!PyArg_ParseTuple(args, "ss", &rule, &parties)) return nullptr;
  g_case_rule = dlc::rule_from_id(rule);
  dlc::SafeText(g_case_parties, sizeof g_case_parties).add(parties);
  // A stray deleter call is the case's in which it came, not every later case's.
  host().ledger.clear_stray();
  Py_RETURN_NONE;
}

PyObject* guard_faults(PyObject*, PyObject* args) {
  const char* path = nullptr;
  if (!PyArg_ParseTuple(args, "s", &path)) return nullptr;
  dlc::SafeText(g_fault_path, sizeof g_fault_path).add(path);
  dlc::refresh_code_ranges();
  dlc::route_fatal_signals(on_fault, 2);  // SIGSEGV and SIGBUS: Python handles the rest
  Py_RETURN_NONE;
}

// ---------------------------------------------------------------------------------------------

PyObject* tensor_names(PyObject*, PyObject*) {
  PyObject* list = PyList_New(0);
  for (const dlc::TensorCase& t : dlc::tensor_catalogue()) {
    const bool valid = dlc::valid_for(t, DLCVersion{1, 3}, DLC_MAX_NDIM);
    PyObject* item = Py_BuildValue(
        "{s:s,s:s,s:O,s:O,s:O,s:i,s:(iii),s:i,s:O,s:O}", "name", t.name.c_str(), "rule",
        dlc::id_of(t.rule), "valid", valid ? Py_True : Py_False, "generated",
        t.generated ? Py_True : Py_False, "test_layout", t.test_layout ? Py_True : Py_False,
        "device", t.spec.device.device_type, "dtype", t.spec.dtype.code, t.spec.dtype.bits,
        t.spec.dtype.lanes, "ndim", t.spec.ndim, "read_only",
        (t.spec.options & DLC_SPEC_READ_ONLY) ? Py_True : Py_False, "copy",
        t.copy == 1 ? Py_True : Py_False);
    PyList_Append(list, item);
    Py_DECREF(item);
  }
  return list;
}

// The highest dtype code a header "vX.Y" defines: a party is never asked for a dtype its header
// has no code for (harness/plan/plan.cpp, header_cannot_say).
PyObject* max_known_code(PyObject*, PyObject* args) {
  unsigned major = 0;
  unsigned minor = 0;
  if (!PyArg_ParseTuple(args, "II", &major, &minor)) return nullptr;
  return PyLong_FromLong(dlc::max_known_code(DLCVersion{major, minor}));
}

PyObject* tensor_layout(PyObject*, PyObject* args) {
  const char* name = nullptr;
  if (!PyArg_ParseTuple(args, "s", &name)) return nullptr;
  const int i = dlc::find_tensor(name);
  if (i < 0) {
    PyErr_Format(PyExc_ValueError, "no tensor named %s", name);
    return nullptr;
  }
  const DLCTensorSpec& s = dlc::tensor_catalogue()[i].spec;
  PyObject* shape = PyTuple_New(s.ndim);
  PyObject* strides = PyTuple_New(s.has_strides ? s.ndim : 0);
  for (int d = 0; d < s.ndim; ++d) {
    PyTuple_SetItem(shape, d, PyLong_FromLongLong(s.shape[d]));
    if (s.has_strides) PyTuple_SetItem(strides, d, PyLong_FromLongLong(s.strides[d]));
  }
  return Py_BuildValue("{s:N,s:N,s:K,s:i}", "shape", shape, "strides", strides, "byte_offset",
                       static_cast<unsigned long long>(s.byte_offset), "misalign", s.misalign);
}

PyObject* digest(PyObject*, PyObject* args) {
  const char* buf = nullptr;
  Py_ssize_t len = 0;
  if (!PyArg_ParseTuple(args, "y#", &buf, &len)) return nullptr;
  const uint64_t d = dlc_digest_update(dlc_digest_init(), buf, static_cast<size_t>(len));
  return PyLong_FromUnsignedLongLong(d);
}

PyObject* rule_info(PyObject*, PyObject* args) {
  const char* id = nullptr;
  if (!PyArg_ParseTuple(args, "s", &id)) return nullptr;
  const dlc::Rule r = dlc::rule_from_id(id);
  if (r == dlc::Rule::none) {
    PyErr_Format(PyExc_ValueError, "expected a rule id of the table but found %s", id);
    return nullptr;
  }
  return Py_BuildValue("(ss)", dlc::to_string(dlc::info(r).severity), dlc::info(r).summary);
}

PyObject* make_finding(PyObject*, PyObject* args) {
  const char* cls = nullptr;
  const char* rule = nullptr;
  const char* words = nullptr;
  if (!PyArg_ParseTuple(args, "sss", &cls, &rule, &words)) return nullptr;
  dlc::Finding f;
  const dlc::FindingClass c = dlc::class_from_name(cls);
  if (c == dlc::FindingClass::none) {
    PyErr_Format(PyExc_ValueError, "expected a finding class of findings.def but found %s", cls);
    return nullptr;
  }
  f.set(c, dlc::rule_from_id(rule)).add(words);
  return finding_tuple(f);
}

PyMethodDef module_methods[] = {
    {"consume", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(consume)),
     METH_VARARGS | METH_KEYWORDS, "Import obj.__dlpack__() as the spec says and judge it."},
    {"judge_import", judge_import_py, METH_VARARGS,
     "Judge what a framework did with a MockTensor; returns a finding or None."},
    {"negotiate", negotiate, METH_VARARGS,
     "Judge what __dlpack__ answered a max_version (and copy) request, given the version the "
     "producer speaks when its answer is legacy: {finding, answer}."},
    {"must_accept", must_accept, METH_VARARGS,
     "Whether a consumer with this profile (profile-file text) must import the tensor."},
    {"interpose", interpose, METH_VARARGS, "Count a capsule's deleter calls: (handle, interposed)."},
    {"deleter_calls", deleter_calls, METH_VARARGS, "Deleter calls on an interposed struct."},
    {"guarded_blocks", guarded_blocks, METH_NOARGS,
     "(live, capacity, nearly_full): blocks of the guard arena still live in this process, "
     "and whether it is three quarters used."},
    {"capsule_name_storage", capsule_name_storage, METH_VARARGS,
     "capsule_name_storage(capsule): (name, static), static when the name's bytes lie in a "
     "loaded object (python_spec.rst: statically allocated)."},
    {"static_capsule_names", static_capsule_names, METH_NOARGS,
     "{name: address} of the DLPack capsule names in the bridge's static storage."},
    {"capsule_kind", capsule_kind, METH_VARARGS,
     "capsule_kind(capsule): 'legacy' or 'versioned M.m'."},
    {"forget", forget, METH_VARARGS, "Drop an interposed struct's ledger entry."},
    {"capsule_device", capsule_device, METH_VARARGS,
     "(device type, device id) of the tensor a capsule carries."},
    {"capsule_flags", capsule_flags, METH_VARARGS,
     "capsule_flags(capsule): a versioned struct's flags (0 for a legacy one)."},
    {"data_live", data_live, METH_VARARGS,
     "data_live(address): whether a mock's guarded data at address is live and writable."},
    {"capsule_data", capsule_data, METH_VARARGS,
     "capsule_data(capsule): the address of the tensor's first element (data + byte_offset)."},
    {"judge_asks", judge_asks, METH_VARARGS,
     "judge_asks(calls, facts): how a consumer called __dlpack__ (VER-5, STRM-1/3/4)."},
    {"release_while_raising", release_while_raising, METH_VARARGS,
     "release_while_raising(obj): (kept, pending): obj.__dlpack__()'s capsule dropped unconsumed "
     "while a RuntimeError is pending, and whether it still is."},
    {"take_for_thread", take_for_thread, METH_VARARGS,
     "take_for_thread(capsule): (handle, versioned), the capsule renamed used_* as a consumer "
     "takes it, or (None, why) when no consumer would take it so."},
    {"delete_off_thread", delete_off_thread, METH_VARARGS,
     "delete_off_thread(handle, versioned): (finished, calls, first): the deleter called on a "
     "thread without the GIL, and its PyMem_*/PyObject_* calls made without it (LIFE-7)."},
    {"judge_used_capsule", judge_used_capsule, METH_VARARGS,
     "judge_used_capsule(facts): a capsule consumed already, handed again (LIFE-8)."},
    {"judge_write_through", judge_write_through, METH_VARARGS,
     "judge_write_through(facts): whose rule a write into immutable data breaks."},
    {"xapi_current_work_stream", xapi_current_work_stream, METH_VARARGS,
     "(rc, stream) of the type's exchange API current_work_stream, or None."},
    {"xapi_from_py_object", xapi_from_py_object, METH_VARARGS,
     "(rc, capsule or None, error, is a BufferError) of the type's exchange API "
     "managed_tensor_from_py_object_no_sync on obj, or None."},
    {"check_exchange_api", check_exchange_api, METH_VARARGS,
     "XAPI-1 to XAPI-5 on type(obj).__dlpack_c_exchange_api__: [(rule, ok, words)]."},
    {"begin_case", begin_case, METH_VARARGS,
     "begin_case(rule, parties): the rule and the frameworks a fault in the next case is "
     "attributed to."},
    {"guard_faults", guard_faults, METH_VARARGS,
     "Write 'class\\trule\\twords' of a fault in guarded memory to PATH before dying."},
    {"tensor_names", tensor_names, METH_NOARGS, "The catalogue, one dict per tensor."},
    {"max_known_code", max_known_code, METH_VARARGS,
     "The highest dtype code the header (major, minor) defines."},
    {"tensor_layout", tensor_layout, METH_VARARGS, "shape, strides, byte_offset of a tensor."},
    {"digest", digest, METH_VARARGS, "FNV-1a 64 of a bytes-like object (dlc_digest)."},
    {"rule_info", rule_info, METH_VARARGS, "(severity, summary) of a rule id, from rules.def."},
    {"make_finding", make_finding, METH_VARARGS,
     "(class, rule, severity, words) of a finding the driver observed directly."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "_dlconform",
                          "dlconform's CPython bridge.", -1, module_methods,
                          nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dlconform() {
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  if (make_mock_type() == nullptr || PyModule_AddObject(module, "MockTensor", g_mock_type) < 0) {
    Py_XDECREF(g_mock_type);
    Py_DECREF(module);
    return nullptr;
  }
  Py_INCREF(g_mock_type);
  PyObject* plugin_type = make_plugin_consumer_type();
  if (plugin_type == nullptr || PyModule_AddObject(module, "PluginConsumer", plugin_type) < 0) {
    Py_XDECREF(plugin_type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
