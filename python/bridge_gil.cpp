// A producer's deleter called on a thread that holds no GIL (LIFE-7): python_spec.rst says the
// deleter "must ensure that sharing beyond Python boundaries is possible; the GIL must be acquired
// explicitly if it uses Python objects or API". A consumer in C may drop a tensor on any thread.
//
// What tells a deleter that uses Python without the GIL from one that takes it: Python's own
// allocator domains (PyMem_* and PyObject_*) may be called only with the GIL held, and releasing
// the last reference of an object frees through them. For the call's duration both domains are
// wrapped; a call from the deleter's thread while it does not hold the GIL is counted. A block
// freed that way is left allocated: handing it to an allocator whose state is the caller's
// interpreter's (3.12 and later) would crash without a thread state.
//
// The limited API the bridge is built for has neither PyMem_GetAllocator/PyMem_SetAllocator nor
// PyGILState_Check; they are looked up in the running interpreter, whose signatures for them have
// not changed since 3.5.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "abi.h"
#include "bridge.h"

namespace dlc::bridge {
namespace {

struct Allocator {  // PyMemAllocatorEx
  void* ctx;
  void* (*malloc)(void* ctx, size_t size);
  void* (*calloc)(void* ctx, size_t count, size_t size);
  void* (*realloc)(void* ctx, void* block, size_t size);
  void (*free)(void* ctx, void* block);
};
constexpr int kMemDomain = 1;     // PYMEM_DOMAIN_MEM
constexpr int kObjectDomain = 2;  // PYMEM_DOMAIN_OBJ

struct InterpreterApi {
  void (*get_allocator)(int domain, Allocator* out) = nullptr;
  void (*set_allocator)(int domain, Allocator* in) = nullptr;
  int (*holds_gil)() = nullptr;
};

const InterpreterApi* interpreter_api() {
  static const InterpreterApi found = [] {
    InterpreterApi api;
    api.get_allocator = reinterpret_cast<decltype(api.get_allocator)>(
        dlsym(RTLD_DEFAULT, "PyMem_GetAllocator"));
    api.set_allocator = reinterpret_cast<decltype(api.set_allocator)>(
        dlsym(RTLD_DEFAULT, "PyMem_SetAllocator"));
    api.holds_gil = reinterpret_cast<decltype(api.holds_gil)>(
        dlsym(RTLD_DEFAULT, "PyGILState_Check"));
    return api;
  }();
  return found.get_allocator != nullptr && found.set_allocator != nullptr &&
                 found.holds_gil != nullptr
             ? &found
             : nullptr;
}

Allocator g_prior[3];  // the wrapped allocators, by domain
thread_local bool t_deleter_thread = false;
std::atomic<int> g_calls_without_gil{0};
std::atomic<const char*> g_first_call{nullptr};

// Whether this allocator call breaks the rule: on the deleter's thread, without the GIL.
bool without_gil(const char* call) {
  if (!t_deleter_thread || interpreter_api()->holds_gil() != 0) return false;
  g_calls_without_gil.fetch_add(1);
  const char* none = nullptr;
  g_first_call.compare_exchange_strong(none, call);
  return true;
}

template <int kDomain>
constexpr const char* call_name(int op) {
  constexpr const char* kMem[] = {"PyMem_Malloc", "PyMem_Calloc", "PyMem_Realloc", "PyMem_Free"};
  constexpr const char* kObject[] = {"PyObject_Malloc", "PyObject_Calloc", "PyObject_Realloc",
                                     "PyObject_Free"};
  return kDomain == kMemDomain ? kMem[op] : kObject[op];
}

template <int kDomain>
void* wrapped_malloc(void*, size_t size) {
  without_gil(call_name<kDomain>(0));
  return g_prior[kDomain].malloc(g_prior[kDomain].ctx, size);
}
template <int kDomain>
void* wrapped_calloc(void*, size_t count, size_t size) {
  without_gil(call_name<kDomain>(1));
  return g_prior[kDomain].calloc(g_prior[kDomain].ctx, count, size);
}
template <int kDomain>
void* wrapped_realloc(void*, void* block, size_t size) {
  without_gil(call_name<kDomain>(2));
  return g_prior[kDomain].realloc(g_prior[kDomain].ctx, block, size);
}
template <int kDomain>
void wrapped_free(void*, void* block) {
  if (without_gil(call_name<kDomain>(3))) return;  // left allocated (see the top of the file)
  g_prior[kDomain].free(g_prior[kDomain].ctx, block);
}

template <int kDomain>
void wrap(const InterpreterApi& api) {
  api.get_allocator(kDomain, &g_prior[kDomain]);
  Allocator wrapped{nullptr, &wrapped_malloc<kDomain>, &wrapped_calloc<kDomain>,
                    &wrapped_realloc<kDomain>, &wrapped_free<kDomain>};
  api.set_allocator(kDomain, &wrapped);
}

// The tensor a used capsule held, as take_for_thread handed it out.
struct Taken {
  void* pointer;
  bool versioned;
};

DLC_AS_FOREIGN_CODE void call_deleter(const Taken& taken) {
  if (taken.versioned) {
    auto* managed = static_cast<dlc::abi::ManagedTensorVersioned*>(taken.pointer);
    managed->deleter(managed);
  } else {
    auto* managed = static_cast<dlc::abi::ManagedTensor*>(taken.pointer);
    managed->deleter(managed);
  }
}

struct DeleterRun {
  std::mutex mutex;
  std::condition_variable finished_cv;
  bool finished = false;
};

}  // namespace

// take_for_thread(capsule): (handle, versioned) of the struct an unused DLPack capsule holds, the
// capsule renamed used_* as a consumer's take renames it, so that its destructor leaves the
// struct to delete_off_thread; or (None, why) for a capsule no consumer would take this way (a
// struct of another major, a NULL deleter).
PyObject* take_for_thread(PyObject*, PyObject* args) {
  PyObject* capsule = capsule_argument(args);
  if (capsule == nullptr) return nullptr;
  const char* name = PyCapsule_GetName(capsule);
  const dlc::abi::StructKind kind = dlc::abi::struct_kind_of_name(name);
  if (kind != dlc::abi::StructKind::versioned && kind != dlc::abi::StructKind::legacy) {
    return Py_BuildValue("(Os)", Py_None, "not a dltensor or dltensor_versioned capsule");
  }
  void* pointer = PyCapsule_GetPointer(capsule, name);
  if (pointer == nullptr) return nullptr;
  const bool versioned = kind == dlc::abi::StructKind::versioned;
  if (versioned && static_cast<dlc::abi::FrozenHead*>(pointer)->version.major != 1) {
    return Py_BuildValue("(Os)", Py_None, "a struct of another major than 1");
  }
  const bool has_deleter =
      versioned ? static_cast<dlc::abi::ManagedTensorVersioned*>(pointer)->deleter != nullptr
                : static_cast<dlc::abi::ManagedTensor*>(pointer)->deleter != nullptr;
  if (!has_deleter) return Py_BuildValue("(Os)", Py_None, "a NULL deleter");
  static const char kUsedLegacy[] = "used_dltensor";
  static const char kUsedVersioned[] = "used_dltensor_versioned";
  if (PyCapsule_SetName(capsule, versioned ? kUsedVersioned : kUsedLegacy) != 0) return nullptr;
  const auto handle = static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(pointer));
  return Py_BuildValue("(KO)", handle, versioned ? Py_True : Py_False);
}

