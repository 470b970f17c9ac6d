// Internal to the _dlconform extension: what bridge_xapi.cpp (finding the table: XAPI-1 to
// XAPI-3) and bridge_xapi_calls.cpp (calling into it: XAPI-3 to XAPI-5) share.
#pragma once

#include <dlpack/dlpack.h>

#include <climits>
#include <exception>
#include <string>
#include <vector>

#include "bridge.h"

namespace dlc::bridge::xapi {

// The records check_exchange_api returns, (rule, ok, words), in the order they were made.
// Failing words read "expected X but found Y".
class Records {
 public:
  explicit Records(PyObject* list) noexcept : list_(list) {}
  void add(const char* rule, bool ok, const std::string& words);
  int calls = 0;    // table functions called
  int escaped = 0;  // ... that let a C++ exception out (XAPI-3)

 private:
  PyObject* list_;
};

// The rc of a call that a C++ exception left: no table function returns it.
constexpr int kThrew = INT_MIN;

// Calls `call` (one call into a table function), with no Python error pending. A C++ exception
// that escapes it is caught here and recorded against XAPI-3 ("As a C function, must not thrown
// C++ exceptions"), and kThrew returned. This catches what reaches this C++ frame: the bridge
// and a C++ producer both have unwind tables. A producer whose C frames between the throw and
// here have none makes the runtime call std::terminate instead: the worker dies, and the matrix
// records a crash, which is what any C consumer of that table would suffer too.
template <class F>
int guarded(Records& rec, const char* slot, F&& call) {
  PyErr_Clear();
  ++rec.calls;
  std::string what;
  try {
    return call();
  } catch (const std::exception& e) {
    what = std::string("a std::exception (") + e.what() + ")";
  } catch (...) {
    what = "an exception of a type that is no std::exception";
  }
  ++rec.escaped;
  PyErr_Clear();
  rec.add("XAPI-3", false,
          std::string("expected ") + slot +
              " not to throw (dlpack.h: \"As a C function, must not thrown C++ exceptions\") "
              "but found " + what + " escaping it");
  return kThrew;
}

// A 2-D array of numbers, row-major: what obj.tolist() says, or what a tensor's bytes hold.
struct Values {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> v;
  bool operator==(const Values&) const = default;
  std::string text() const;  // [[0, 1, 2], [3, 4, 5]]
};
// obj.tolist() as a 2-D array of numbers; false, with no Python error left, otherwise.
bool python_values(PyObject* obj, Values* out);
// The elements of a 2-D float32 tensor in host memory, read through data, byte_offset and
// strides (NULL: compact); false when the tensor is no such thing.
bool tensor_values(const DLTensor& t, Values* out);
// "shape [2, 2], strides [3, 1], byte_offset 4".
std::string layout(const DLTensor& t);
// The pending Python exception as "TypeName: message", cleared; whether it is a BufferError (or
// a subclass) in *buffer_error when given.
std::string take_python_error(bool* buffer_error = nullptr);
// The words for a table call that returned rc != 0: whether the Python exception the contract
// asks for is set (cleared here). `doing` says what the call was for.
std::string failure_words(const char* slot, const std::string& doing, int rc);
// gc.collect(), so that an object whose last reference went is gone.
void collect();

// bridge_xapi_calls.cpp: the checks that call into a major-1 table whose four required slots
// may still be NULL (each check skips what it cannot call). `obj` is the object the table was
// found on.
void check_from_py_object(const DLPackExchangeAPI& api, PyObject* obj, Records& rec);
void check_sliced(const DLPackExchangeAPI& api, PyObject* obj, Records& rec);
void check_dltensor(const DLPackExchangeAPI& api, PyObject* obj, Records& rec);
void check_allocator(const DLPackExchangeAPI& api, Records& rec);
void check_prototype_reads(const DLPackExchangeAPI& api, Records& rec);
void check_ownership(const DLPackExchangeAPI& api, Records& rec);
void check_work_stream(const DLPackExchangeAPI& api, Records& rec);

}  // namespace dlc::bridge::xapi
