// The calls into a DLPack C exchange-API table (check_exchange_api, after bridge_xapi.cpp found
// the table): each one through xapi::guarded, so that an escaping C++ exception is a record
// (XAPI-3), never a crash of the bridge. What each check hands the table and expects back:
//   from_py_object(obj)      rc 0, or -1 with a Python exception; an owning tensor (a deleter)
//                            that validates and reads obj.tolist(); to_py_object takes it back
//                            and its deleter runs once, when that object dies (XAPI-5)
//   obj[:, 1:]               a non-compact view through from_py_object and dltensor_from_py_object:
//                            shape, strides and byte_offset must read its tolist() (XAPI-5)
//   dltensor_from_py_object  rc 0, or -1 with a Python exception; reads obj.tolist() (XAPI-5)
//   allocator                a 2x3 float32 CPU tensor without SetError; float7: SetError exactly
//                            when it fails; a prototype whose data and strides point at an
//                            unreadable page, in a forked child (XAPI-4)
//   allocator + to_py_object + from_py_object   the object reads the stolen tensor; the tensor
//                            from_py_object makes of it keeps its data alive after the object's
//                            last reference goes, and lets the object go when deleted; the
//                            stolen tensor's deleter runs exactly once (XAPI-5)
//   current_work_stream(kDLCPU, 0)   rc 0, NULL allowed (XAPI-5)
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "bridge_xapi.h"
#include "validate.h"

namespace dlc::bridge::xapi {
namespace {

constexpr const char* kFrom = "managed_tensor_from_py_object_no_sync";
constexpr const char* kTo = "managed_tensor_to_py_object_no_sync";
constexpr const char* kBorrow = "dltensor_from_py_object_no_sync";
constexpr const char* kAllocator = "managed_tensor_allocator";
constexpr const char* kStream = "current_work_stream";

// What an allocator told SetError.
struct Errors {
  int calls = 0;
  char first[160] = {};  // "kind: message" of the first call
};
void count_set_error(void* ctx, const char* kind, const char* message) {
  auto* e = static_cast<Errors*>(ctx);
  if (e->calls++ == 0) {
    std::snprintf(e->first, sizeof e->first, "%s: %s", kind ? kind : "NULL",
                  message ? message : "NULL");
    char* newline = std::strchr(e->first, '\n');  // a framework's message with its C++ trace
    if (newline != nullptr) *newline = '\0';
  }
}
std::string set_error_words(const Errors& e) {
  return "SetError " + std::to_string(e.calls) + " time(s)" +
         (e.calls > 0 ? std::string(" (") + e.first + ")" : "");
}

DLTensor plain_prototype(int64_t* shape, uint8_t bits) {
  DLTensor t{};
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, bits, 1};
  t.shape = shape;
  return t;
}

// XAPI-5: to_py_object stole `whose` tensor, so its deleter ran exactly once, when the object that
// took it died.
void record_stolen(Records& rec, uint32_t calls, const char* whose) {
  rec.add("XAPI-5", calls == 1,
          calls == 1 ? std::string("to_py_object took ") + whose +
                           " tensor; its deleter ran once, when the object died"
                     : std::string("expected to_py_object to take ") + whose + " tensor (dlpack.h: "
                       "\"the ownership of the tensor is stolen\"), its deleter run once when the "
                       "object dies, but found " + std::to_string(calls) + " call(s)");
}

// The allocator asked for a 2x3 float CPU tensor of `bits` bits, through the guard that records
// an escaping C++ exception (kThrew); any Python error it set is cleared.
int allocate_plain(const DLPackExchangeAPI& api, Records& rec, uint8_t bits, Errors* errors,
                   DLManagedTensorVersioned** made) {
  int64_t shape[2] = {2, 3};
  DLTensor prototype = plain_prototype(shape, bits);
  const int rc = guarded(rec, kAllocator, [&] {
    return api.managed_tensor_allocator(&prototype, made, errors, count_set_error);
  });
  PyErr_Clear();
  return rc;
}

Values arange(double first) {
  Values v{2, 3, {}};
  for (int k = 0; k < 6; ++k) v.v.push_back(first + k);
  return v;
}

// An allocator's 2x3 float32 CPU tensor holding first..first+5, or nullptr (the allocator's own
// records are check_allocator's).
DLManagedTensorVersioned* allocate_filled(const DLPackExchangeAPI& api, Records& rec,
                                          double first) {
  Errors errors;
  DLManagedTensorVersioned* made = nullptr;
  const int rc = allocate_plain(api, rec, 32, &errors, &made);
  Values zeros;
  if (rc != 0 || made == nullptr) return nullptr;
  const DLTensor& t = made->dl_tensor;
  if (made->deleter == nullptr || !tensor_values(t, &zeros) || zeros.rows != 2 ||
      zeros.cols != 3) {
    if (made->deleter != nullptr) made->deleter(made);
    return nullptr;
  }
  const int64_t s0 = t.strides != nullptr ? t.strides[0] : 3;
  const int64_t s1 = t.strides != nullptr ? t.strides[1] : 1;
  char* base = static_cast<char*>(t.data) + t.byte_offset;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) {
      const float x = static_cast<float>(first + static_cast<double>(i * 3 + j));
      std::memcpy(base + (i * s0 + j * s1) * 4, &x, sizeof x);
    }
  }
  return made;
}

