// _dlconform_planted_xapi: planted DLPack C exchange-API tables (dlpack.h v1.2+, the type
// attribute __dlpack_c_exchange_api__), one Python type per table. Each table but the controls
// breaks exactly one obligation of the header, so that check_exchange_api (bridge_xapi.cpp) is
// shown to fail it with its rule (planted_xapi_test.py); docs/plugins.md lists each table with
// the sentence it breaks (work_stream_not_current only as a CUDA stand-in's table, in its device
// row: planted_xapi_adapter.py). The controls must pass: `correct`, a major-2 table whose prev_api
// leads to a major-1 one, and a table without the optional dltensor_from_py_object.
//
// An instance is a 2-D float32 CPU array: T() holds arange(6) as 2x3, and obj[r, c] with two
// slices is a view of it (obj[:, 1:] is the non-compact one the checker asks for); tolist() gives
// its values; read_only(obj) is a read-only view of it, exported with READ_ONLY (but by
// from_py_object_drops_read_only). Storage comes from a pool of blocks, not from malloc: a
// released block is scribbled with 0xff bytes (NaN), as a freed and reused allocation would be,
// so that reading it is a wrong value the checker records rather than a use-after-free that
// would end an ASan build first. The throws_in_* tables let a C++ exception out of a C function
// on purpose (this file is compiled with exceptions, as every C++ file of the build is).
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlpack/dlpack.h>
#include <structmember.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace {

// X(name): every planted table, in the order the module lists them.
#define PLANTED_TABLES(X)                                                                      \
  X(correct)                                                                                   \
  X(major2_prev_to_major1)                                                                     \
  X(no_dltensor_from_py_object)                                                                \
  X(attribute_on_instance)                                                                     \
  X(wrong_capsule_name)                                                                        \
  X(major2_no_prev)                                                                            \
  X(prev_api_cycle)                                                                            \
  X(null_allocator)                                                                            \
  X(null_from_py_object)                                                                       \
  X(null_to_py_object)                                                                         \
  X(null_current_work_stream)                                                                  \
  X(allocator_fails_silently)                                                                  \
  X(allocator_seterror_and_succeeds)                                                           \
  X(allocator_reads_strides)                                                                   \
  X(allocator_reads_data)                                                                      \
  X(allocator_reads_byte_offset)                                                               \
  X(from_py_object_error_unset)                                                                \
  X(from_py_object_frees_data)                                                                 \
  X(from_py_object_null_deleter)                                                               \
  X(from_py_object_borrows)                                                                    \
  X(from_py_object_deleter_leaks)                                                              \
  X(from_py_object_drops_offset)                                                               \
  X(dltensor_compact_strides)                                                                  \
  X(dltensor_drops_offset)                                                                     \
  X(dltensor_error_unset)                                                                      \
  X(to_py_object_error_unset)                                                                  \
  X(to_py_object_deletes_at_once)                                                              \
  X(to_py_object_never_deletes)                                                                \
  X(current_work_stream_error_unset)                                                           \
  X(throws_in_allocator)                                                                       \
  X(throws_in_from_py_object)                                                                  \
  X(throws_in_dltensor_from_py_object)                                                         \
  X(throws_in_current_work_stream)                                                             \
  X(work_stream_not_current)                                                                   \
  X(unexpressible_value_error)                                                                 \
  X(allocator_null_deleter)                                                                    \
  X(dltensor_shape_released)                                                                  \
  X(from_py_object_drops_read_only)

#define PLANTED_ENUM(name) name,
enum class Table { PLANTED_TABLES(PLANTED_ENUM) count };
#define PLANTED_NAME(name) #name,
const char* const kNames[] = {PLANTED_TABLES(PLANTED_NAME)};
#define PLANTED_TYPE_NAME(name) "_dlconform_planted_xapi." #name,
const char* const kTypeNames[] = {PLANTED_TABLES(PLANTED_TYPE_NAME)};
constexpr size_t kCount = static_cast<size_t>(Table::count);
static_assert(sizeof(kNames) / sizeof(kNames[0]) == kCount);

constexpr const char* kAttribute = "__dlpack_c_exchange_api__";
constexpr const char* kCapsuleName = "dlpack_exchange_api";

