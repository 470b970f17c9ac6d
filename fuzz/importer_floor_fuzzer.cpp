// Property: none. The benchmark's second baseline (tools/fuzz-bench), not a fuzzer: the same
// input format, custom mutator and consumer under test as import_versioned_fuzzer, with nothing
// of the harness around the hand-off. Each input becomes a tensor in plain heap memory (no
// guards, no ledgers, no known-bug routing, no judgement), the consumer's consume() and release()
// run, and the deleter frees what the producer made. Its exec/s is what the import targets
// could reach with a harness that cost nothing: the ceiling of their share of the empty target.
#include <cstdlib>
#include <cstring>

#include "fuzz_harness.hpp"

namespace {

dlc::LoadedPlugin g_consumer;

struct FloorTensor {
  dlc::abi::ManagedTensorVersioned managed;
  void* blocks[3];
};

void free_floor_tensor(dlc::abi::ManagedTensorVersioned* self) {
  auto* t = reinterpret_cast<FloorTensor*>(self);
  for (void* block : t->blocks) std::free(block);
  std::free(t);
}

// The tensor a well-behaved producer would make of `in`, in malloc'd memory; nullptr for an
// input the import targets skip too (no storage plan), and for another major's struct, which
// they hand over as a bare head that a consumer must not read past: the floor leaves it out.
FloorTensor* make(const dlc_fuzz::TensorInput& in) {
  if (in.ndim > dlc_fuzz::kMaxBackedNdim || in.version.major != 1) return nullptr;
  const dlc_fuzz::StoragePlan plan = dlc_fuzz::plan_storage(in, true);
  if (plan.kind == dlc_fuzz::StoragePlan::kSkipped) return nullptr;
  auto* t = static_cast<FloorTensor*>(std::calloc(1, sizeof(FloorTensor)));
  const size_t dims = in.ndim > 0 ? static_cast<size_t>(in.ndim) : 0;
  auto* data = static_cast<uint8_t*>(
      std::malloc(plan.kind == dlc_fuzz::StoragePlan::kBacked ? plan.bytes + 1 : 1));
  auto* shape = static_cast<int64_t*>(std::malloc(8 * dims + 8));
  auto* strides = static_cast<int64_t*>(std::malloc(8 * dims + 8));
  t->blocks[0] = data;
  t->blocks[1] = shape;
  t->blocks[2] = strides;
  for (size_t i = 0; i < dims; ++i) {
    shape[i] = in.extent(static_cast<int64_t>(i));
    strides[i] = in.stride(static_cast<int64_t>(i));
  }
  dlc::abi::Tensor& d = t->managed.dl_tensor;
  d.data = plan.kind == dlc_fuzz::StoragePlan::kBacked ? data + plan.data_offset
           : plan.kind == dlc_fuzz::StoragePlan::kNull ? nullptr
                                                        : data;
  d.device = in.device;
  d.ndim = in.ndim;
  d.dtype = in.dtype;
  d.byte_offset = plan.byte_offset;
  d.shape = (in.layout & dlc_fuzz::kShapeNull) ? nullptr : shape;
  d.strides = (in.layout & dlc_fuzz::kStridesNull) ? nullptr : strides;
  t->managed.version = in.version;
  t->managed.flags = in.flags;
  t->managed.deleter = free_floor_tensor;
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_consumer = dlc_fuzz::load_consumer_under_test("strict-consumer-v1_3");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const dlc_fuzz::TensorInput in = dlc_fuzz::decode(data, size);
  FloorTensor* t = make(in);
  if (t == nullptr) return 0;
  DLCHandoff handoff{"dltensor_versioned", &t->managed};
  DLCRequest request{};
  request.has_max_version = g_consumer.table->has_max_version;
  request.max_version = g_consumer.table->max_version;
  request.copy = -1;
  DLCObservation obs{};
  char error[512];
  g_consumer.table->consume(g_consumer.state, &handoff, &request, &obs, error, sizeof error);
  if (g_consumer.table->release != nullptr) g_consumer.table->release(g_consumer.state);
  // Not taken: the capsule's destructor (the producer) frees it.
  if (std::strncmp(handoff.name, "used_", 5) != 0) free_floor_tensor(&t->managed);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return dlc_fuzz::custom_mutate(data, size, max_size, seed,
                                 {g_consumer.table->dlpack_version, false});
}