// The words of a comparison of what a call gave with what tolist() says.
void record_values(Records& rec, const std::string& what, const Values& want, const Values& got,
                   const DLTensor& t) {
  rec.add("XAPI-5", got == want,
          got == want ? what + " reads " + want.text() + " (" + layout(t) + ")"
                      : "expected " + what + " to read " + want.text() +
                            " (its tolist()) but found " + got.text() + " through " + layout(t));
}

}  // namespace

void check_from_py_object(const DLPackExchangeAPI& api, PyObject* obj, Records& rec) {
  if (api.managed_tensor_from_py_object_no_sync == nullptr) return;
  Values truth;
  const bool known = python_values(obj, &truth);
  DLManagedTensorVersioned* owned = nullptr;
  const int rc =
      guarded(rec, kFrom, [&] { return api.managed_tensor_from_py_object_no_sync(obj, &owned); });
  if (rc == kThrew) return;
  if (rc != 0 || owned == nullptr) {
    rec.add("XAPI-5", false,
            rc != 0 ? failure_words(kFrom, "export the array", rc)
                    : std::string("expected ") + kFrom +
                          " to give a tensor with rc 0 but found NULL");
    return;
  }
  dlc::ValidateOptions options;
  options.level = dlc::Level::full;
  dlc::ValidateResult r;
  dlc::validate(DLCHandoff{"dltensor_versioned", owned}, options, &r);
  const dlc::Violation* v = r.first_must();
  rec.add("XAPI-5", v == nullptr,
          v == nullptr ? "from_py_object: a versioned tensor of " +
                             std::to_string(r.observation.elements_read) +
                             " elements that validates"
                       : std::string("expected from_py_object's tensor to validate but found it "
                                     "breaking ") + dlc::id_of(v->rule) + ": " + v->message);
  rec.add("XAPI-5", owned->deleter != nullptr,
          owned->deleter != nullptr
              ? "from_py_object's tensor has a deleter (an owning tensor)"
              : "expected from_py_object to give an owning tensor (dlpack.h: \"The owning "
                "DLManagedTensorVersioned*\"), with a deleter, but found deleter NULL");
  Values got;
  if (known && tensor_values(owned->dl_tensor, &got)) {
    record_values(rec, "from_py_object's tensor", truth, got, owned->dl_tensor);
  }
  if (owned->deleter == nullptr) return;  // nothing can free it
  if (api.managed_tensor_to_py_object_no_sync == nullptr) {
    owned->deleter(owned);
    return;
  }
  // to_py_object steals it: the deleter must run exactly once, when the object dies.
  host().ledger.interpose(owned, dlc::abi::StructKind::versioned);
  void* py = nullptr;
  const int to_rc =
      guarded(rec, kTo, [&] { return api.managed_tensor_to_py_object_no_sync(owned, &py); });
  if (to_rc == kThrew) {  // who owns it now is unknown: leave it
  } else if (to_rc != 0 || py == nullptr) {
    rec.add("XAPI-5", false, failure_words(kTo, "take back from_py_object's tensor", to_rc));
    // dlpack.h does not say who owns a stolen tensor on failure (rules.md "Known gaps"); the
    // ledger forwards one deleter call at most, so this cannot free it twice.
    if (host().ledger.calls(owned) == 0) owned->deleter(owned);
  } else {
    Values back;
    if (known && python_values(static_cast<PyObject*>(py), &back)) {
      rec.add("XAPI-5", back == truth,
              back == truth ? "to_py_object's object of from_py_object's tensor reads " +
                                  truth.text()
                            : "expected to_py_object's object of from_py_object's tensor to read " +
                                  truth.text() + " but found " + back.text());
    }
    Py_DECREF(static_cast<PyObject*>(py));
    collect();
    record_stolen(rec, host().ledger.calls(owned), "from_py_object's");
  }
  host().ledger.forget(owned);
}