// The storage pool. A block is handed out round-robin, so that a released block is not the
// next one taken; the lock makes the allocator safe to call without the GIL.
// What work_stream_not_current answers for kDLCUDA: no stream a CUDA stand-in works on.
constexpr uintptr_t kNotCurrentStream = 0x5a5a00;
constexpr int kBlocks = 256;
constexpr int64_t kBlockFloats = 16;
struct Block {
  int refs = 0;
  float v[kBlockFloats];
};
Block g_pool[kBlocks];
int g_next_block = 0;
std::mutex g_pool_lock;

int acquire_block() noexcept {
  std::lock_guard<std::mutex> lock(g_pool_lock);
  for (int i = 0; i < kBlocks; ++i) {
    const int b = (g_next_block + i) % kBlocks;
    if (g_pool[b].refs == 0) {
      g_pool[b].refs = 1;
      std::memset(g_pool[b].v, 0, sizeof g_pool[b].v);
      g_next_block = (b + 1) % kBlocks;
      return b;
    }
  }
  return -1;
}
void release_block(int b) noexcept {
  std::lock_guard<std::mutex> lock(g_pool_lock);
  if (--g_pool[b].refs == 0) std::memset(g_pool[b].v, 0xff, sizeof g_pool[b].v);
}

// A planted array: a 2-D float32 view of a pool block, of another array, or of a tensor that
// to_py_object took.
struct Planted {
  PyObject_HEAD
  float* data;      // DLTensor::data
  int64_t offset;   // elements from data to [0, 0] (byte_offset / 4)
  int64_t shape[2];
  int64_t strides[2];  // in elements
  int64_t compact[2];  // compact strides for the shape (dltensor_compact_strides hands these)
  int block;           // the pool block this array keeps, or -1
  PyObject* base;      // the array this one is a view of, or nullptr
  DLManagedTensorVersioned* held;  // the tensor to_py_object took, deleted when this dies
  PyObject* weakrefs;
  bool unexpressible;  // stands for data DLPack cannot describe (a ragged layout, say)
  bool read_only;      // immutable data: from_py_object's tensor says READ_ONLY
  bool on_cuda;        // a CUDA stand-in: its tensors say kDLCUDA (the data stays on the host)
};

PyTypeObject* g_types[kCount];
DLPackExchangeAPI g_tables[kCount];
// What a major-2 table might look like: the header that never moves, then slots a 1.x consumer
// cannot know. Left NULL, so that a checker that uses them instead of walking prev_api fails.
struct FutureTable {
  DLPackExchangeAPIHeader header;
  void* slots[8];
};
FutureTable g_future{};
PyObject* g_instance_capsule = nullptr;  // attribute_on_instance's, handed out by instances

// Every call of a table's from_py_object slots, in order: which table was called, which slot,
// with an object of which type. A consumer's use of the tables is judged from it
// (dlconform_xapi_consumers.py): the table it took, and the objects it handed that table.
struct Call {
  size_t table;
  const char* slot;
  PyObject* type;  // a strong reference
};
// A case takes the record before it asks and after (a consumer case makes two calls at most);
// the calls of other checks in between are kept up to the room there is, the rest dropped.
Call g_calls[64];
size_t g_call_count = 0;

// Every current_work_stream query, in order: which table, for which device. The slot may be
// called without the GIL, so the record takes no Python reference and has a lock of its own.
struct Query {
  size_t table;
  int device_type;
  int device_id;
};
Query g_queries[64];
size_t g_query_count = 0;
std::mutex g_query_lock;

void record_query(size_t table, int device_type, int device_id) noexcept {
  std::lock_guard<std::mutex> lock(g_query_lock);
  if (g_query_count < sizeof g_queries / sizeof g_queries[0]) {
    g_queries[g_query_count++] = {table, device_type, device_id};
  }
}

void record_call(size_t table, const char* slot, void* py_object) noexcept {
  if (g_call_count == sizeof g_calls / sizeof g_calls[0]) return;
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(static_cast<PyObject*>(py_object)));
  Py_INCREF(type);
  g_calls[g_call_count++] = {table, slot, type};
}

float element(const Planted* p, int64_t i, int64_t j) noexcept {
  return p->data[p->offset + i * p->strides[0] + j * p->strides[1]];
}

