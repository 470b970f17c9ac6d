// Property: none of its own. The baseline that tools/fuzz-bench measures the import targets
// against: the harness a first attempt would write. It casts the input bytes to a
// DLManagedTensorVersioned, points shape, strides and data into one heap copy of the bytes that
// follow, gives it a malloc'd manager_ctx and a deleter that frees both, and relies on ASan and
// LeakSanitizer alone: no guard pages, no deleter ledger, no bounds on ndim, no digest check.
// It finds what ASan sees (double free, use after free, heap overflows of its one buffer, leaks),
// misses what needs the ledger, and also crashes conformant consumers (shape and strides shorter
// than ndim), which is why its findings need a person to read them.
#include <cstdlib>
#include <cstring>

#include <dlpack/dlpack.h>

#include "fuzz_harness.hpp"

namespace {

dlc::LoadedPlugin g_consumer;

void naive_deleter(DLManagedTensorVersioned* self) {
  std::free(self->manager_ctx);
  std::free(self);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_consumer = dlc_fuzz::load_consumer_under_test("strict-consumer-v1_3");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < sizeof(DLManagedTensorVersioned)) return 0;
  auto* m = static_cast<DLManagedTensorVersioned*>(std::malloc(sizeof(DLManagedTensorVersioned)));
  std::memcpy(m, data, sizeof *m);
  const size_t rest = size - sizeof *m;
  auto* tail = static_cast<uint8_t*>(std::malloc(rest == 0 ? 1 : rest));
  std::memcpy(tail, data + sizeof *m, rest);
  m->manager_ctx = tail;  // freed by the deleter with the struct
  m->deleter = naive_deleter;
  m->dl_tensor.shape = reinterpret_cast<int64_t*>(tail);
  if (m->dl_tensor.strides != nullptr) m->dl_tensor.strides = reinterpret_cast<int64_t*>(tail);
  m->dl_tensor.data = tail;
  DLCHandoff handoff{"dltensor_versioned", m};
  DLCRequest request{};
  request.has_max_version = g_consumer.table->has_max_version;
  request.max_version = g_consumer.table->max_version;
  request.copy = -1;
  DLCObservation obs{};
  char error[256] = {};
  g_consumer.table->consume(g_consumer.state, &handoff, &request, &obs, error, sizeof error);
  if (g_consumer.table->release != nullptr) g_consumer.table->release(g_consumer.state);
  return 0;
}