void check_sliced(const DLPackExchangeAPI& api, PyObject* obj, Records& rec) {
  PyObject* one = PyLong_FromLong(1);
  PyObject* key = Py_BuildValue("(NN)", PySlice_New(nullptr, nullptr, nullptr),
                                PySlice_New(one, nullptr, nullptr));
  Py_XDECREF(one);
  PyObject* sliced = key != nullptr ? PyObject_GetItem(obj, key) : nullptr;
  Py_XDECREF(key);
  Values truth;
  if (sliced == nullptr || !python_values(sliced, &truth)) {  // no 2-D slicing: nothing to check
    PyErr_Clear();
    Py_XDECREF(sliced);
    return;
  }
  if (api.managed_tensor_from_py_object_no_sync != nullptr) {
    DLManagedTensorVersioned* t = nullptr;
    const int rc =
        guarded(rec, kFrom, [&] { return api.managed_tensor_from_py_object_no_sync(sliced, &t); });
    Values got;
    if (rc == kThrew) {
    } else if (rc != 0 || t == nullptr) {
      rec.add("XAPI-5", false, failure_words(kFrom, "export obj[:, 1:]", rc));
    } else if (tensor_values(t->dl_tensor, &got)) {
      record_values(rec, "from_py_object of obj[:, 1:]", truth, got, t->dl_tensor);
    }
    if (rc == 0 && t != nullptr && t->deleter != nullptr) t->deleter(t);
  }
  if (api.dltensor_from_py_object_no_sync != nullptr) {
    DLTensor borrowed{};
    const int rc = guarded(
        rec, kBorrow, [&] { return api.dltensor_from_py_object_no_sync(sliced, &borrowed); });
    Values got;
    if (rc == kThrew) {
    } else if (rc != 0) {
      rec.add("XAPI-5", false, failure_words(kBorrow, "fill a DLTensor for obj[:, 1:]", rc));
    } else if (tensor_values(borrowed, &got)) {
      record_values(rec, "dltensor_from_py_object of obj[:, 1:]", truth, got, borrowed);
    } else if (borrowed.device.device_type == kDLCPU) {  // a device's values are not read here
      rec.add("XAPI-5", false, "expected dltensor_from_py_object of obj[:, 1:] to read a 2-D "
                               "float32 CPU tensor but found " + layout(borrowed));
    }
  }
  Py_DECREF(sliced);
  PyErr_Clear();
}

void check_dltensor(const DLPackExchangeAPI& api, PyObject* obj, Records& rec) {
  if (api.dltensor_from_py_object_no_sync == nullptr) {
    rec.add("XAPI-3", true, "dltensor_from_py_object_no_sync is NULL, which dlpack.h allows");
    return;
  }
  Values truth;
  const bool known = python_values(obj, &truth);
  DLTensor borrowed{};
  const int rc =
      guarded(rec, kBorrow, [&] { return api.dltensor_from_py_object_no_sync(obj, &borrowed); });
  Values got;
  if (rc == kThrew) return;
  if (rc != 0) {
    rec.add("XAPI-5", false, failure_words(kBorrow, "fill a DLTensor for the array", rc));
  } else if (known && tensor_values(borrowed, &got)) {
    record_values(rec, "dltensor_from_py_object's DLTensor", truth, got, borrowed);
  } else if (known && borrowed.device.device_type == kDLCPU) {
    // The array reads as a 2-D float32 table: so must what was filled in (a device's values are
    // not read here).
    rec.add("XAPI-5", false, "expected dltensor_from_py_object's DLTensor to read " + truth.text() +
                                 " but found " + layout(borrowed) +
                                 ", no 2-D float32 CPU tensor");
  } else {
    rec.add("XAPI-5", borrowed.ndim >= 0,
            "dltensor_from_py_object filled a DLTensor of ndim " + std::to_string(borrowed.ndim));
  }
}