Planted* alloc_planted(PyTypeObject* type) noexcept {
  auto alloc = reinterpret_cast<allocfunc>(PyType_GetSlot(type, Py_tp_alloc));
  auto* p = reinterpret_cast<Planted*>(alloc(type, 0));
  if (p == nullptr) return nullptr;
  p->data = nullptr;
  p->offset = 0;
  p->block = -1;
  p->base = nullptr;
  p->held = nullptr;
  p->weakrefs = nullptr;
  p->unexpressible = false;
  p->read_only = false;
  p->on_cuda = false;
  return p;
}
void set_shape(Planted* p, int64_t rows, int64_t cols) noexcept {
  p->shape[0] = rows;
  p->shape[1] = cols;
  p->compact[0] = cols;
  p->compact[1] = 1;
}

PyObject* planted_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  if (PyTuple_Size(args) != 0 || (kwargs != nullptr && PyDict_Size(kwargs) != 0)) {
    PyErr_SetString(PyExc_TypeError, "expected no arguments (a planted array is arange(6) as "
                                     "2x3) but found some");
    return nullptr;
  }
  const int block = acquire_block();
  if (block < 0) return PyErr_NoMemory();
  Planted* p = alloc_planted(type);
  if (p == nullptr) {
    release_block(block);
    return nullptr;
  }
  for (int k = 0; k < 6; ++k) g_pool[block].v[k] = static_cast<float>(k);
  p->data = g_pool[block].v;
  p->block = block;
  set_shape(p, 2, 3);
  p->strides[0] = 3;
  p->strides[1] = 1;
  return reinterpret_cast<PyObject*>(p);
}