// delete_off_thread(handle, versioned): calls the deleter of take_for_thread's struct on a new
// thread that holds no GIL, Python's allocator domains wrapped meanwhile, and waits up to 5 s.
// (finished, calls, first): whether the deleter returned, how many PyMem_*/PyObject_* calls it
// made without the GIL, and the first one's name ("" when none).
PyObject* delete_off_thread(PyObject*, PyObject* args) {
  unsigned long long handle = 0;
  int versioned = 0;
  if (!PyArg_ParseTuple(args, "Kp", &handle, &versioned)) return nullptr;
  const InterpreterApi* api = interpreter_api();
  if (api == nullptr) {
    PyErr_SetString(PyExc_RuntimeError,
                     "expected PyMem_GetAllocator, PyMem_SetAllocator and PyGILState_Check in the "
                     "running interpreter but found them missing");
    return nullptr;
  }
  const Taken taken{reinterpret_cast<void*>(static_cast<uintptr_t>(handle)), versioned != 0};
  g_calls_without_gil = 0;
  g_first_call = nullptr;
  wrap<kMemDomain>(*api);  // the GIL is held: no Python code allocates meanwhile
  wrap<kObjectDomain>(*api);
  auto run = std::make_shared<DeleterRun>();
  bool finished = false;
  Py_BEGIN_ALLOW_THREADS
  std::thread([run, taken] {
    t_deleter_thread = true;
    call_deleter(taken);
    t_deleter_thread = false;
    {
      std::lock_guard<std::mutex> lock(run->mutex);
      run->finished = true;
    }
    run->finished_cv.notify_all();
  }).detach();  // a deleter that never returns keeps its thread; the case says so
  {
    std::unique_lock<std::mutex> lock(run->mutex);
    finished = run->finished_cv.wait_for(lock, std::chrono::seconds(5),
                                         [&run] { return run->finished; });
  }
  Py_END_ALLOW_THREADS
  api->set_allocator(kObjectDomain, &g_prior[kObjectDomain]);
  api->set_allocator(kMemDomain, &g_prior[kMemDomain]);
  const char* first = g_first_call.load();
  return Py_BuildValue("(Ois)", finished ? Py_True : Py_False, g_calls_without_gil.load(),
                       first != nullptr ? first : "");
}

}  // namespace dlc::bridge