void check_allocator(const DLPackExchangeAPI& api, Records& rec) {
  if (api.managed_tensor_allocator == nullptr) return;
  Errors errors;
  DLManagedTensorVersioned* made = nullptr;
  const int rc = allocate_plain(api, rec, 32, &errors, &made);
  if (rc != kThrew) {
    const DLTensor* t = made != nullptr ? &made->dl_tensor : nullptr;
    const bool right = t != nullptr && t->ndim == 2 && t->shape != nullptr && t->shape[0] == 2 &&
                       t->shape[1] == 3 && t->dtype.code == kDLFloat && t->dtype.bits == 32 &&
                       t->device.device_type == kDLCPU;
    if (rc == 0 && errors.calls > 0) {
      rec.add("XAPI-4", false,
              "expected no SetError call when the allocator succeeds (dlpack.h: \"SetError is "
              "called exactly when NULL is returned\") but found rc 0 and " +
                  set_error_words(errors));
    } else if (rc != 0 || t == nullptr) {
      rec.add("XAPI-4", false,
              "expected the allocator to make a 2x3 float32 CPU tensor but found rc " +
                  std::to_string(rc) + (t == nullptr ? ", no tensor" : "") + " and " +
                  set_error_words(errors));
    } else {
      rec.add("XAPI-4", right && made->deleter != nullptr,
              right && made->deleter != nullptr
                  ? "allocator: a 2x3 float32 CPU tensor with a deleter, SetError not called"
                  : "expected the allocator to make an owning 2x3 float32 CPU tensor but found " +
                        layout(*t) + (made->deleter == nullptr ? " and deleter NULL" : ""));
    }
    if (rc == 0 && made != nullptr && made->deleter != nullptr) made->deleter(made);
  }
  Errors bad;
  made = nullptr;
  const int bad_rc = allocate_plain(api, rec, 7, &bad, &made);  // a width no framework allocates
  if (bad_rc == kThrew) return;
  const bool bad_ok = (bad_rc != 0 && bad.calls == 1) || (bad_rc == 0 && bad.calls == 0);
  rec.add("XAPI-4", bad_ok,
          bad_ok ? "allocator for float7: rc " + std::to_string(bad_rc) + ", " +
                       set_error_words(bad)
                 : std::string("expected SetError exactly when the allocator fails (dlpack.h: "
                               "\"SetError is called exactly when NULL is returned\") but found "
                               "rc ") + std::to_string(bad_rc) + " for float7 and " +
                       set_error_words(bad));
  if (bad_rc == 0 && made != nullptr && made->deleter != nullptr) made->deleter(made);
}

// The allocator on a prototype whose data and strides point at a page that cannot be read and
// whose byte_offset is a poison value. It may read only dtype, ndim, shape and device, so it
// must neither fault nor carry any of the three into its tensor. The call runs in a forked
// child: a dereference kills the child, not this process; the child reports through a pipe.
// The child touches no Python object (an allocator is called without one) and ends in _exit.
void check_prototype_reads(const DLPackExchangeAPI& api, Records& rec) {
  if (api.managed_tensor_allocator == nullptr) return;
  constexpr uint64_t kPoisonOffset = 0x5a5a0;
  static void* const page =
      mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct Report {
    int rc, threw, data_kept, strides_kept, offset_kept;
  };
  int fds[2];
  if (page == MAP_FAILED || pipe(fds) != 0) return;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    // A fault here is the record's to tell: not the matrix worker's fault handler's (the
    // bridge's guard_faults), which would leave a fault file behind for the living worker.
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);  // a sanitizer's report of the fault: the status says it
    int64_t shape[2] = {2, 3};
    DLTensor prototype = plain_prototype(shape, 32);
    prototype.data = page;
    prototype.strides = static_cast<int64_t*>(page);
    prototype.byte_offset = kPoisonOffset;
    Errors errors;
    DLManagedTensorVersioned* made = nullptr;
    Report r{};
    try {
      r.rc = api.managed_tensor_allocator(&prototype, &made, &errors, count_set_error);
    } catch (...) {
      r.threw = 1;
    }
    if (!r.threw && r.rc == 0 && made != nullptr) {
      r.data_kept = made->dl_tensor.data == page;
      r.strides_kept = made->dl_tensor.strides == page;
      r.offset_kept = made->dl_tensor.byte_offset == kPoisonOffset;
    }
    _exit(write(fds[1], &r, sizeof r) == sizeof r ? 0 : 3);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    rec.add("XAPI-4", true, "prototype reads not checked: fork failed");
    return;
  }
  Report r{};
  pollfd ready{fds[0], POLLIN, 0};
  const bool answered = poll(&ready, 1, 10000) > 0 && read(fds[0], &r, sizeof r) == sizeof r;
  close(fds[0]);
  if (!answered) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string want =
      "expected the allocator to use only dtype, ndim, shape and device of its prototype "
      "(dlpack.h: \"Only the dtype, ndim, shape, and device fields are used.\") but found ";
  if (!answered) {
    rec.add("XAPI-4", false,
            want + (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL
                        ? "the call dying of signal " + std::to_string(WTERMSIG(status))
                        : WIFEXITED(status) ? "the call ending its process with status " +
                                                  std::to_string(WEXITSTATUS(status))
                                            : std::string("no answer in 10 s")) +
                " (in a forked child) with data and strides at an unreadable page");
  } else if (r.threw) {
    rec.add("XAPI-4", true, "prototype reads not seen: the allocator threw (XAPI-3)");
  } else if (r.data_kept || r.strides_kept || r.offset_kept) {
    rec.add("XAPI-4", false,
            want + "its tensor's " +
                (r.data_kept ? "data" : r.strides_kept ? "strides" : "byte_offset") +
                " copied from the prototype's");
  } else {
    rec.add("XAPI-4", r.rc == 0,
            r.rc == 0 ? "allocator: ignores the prototype's data, strides and byte_offset "
                        "(poisoned)"
                      : want + "rc " + std::to_string(r.rc) +
                            " for a prototype whose data, strides and byte_offset are poisoned");
  }
}