void planted_dealloc(PyObject* self) {
  auto* p = reinterpret_cast<Planted*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (p->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  if (p->block >= 0) release_block(p->block);
  Py_XDECREF(p->base);
  if (p->held != nullptr && p->held->deleter != nullptr) p->held->deleter(p->held);
  auto free_fn = reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  free_fn(self);
  Py_DECREF(type);
}

// obj[rows, cols], two slices: a view that keeps obj alive.
PyObject* planted_subscript(PyObject* self, PyObject* key) {
  auto* p = reinterpret_cast<Planted*>(self);
  if (!PyTuple_Check(key) || PyTuple_Size(key) != 2) {
    PyErr_SetString(PyExc_TypeError, "expected obj[rows, cols] with two slices but found "
                                     "another key");
    return nullptr;
  }
  Py_ssize_t start[2], step[2], length[2];
  for (int d = 0; d < 2; ++d) {
    PyObject* item = PyTuple_GetItem(key, d);
    Py_ssize_t stop = 0;
    if (!PySlice_Check(item)) {
      PyErr_SetString(PyExc_TypeError, "expected a slice in each of the two places but found "
                                       "another index");
      return nullptr;
    }
    if (PySlice_Unpack(item, &start[d], &stop, &step[d]) < 0) return nullptr;
    length[d] = PySlice_AdjustIndices(static_cast<Py_ssize_t>(p->shape[d]), &start[d], &stop,
                                      step[d]);
  }
  Planted* view = alloc_planted(Py_TYPE(self));
  if (view == nullptr) return nullptr;
  view->data = p->data;
  view->offset = p->offset + start[0] * p->strides[0] + start[1] * p->strides[1];
  set_shape(view, length[0], length[1]);
  view->strides[0] = p->strides[0] * step[0];
  view->strides[1] = p->strides[1] * step[1];
  view->read_only = p->read_only;
  view->on_cuda = p->on_cuda;
  Py_INCREF(self);
  view->base = self;
  return reinterpret_cast<PyObject*>(view);
}

PyObject* planted_tolist(PyObject* self, PyObject*) {
  auto* p = reinterpret_cast<Planted*>(self);
  PyObject* rows = PyList_New(p->shape[0]);
  for (int64_t i = 0; rows != nullptr && i < p->shape[0]; ++i) {
    PyObject* row = PyList_New(p->shape[1]);
    if (row == nullptr) {
      Py_CLEAR(rows);
      break;
    }
    for (int64_t j = 0; j < p->shape[1]; ++j) {
      PyList_SetItem(row, j, PyFloat_FromDouble(element(p, i, j)));
    }
    PyList_SetItem(rows, i, row);
  }
  return rows;
}

// attribute_on_instance publishes its table through its instances only, against "Note that
// this must be defined on the type".
PyObject* planted_getattro(PyObject* self, PyObject* name) {
  if (Py_TYPE(self) == g_types[static_cast<size_t>(Table::attribute_on_instance)] &&
      PyUnicode_CompareWithASCIIString(name, kAttribute) == 0) {
    Py_INCREF(g_instance_capsule);
    return g_instance_capsule;
  }
  return PyObject_GenericGetAttr(self, name);
}

// A tensor handed out: its shape and strides live here, with what keeps its data alive.
struct Export {
  DLManagedTensorVersioned tensor;
  int64_t shape[2];
  int64_t strides[2];
  int block;        // a pool block it keeps, or -1
  PyObject* owner;  // the array it keeps, or nullptr
};

void export_deleter(DLManagedTensorVersioned* self) {
  auto* e = static_cast<Export*>(self->manager_ctx);
  if (e->block >= 0) release_block(e->block);
  if (e->owner != nullptr) {
    const PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(e->owner);
    PyGILState_Release(gil);
  }
  std::free(e);
}
// Frees the struct and nothing it keeps (from_py_object_borrows, _deleter_leaks, _frees_data).
void struct_only_deleter(DLManagedTensorVersioned* self) { std::free(self->manager_ctx); }

Export* new_export(int64_t rows, int64_t cols) noexcept {
  auto* e = static_cast<Export*>(std::calloc(1, sizeof(Export)));
  if (e == nullptr) return nullptr;
  e->tensor.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  e->tensor.manager_ctx = e;
  e->tensor.deleter = export_deleter;
  DLTensor& t = e->tensor.dl_tensor;
  t.device = {kDLCPU, 0};
  t.ndim = 2;
  t.dtype = {kDLFloat, 32, 1};
  e->shape[0] = rows;
  e->shape[1] = cols;
  e->strides[0] = cols;
  e->strides[1] = 1;
  t.shape = e->shape;
  t.strides = e->strides;
  e->block = -1;
  return e;
}

template <Table T>
Planted* as_planted(void* py_object) noexcept {
  auto* o = static_cast<PyObject*>(py_object);
  if (!PyObject_TypeCheck(o, g_types[static_cast<size_t>(T)])) {
    PyErr_Format(PyExc_TypeError, "expected a %s but found another type",
                 kTypeNames[static_cast<size_t>(T)]);
    return nullptr;
  }
  return reinterpret_cast<Planted*>(o);
}

using SetErrorFn = void (*)(void* error_ctx, const char* kind, const char* message);

template <Table T>
int allocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
              SetErrorFn set_error) {
  if constexpr (T == Table::throws_in_allocator) {
    throw std::runtime_error("planted: the allocator throws");
  }
  *out = nullptr;
  const bool plain = prototype->ndim == 2 && prototype->dtype.code == kDLFloat &&
                     prototype->dtype.bits == 32 && prototype->dtype.lanes == 1 &&
                     prototype->device.device_type == kDLCPU && prototype->shape[0] >= 0 &&
                     prototype->shape[1] >= 0 &&
                     prototype->shape[0] * prototype->shape[1] <= kBlockFloats;
  if (!plain) {
    if constexpr (T != Table::allocator_fails_silently) {
      set_error(error_ctx, "ValueError",
                "planted allocator: expected a 2-D float32 CPU prototype of at most 16 "
                "elements but found another");
    }
    return -1;
  }
  const int block = acquire_block();
  Export* e = block >= 0 ? new_export(prototype->shape[0], prototype->shape[1]) : nullptr;
  if (e == nullptr) {
    if (block >= 0) release_block(block);
    set_error(error_ctx, "MemoryError", "planted allocator: expected a free block but found none");
    return -1;
  }
  e->block = block;
  e->tensor.dl_tensor.data = g_pool[block].v;
  if constexpr (T == Table::allocator_reads_strides) {  // honours the prototype's layout
    if (prototype->strides != nullptr) {
      e->strides[0] = prototype->strides[0];
      e->strides[1] = prototype->strides[1];
    }
  }
  if constexpr (T == Table::allocator_reads_data) {  // "like the prototype": its contents too
    if (prototype->data != nullptr) {
      std::memcpy(g_pool[block].v, prototype->data,
                  static_cast<size_t>(prototype->shape[0] * prototype->shape[1]) * 4);
    }
  }
  if constexpr (T == Table::allocator_reads_byte_offset) {
    e->tensor.dl_tensor.byte_offset = prototype->byte_offset;
  }
  if constexpr (T == Table::allocator_null_deleter) {
    e->tensor.deleter = nullptr;  // not an owning tensor: nothing can free it (its block leaks)
  }
  if constexpr (T == Table::allocator_seterror_and_succeeds) {
    set_error(error_ctx, "UserWarning", "planted allocator: reports an error and succeeds");
  }
  *out = &e->tensor;
  return 0;
}