void check_ownership(const DLPackExchangeAPI& api, Records& rec) {
  if (api.managed_tensor_allocator == nullptr ||
      api.managed_tensor_to_py_object_no_sync == nullptr ||
      api.managed_tensor_from_py_object_no_sync == nullptr) {
    return;
  }
  DLManagedTensorVersioned* made = allocate_filled(api, rec, 10);
  if (made == nullptr || !host().ledger.interpose(made, dlc::abi::StructKind::versioned)) return;
  const Values want = arange(10);
  void* out = nullptr;
  const int rc =
      guarded(rec, kTo, [&] { return api.managed_tensor_to_py_object_no_sync(made, &out); });
  if (rc == kThrew) {  // who owns it now is unknown: leave it
    host().ledger.forget(made);
    return;
  }
  if (rc != 0 || out == nullptr) {
    rec.add("XAPI-5", false, failure_words(kTo, "take an allocator's tensor", rc));
    if (host().ledger.calls(made) == 0) made->deleter(made);  // see check_from_py_object
    host().ledger.forget(made);
    return;
  }
  auto* py = static_cast<PyObject*>(out);
  const uint32_t at_once = host().ledger.calls(made);
  Values seen;
  if (python_values(py, &seen)) {
    rec.add("XAPI-5", seen == want,
            seen == want ? "to_py_object's object reads the tensor it took"
                         : "expected the object to_py_object made to read the tensor it took, " +
                               want.text() + ", but found " + seen.text() + " (the tensor's "
                               "deleter had run " + std::to_string(at_once) + " time(s) already)");
  }
  // The tensor from_py_object makes of that object owns: it keeps the data alive after the
  // object's last reference goes, and lets the object go when it is deleted.
  PyObject* weak = PyWeakref_NewRef(py, nullptr);
  PyErr_Clear();
  DLManagedTensorVersioned* kept = nullptr;
  const int from_rc =
      guarded(rec, kFrom, [&] { return api.managed_tensor_from_py_object_no_sync(py, &kept); });
  PyErr_Clear();
  Py_DECREF(py);
  collect();
  if (from_rc == 0 && kept != nullptr) {
    Values after;
    if (tensor_values(kept->dl_tensor, &after)) {
      rec.add("XAPI-5", after == want,
              after == want ? "from_py_object's tensor keeps its data alive after its object's "
                              "last reference is gone"
                            : "expected from_py_object's tensor to keep its data alive after the "
                              "object's last reference was gone (an owning tensor) but found " +
                                  after.text() + " where " + want.text() + " was");
    }
    if (kept->deleter != nullptr) {
      kept->deleter(kept);
      collect();
      PyObject* alive = weak != nullptr ? PyWeakref_GetObject(weak) : nullptr;  // borrowed
      if (alive != nullptr) {
        rec.add("XAPI-5", alive == Py_None,
                alive == Py_None
                    ? "the object died once from_py_object's tensor was deleted"
                    : "expected the object to die once its last reference and from_py_object's "
                      "tensor were gone but found it alive: the tensor's deleter keeps a "
                      "reference");
      }
    }
  }
  Py_XDECREF(weak);
  PyErr_Clear();
  record_stolen(rec, host().ledger.calls(made), "the allocator's");
  host().ledger.forget(made);
}

void check_work_stream(const DLPackExchangeAPI& api, Records& rec) {
  if (api.current_work_stream == nullptr) return;
  void* stream = reinterpret_cast<void*>(1);
  const int rc = guarded(rec, kStream, [&] { return api.current_work_stream(kDLCPU, 0, &stream); });
  if (rc == kThrew) return;
  rec.add("XAPI-5", rc == 0,
          rc == 0 ? std::string("current_work_stream(kDLCPU, 0) returned 0 and ") +
                        (stream == nullptr ? "NULL" : "a stream")
                  : failure_words(kStream, "answer for the CPU (a producer may give NULL)", rc));
}

}  // namespace dlc::bridge::xapi