template <Table T>
int from_py_object(void* py_object, DLManagedTensorVersioned** out) {
  if constexpr (T == Table::throws_in_from_py_object) {
    throw std::runtime_error("planted: from_py_object throws");
  }
  record_call(static_cast<size_t>(T), "managed_tensor_from_py_object_no_sync", py_object);
  if constexpr (T == Table::from_py_object_error_unset) return -1;
  Planted* p = as_planted<T>(py_object);
  if (p == nullptr) return -1;
  if (p->unexpressible) {  // "should be a BufferError if possible"; the planted one says ValueError
    PyErr_SetString(T == Table::unexpressible_value_error ? PyExc_ValueError : PyExc_BufferError,
                    "planted from_py_object: expected data DLPack can describe but found a "
                    "planted unexpressible array");
    return -1;
  }
  Export* e = new_export(p->shape[0], p->shape[1]);
  if (e == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  DLTensor& t = e->tensor.dl_tensor;
  t.data = p->data;
  t.byte_offset = static_cast<uint64_t>(p->offset) * sizeof(float);
  e->strides[0] = p->strides[0];
  e->strides[1] = p->strides[1];
  if constexpr (T == Table::from_py_object_drops_offset) t.byte_offset = 0;
  if (p->on_cuda) t.device = {kDLCUDA, 0};
  if (p->read_only && T != Table::from_py_object_drops_read_only) {
    e->tensor.flags |= DLPACK_FLAG_BITMASK_READ_ONLY;
  }
  if constexpr (T == Table::from_py_object_frees_data) {
    // Exports a compact copy, and releases the copy before returning.
    const int block = acquire_block();
    if (block < 0) {
      std::free(e);
      PyErr_NoMemory();
      return -1;
    }
    for (int64_t i = 0; i < p->shape[0]; ++i) {
      for (int64_t j = 0; j < p->shape[1]; ++j) {
        g_pool[block].v[i * p->shape[1] + j] = element(p, i, j);
      }
    }
    t.data = g_pool[block].v;
    t.byte_offset = 0;
    e->strides[0] = p->shape[1];
    e->strides[1] = 1;
    release_block(block);
    e->tensor.deleter = struct_only_deleter;
  } else if constexpr (T == Table::from_py_object_null_deleter) {
    e->tensor.deleter = nullptr;  // nothing can ever free it, nor does it keep the array
  } else if constexpr (T == Table::from_py_object_borrows) {
    e->tensor.deleter = struct_only_deleter;  // keeps nothing alive
  } else if constexpr (T == Table::from_py_object_deleter_leaks) {
    Py_INCREF(p);
    e->owner = reinterpret_cast<PyObject*>(p);
    e->tensor.deleter = struct_only_deleter;  // never lets the array go
  } else {
    Py_INCREF(p);
    e->owner = reinterpret_cast<PyObject*>(p);
  }
  *out = &e->tensor;
  return 0;
}

template <Table T>
int to_py_object(DLManagedTensorVersioned* tensor, void** out_py_object) {
  if constexpr (T == Table::to_py_object_error_unset) return -1;
  const DLTensor& t = tensor->dl_tensor;
  if (t.ndim != 2 || t.dtype.code != kDLFloat || t.dtype.bits != 32 || t.dtype.lanes != 1 ||
      t.device.device_type != kDLCPU || t.data == nullptr || t.byte_offset % sizeof(float) != 0) {
    // The stolen tensor is left to the caller: dlpack.h does not say (rules.md "Known gaps").
    PyErr_SetString(PyExc_TypeError, "planted to_py_object: expected a 2-D float32 CPU tensor "
                                     "but found another");
    return -1;
  }
  Planted* p = alloc_planted(g_types[static_cast<size_t>(T)]);
  if (p == nullptr) return -1;
  p->data = static_cast<float*>(t.data);
  p->offset = static_cast<int64_t>(t.byte_offset / sizeof(float));
  set_shape(p, t.shape[0], t.shape[1]);
  p->strides[0] = t.strides != nullptr ? t.strides[0] : t.shape[1];
  p->strides[1] = t.strides != nullptr ? t.strides[1] : 1;
  p->held = tensor;
  if constexpr (T == Table::to_py_object_deletes_at_once) {
    p->held = nullptr;  // views the data it has just let go
    if (tensor->deleter != nullptr) tensor->deleter(tensor);
  }
  if constexpr (T == Table::to_py_object_never_deletes) p->held = nullptr;
  *out_py_object = p;
  return 0;
}

template <Table T>
int dltensor_from_py_object(void* py_object, DLTensor* out) {
  if constexpr (T == Table::throws_in_dltensor_from_py_object) {
    throw std::runtime_error("planted: dltensor_from_py_object throws");
  }
  record_call(static_cast<size_t>(T), "dltensor_from_py_object_no_sync", py_object);
  if constexpr (T == Table::dltensor_error_unset) return -1;
  Planted* p = as_planted<T>(py_object);
  if (p == nullptr) return -1;
  if (p->unexpressible) {
    PyErr_SetString(PyExc_BufferError, "planted dltensor_from_py_object: expected data DLPack can "
                                       "describe but found a planted unexpressible array");
    return -1;
  }
  out->data = p->data;
  out->device = {p->on_cuda ? kDLCUDA : kDLCPU, 0};
  out->ndim = 2;
  out->dtype = {kDLFloat, 32, 1};
  out->shape = p->shape;
  out->strides = T == Table::dltensor_compact_strides ? p->compact : p->strides;
  // dltensor_drops_offset: a slice's tensor points at its base's first element, not its own.
  out->byte_offset = T == Table::dltensor_drops_offset
                         ? 0
                         : static_cast<uint64_t>(p->offset) * sizeof(float);
  if constexpr (T == Table::dltensor_shape_released) {
    // Its shape and strides in a scratch it lets go of before control returns: the scribble
    // stands for the memory's next use (the producer must keep them until then, OB-077).
    static int64_t scratch[4];
    std::memcpy(scratch, p->shape, sizeof p->shape);
    std::memcpy(scratch + 2, out->strides, 2 * sizeof(int64_t));
    out->shape = scratch;
    out->strides = scratch + 2;
    std::memset(scratch, 0xff, sizeof scratch);
  }
  return 0;
}

template <Table T>
int current_work_stream(DLDeviceType device_type, int32_t device_id, void** out_current_stream) {
  if constexpr (T == Table::throws_in_current_work_stream) {
    throw std::runtime_error("planted: current_work_stream throws");
  }
  record_query(static_cast<size_t>(T), static_cast<int>(device_type), device_id);
  if constexpr (T == Table::current_work_stream_error_unset) return -1;
  if (device_type == kDLCUDA) {  // the CUDA stand-ins' (planted_xapi_adapter.py): their current
    // stream is the legacy default (NULL); work_stream_not_current answers a handle that is no
    // stream of theirs (XAPI-5: "it should map to torch.cuda.current_stream")
    *out_current_stream = T == Table::work_stream_not_current
                              ? reinterpret_cast<void*>(uintptr_t{kNotCurrentStream})
                              : nullptr;
    return 0;
  }
  if (device_type != kDLCPU) {
    PyErr_SetString(PyExc_ValueError, "planted current_work_stream: expected kDLCPU (the only "
                                      "device of a planted array) but found another device");
    return -1;
  }
  *out_current_stream = nullptr;
  return 0;
}

template <Table T>
DLPackExchangeAPI make_table() {
  DLPackExchangeAPI api{};
  api.header.version = {T == Table::major2_no_prev ? 2u : 1u, T == Table::major2_no_prev ? 0u : 3u};
  api.header.prev_api = nullptr;
  api.managed_tensor_allocator = T == Table::null_allocator ? nullptr : &allocator<T>;
  api.managed_tensor_from_py_object_no_sync =
      T == Table::null_from_py_object ? nullptr : &from_py_object<T>;
  api.managed_tensor_to_py_object_no_sync =
      T == Table::null_to_py_object ? nullptr : &to_py_object<T>;
  api.dltensor_from_py_object_no_sync =
      T == Table::no_dltensor_from_py_object ? nullptr : &dltensor_from_py_object<T>;
  api.current_work_stream =
      T == Table::null_current_work_stream ? nullptr : &current_work_stream<T>;
  return api;
}
template <size_t... I>
void make_tables(std::index_sequence<I...>) {
  ((g_tables[I] = make_table<static_cast<Table>(I)>()), ...);
}

PyMethodDef planted_methods[] = {
    {"tolist", planted_tolist, METH_NOARGS, "The values, as a list of rows."},
    {nullptr, nullptr, 0, nullptr}};
PyMemberDef planted_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(Planted, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyObject* make_type(size_t index) {
  PyType_Slot slots[] = {
      {Py_tp_doc, const_cast<char*>("A planted 2-D float32 array whose type publishes one "
                                    "planted C exchange-API table.")},
      {Py_tp_new, reinterpret_cast<void*>(planted_new)},
      {Py_tp_dealloc, reinterpret_cast<void*>(planted_dealloc)},
      {Py_tp_getattro, reinterpret_cast<void*>(planted_getattro)},
      {Py_mp_subscript, reinterpret_cast<void*>(planted_subscript)},
      {Py_tp_methods, planted_methods},
      {Py_tp_members, planted_members},
      {0, nullptr}};
  // A base type: a Python subclass's instances have a __dict__, where a consumer's case puts
  // another table than the type's (dlconform_xapi_consumers.py, table-on-type).
  PyType_Spec spec = {kTypeNames[index], static_cast<int>(sizeof(Planted)), 0,
                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  return PyType_FromSpec(&spec);
}

// The capsule each type publishes; nullptr with an exception set on failure.
PyObject* table_capsule(Table table) {
  const size_t i = static_cast<size_t>(table);
  if (table == Table::major2_prev_to_major1) {
    return PyCapsule_New(&g_future, kCapsuleName, nullptr);
  }
  return PyCapsule_New(&g_tables[i],
                       table == Table::wrong_capsule_name ? "DLPackExchangeAPI" : kCapsuleName,
                       nullptr);
}

PyObject* names(PyObject*, PyObject*) {
  PyObject* out = PyTuple_New(static_cast<Py_ssize_t>(kCount));
  for (size_t i = 0; out != nullptr && i < kCount; ++i) {
    PyTuple_SetItem(out, static_cast<Py_ssize_t>(i), PyUnicode_FromString(kNames[i]));
  }
  return out;
}

// unexpressible(type): a planted array of that type standing for data DLPack cannot describe.
PyObject* unexpressible(PyObject*, PyObject* type) {
  bool planted_type = false;
  for (size_t i = 0; i < kCount; ++i) planted_type |= type == reinterpret_cast<PyObject*>(g_types[i]);
  if (!planted_type) {
    PyErr_SetString(PyExc_TypeError, "expected a planted table's type but found another object");
    return nullptr;
  }
  PyObject* none = PyTuple_New(0);
  PyObject* obj = none != nullptr ? planted_new(reinterpret_cast<PyTypeObject*>(type), none, nullptr)
                                  : nullptr;
  Py_XDECREF(none);
  if (obj != nullptr) reinterpret_cast<Planted*>(obj)->unexpressible = true;
  return obj;
}

// A view of the whole of a planted array, of its type; NULL with TypeError for another object.
Planted* whole_view(PyObject* array) {
  bool planted_type = false;
  for (size_t i = 0; i < kCount; ++i) planted_type |= Py_TYPE(array) == g_types[i];
  if (!planted_type) {
    PyErr_SetString(PyExc_TypeError, "expected a planted array but found another object");
    return nullptr;
  }
  PyObject* all = PySlice_New(nullptr, nullptr, nullptr);
  PyObject* key = all != nullptr ? PyTuple_Pack(2, all, all) : nullptr;
  PyObject* view = key != nullptr ? planted_subscript(array, key) : nullptr;
  Py_XDECREF(key);
  Py_XDECREF(all);
  return reinterpret_cast<Planted*>(view);
}

// read_only(array): a read-only view of a planted array, of its type (what torch's
// ReadOnlyTensorWrapper is to a tensor).
PyObject* read_only(PyObject*, PyObject* array) {
  Planted* view = whole_view(array);
  if (view != nullptr) view->read_only = true;
  return reinterpret_cast<PyObject*>(view);
}

// cuda_stand_in(array): a view of a planted array whose tensors say kDLCUDA device 0, for the
// consumer's current_work_stream query (its data stays host memory: nothing may launch on it).
PyObject* cuda_stand_in(PyObject*, PyObject* array) {
  Planted* view = whole_view(array);
  if (view != nullptr) view->on_cuda = true;
  return reinterpret_cast<PyObject*>(view);
}

// take_stream_queries(): the current_work_stream queries since the last take, as (table,
// device_type, device_id) tuples, in order; the record is emptied.
PyObject* take_stream_queries(PyObject*, PyObject*) {
  std::lock_guard<std::mutex> lock(g_query_lock);
  PyObject* out = PyList_New(static_cast<Py_ssize_t>(g_query_count));
  for (size_t i = 0; out != nullptr && i < g_query_count; ++i) {
    PyObject* row = Py_BuildValue("(sii)", kNames[g_queries[i].table], g_queries[i].device_type,
                                  g_queries[i].device_id);
    if (row == nullptr) Py_CLEAR(out);
    else PyList_SetItem(out, static_cast<Py_ssize_t>(i), row);
  }
  g_query_count = 0;
  return out;
}

// take_calls(): the calls recorded since the last take_calls, as (table, slot, type) tuples, in
// order; the record is emptied.
PyObject* take_calls(PyObject*, PyObject*) {
  PyObject* calls = PyList_New(static_cast<Py_ssize_t>(g_call_count));
  for (size_t i = 0; i < g_call_count; ++i) {
    if (calls != nullptr) {
      PyObject* row = Py_BuildValue("(ssO)", kNames[g_calls[i].table], g_calls[i].slot,
                                    g_calls[i].type);
      if (row == nullptr) Py_CLEAR(calls);
      else PyList_SetItem(calls, static_cast<Py_ssize_t>(i), row);
    }
    Py_DECREF(g_calls[i].type);
  }
  g_call_count = 0;
  return calls;
}

// table_capsule(name): a new capsule of that planted table, as its type publishes it.
PyObject* named_table_capsule(PyObject*, PyObject* name) {
  for (size_t i = 0; i < kCount; ++i) {
    if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, kNames[i]) == 0) {
      return table_capsule(static_cast<Table>(i));
    }
  }
  PyErr_SetString(PyExc_ValueError, "expected the name of a planted table but found another");
  return nullptr;
}

PyMethodDef module_methods[] = {
    {"take_calls", take_calls, METH_NOARGS,
     "take_calls(): [(table, slot, type)]: each table's from_py_object calls since the last "
     "take_calls, in order (at most 64 kept)."},
    {"table_capsule", named_table_capsule, METH_O,
     "table_capsule(name): a new capsule of the planted table `name`."},
    {"names", names, METH_NOARGS, "The planted tables' names: each is a type of this module."},
    {"unexpressible", unexpressible, METH_O,
     "unexpressible(type): a planted array of that type that DLPack cannot describe."},
    {"read_only", read_only, METH_O,
     "read_only(array): a read-only view of a planted array (READ_ONLY in its exports)."},
    {"cuda_stand_in", cuda_stand_in, METH_O,
     "cuda_stand_in(array): a view whose tensors say kDLCUDA device 0 (host data behind)."},
    {"take_stream_queries", take_stream_queries, METH_NOARGS,
     "take_stream_queries(): [(table, device_type, device_id)]: each table's current_work_stream "
     "queries since the last take, in order (at most 64 kept)."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                          "_dlconform_planted_xapi",
                          "Planted DLPack C exchange-API tables, one type per broken obligation.",
                          -1,
                          module_methods,
                          nullptr,
                          nullptr,
                          nullptr,
                          nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__dlconform_planted_xapi() {
  make_tables(std::make_index_sequence<kCount>{});
  auto& cycle = g_tables[static_cast<size_t>(Table::prev_api_cycle)].header;
  cycle.prev_api = &cycle;
  g_future.header.version = {2, 0};
  g_future.header.prev_api = &g_tables[static_cast<size_t>(Table::major2_prev_to_major1)].header;
  PyObject* module = PyModule_Create(&module_def);
  if (module == nullptr) return nullptr;
  for (size_t i = 0; i < kCount; ++i) {
    const auto table = static_cast<Table>(i);
    PyObject* type = make_type(i);
    PyObject* capsule = type != nullptr ? table_capsule(table) : nullptr;
    bool ok = capsule != nullptr;
    if (ok && table == Table::attribute_on_instance) {
      g_instance_capsule = capsule;
      Py_INCREF(capsule);
    } else if (ok) {
      ok = PyObject_SetAttrString(type, kAttribute, capsule) == 0;
    }
    Py_XDECREF(capsule);
    g_types[i] = reinterpret_cast<PyTypeObject*>(type);
    Py_XINCREF(type);  // g_types keeps one reference for the process
    if (!ok || PyModule_AddObject(module, kNames[i], type) < 0) {
      Py_XDECREF(type);
      Py_DECREF(module);
      return nullptr;
    }
  }
  return module;
}
