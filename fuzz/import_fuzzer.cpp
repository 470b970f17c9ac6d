// Property: whatever DLManagedTensor (DLC_FUZZ_VERSIONED=0) or DLManagedTensorVersioned
// (DLC_FUZZ_VERSIONED=1) it is handed, the consumer under test never reads outside the struct,
// shape, strides or data, never writes a read-only tensor, and calls the deleter exactly once
// (LIFE-3), also when it refuses the tensor.
//
// The input is a fixed little-endian record (see FuzzRecord): libFuzzer's byte mutations then stay
// structured, every field lands in the struct, and every buffer is an exact-size guarded block.
// The consumer is a plugin: DLCONFORM_PLUGIN=/path/lib.so, or DLCONFORM_CONSUMER=<built-in name>
// (default strict-consumer-v1_3).
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <dlpack/dlpack.h>

#include "dlc_fuzz_config.h"
#include "fill.hpp"
#include "guard.h"
#include "host.h"
#include "plugin_loader.h"
#include "validate.h"

namespace {

#pragma pack(push, 1)
// The input, field by field; a short input leaves the rest zero.
struct FuzzRecord {
  uint32_t version_major, version_minor;
  uint64_t flags;
  int32_t device_type, device_id;
  uint8_t code, bits;
  uint16_t lanes;
  int32_t ndim;
  uint8_t options;  // bit 0 shape NULL, 1 strides NULL, 2 data NULL, 3 deleter NULL
  uint8_t misalign;
  uint16_t reserved;
  uint64_t byte_offset;
  int64_t shape[8];
  int64_t strides[8];
};
#pragma pack(pop)

dlc::HostState* g_host = nullptr;
dlc::LoadedPlugin g_plugin;
std::string g_plugin_label;
struct sigaction g_previous_segv, g_previous_bus;

void die(const char* what) {
  std::fprintf(stderr, "dlconform fuzz: %s (consumer: %s)\n", what, g_plugin_label.c_str());
  std::abort();
}

// Faults are reported in words first, then re-raised so the fuzzer records the crash.
void on_fault(int sig, siginfo_t* info, void* context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  bool is_write = false, is_exec = false;
#if defined(__x86_64__)
  if (context != nullptr) {
    const auto* uc = static_cast<ucontext_t*>(context);
    is_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    is_exec = (uc->uc_mcontext.gregs[REG_ERR] & 16) != 0 ||
              static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]) == address;
  }
#endif
  dlc::FaultReport report;
  g_host->arena.classify(address, is_write, is_exec, &report);
  char line[512];
  dlc::SafeText text{line, sizeof line};
  text.add("dlconform fuzz: ").add(report.finding_class).add(" [").add(report.rule).add("]: ");
  text.add(report.detail).add(" in consume() of ").add(g_plugin_label.c_str()).add("\n");
  ssize_t ignored = write(2, line, text.length);
  (void)ignored;
  // Hand the signal on to whoever handled it before us (libFuzzer's crash dump), or die.
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
  raise(sig);
}

// Installed on the first input, after libFuzzer has installed its own handlers, so that ours
// speaks first and then chains to theirs.
void install_fault_handler() {
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
  sigaction(SIGBUS, &action, &g_previous_bus);
}

bool load_consumer() {
  std::string path;
  if (const char* plugin = std::getenv("DLCONFORM_PLUGIN")) {
    path = plugin;
  } else {
    const char* name = std::getenv("DLCONFORM_CONSUMER");
    path = std::string(DLC_FUZZ_CONSUMERS_DIR) + "/dlc-" +
           (name != nullptr ? name : "strict-consumer-v1_3") + ".so";
  }
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none) {
    std::fprintf(stderr, "dlconform fuzz: %s\n", r.message.c_str());
    return false;
  }
  if (!r.plugin.is_consumer()) {
    std::fprintf(stderr, "dlconform fuzz: %s: expected a consumer plugin but found none\n",
                 path.c_str());
    return false;
  }
  g_plugin = r.plugin;
  g_plugin_label = g_plugin.name() + "@" + g_plugin.header();
  char error[256] = {};
  if (g_plugin.table->create != nullptr &&
      g_plugin.table->create(&g_host->table, &g_plugin.state, error, sizeof error) != DLC_OK) {
    std::fprintf(stderr, "dlconform fuzz: %s: create() failed: %s\n", path.c_str(), error);
    return false;
  }
  return true;
}

// Every block of the current input; the deleter frees them, so a touch after it faults (LIFE-6).
void* g_blocks[5];
int g_block_count = 0;

void* keep(void* block) {
  g_blocks[g_block_count++] = block;
  return block;
}

// A second call is recorded by the ledger and touches nothing.
template <class Managed>
void fuzz_deleter(Managed* self) {
  if (!g_host->ledger.deleter_called(self)) return;
  for (int i = 0; i < g_block_count; ++i) g_host->arena.free(g_blocks[i]);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_host = new dlc::HostState();
  if (!load_consumer()) std::exit(2);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  static const bool handler_installed = (install_fault_handler(), true);
  (void)handler_installed;
  FuzzRecord in{};
  std::memcpy(&in, bytes, size < sizeof in ? size : sizeof in);
  g_host->reset();
  g_block_count = 0;
  dlc::GuardArena& arena = g_host->arena;

  // The tensor exactly as the record says, every array in its own exact-size block.
  dlc::abi::Tensor t{};
  t.device = {in.device_type, in.device_id};
  t.ndim = in.ndim;
  t.dtype = {in.code, in.bits, in.lanes};
  // shape and strides hold exactly ndim entries (up to 64): the record gives the first 8, the rest
  // are extent 1 with stride 1, so a consumer may read all ndim of them and no more.
  const int dims = in.ndim < 0 ? 0 : (in.ndim > 64 ? 64 : in.ndim);
  int64_t shape[64], strides[64];
  for (int i = 0; i < dims; ++i) {
    shape[i] = i < 8 ? in.shape[i] : 1;
    strides[i] = i < 8 ? in.strides[i] : 1;
  }
  if (!(in.options & 1)) {
    t.shape = static_cast<int64_t*>(keep(arena.alloc(sizeof(int64_t) * dims, 8, DLC_ALLOC_SHAPE)));
    std::memcpy(t.shape, shape, sizeof(int64_t) * dims);
  }
  if (!(in.options & 2)) {
    t.strides =
        static_cast<int64_t*>(keep(arena.alloc(sizeof(int64_t) * dims, 8, DLC_ALLOC_STRIDES)));
    std::memcpy(t.strides, strides, sizeof(int64_t) * dims);
  }
  // Data: the exact span the geometry reaches, when it is sane; otherwise a pointer that faults.
  DLCTensorSpec spec{};
  spec.dtype = t.dtype;
  spec.ndim = in.ndim == dims && dims <= 32 ? dims : -1;
  spec.has_strides = !(in.options & 2);
  for (int i = 0; i < dims && i < 32; ++i) {
    spec.shape[i] = shape[i];
    spec.strides[i] = strides[i];
  }
  const dlc_fill::Geometry g = dlc_fill::geometry(spec);
  // A valid tensor must be backed by the memory it claims, or a consumer that rightly reads it
  // would be blamed: byte_offset is kept small unless it overflows with the storage (LAY-10, which
  // a consumer must refuse), and inputs too large to back are skipped.
  uint64_t end = 0;
  const bool offset_overflows = __builtin_add_overflow(in.byte_offset, g.storage_bytes, &end);
  const uint64_t offset = offset_overflows ? in.byte_offset : in.byte_offset % 4096;
  t.byte_offset = offset;
  const bool host = in.device_type == 1;
  if (g.valid && host && !offset_overflows && !(in.options & 4) &&
      (g.storage_bytes + offset + in.misalign > (16u << 20) ||
       g.numel > (uint64_t{64} << 20) / (g.element_bytes ? g.element_bytes : 1))) {
    return 0;  // valid, but too large to back with memory or to read in a fuzzing budget
  }
  if (in.options & 4) {
    t.data = nullptr;
  } else if (g.valid && host && !offset_overflows) {
    const size_t lead = static_cast<size_t>(-g.min_offset) * g.element_bytes;
    auto* block = static_cast<uint8_t*>(
        keep(arena.alloc(g.storage_bytes + offset + in.misalign, 1, DLC_ALLOC_DATA)));
    t.data = block + in.misalign + lead;
    if (in.flags & dlc::abi::kFlagReadOnly) arena.protect_read_only(block);
  } else {
    t.data = arena.device_poison(4096);
  }

  void* managed = nullptr;
  DLCHandoff handoff{};
#if DLC_FUZZ_VERSIONED
  auto* m = static_cast<DLManagedTensorVersioned*>(
      keep(arena.alloc(sizeof(DLManagedTensorVersioned), 8, DLC_ALLOC_STRUCT)));
  m->version = {in.version_major, in.version_minor};
  m->flags = in.flags;
  std::memcpy(&m->dl_tensor, &t, sizeof t);
  m->deleter = (in.options & 8) ? nullptr : fuzz_deleter<DLManagedTensorVersioned>;
  handoff = {"dltensor_versioned", m};
#else
  auto* m = static_cast<DLManagedTensor*>(
      keep(arena.alloc(sizeof(DLManagedTensor), 8, DLC_ALLOC_STRUCT)));
  std::memcpy(&m->dl_tensor, &t, sizeof t);
  m->deleter = (in.options & 8) ? nullptr : fuzz_deleter<DLManagedTensor>;
  handoff = {"dltensor", m};
#endif
  managed = m;
  g_host->ledger.produced(managed);

  DLCRequest request{};
  request.has_max_version = g_plugin.table->has_max_version;
  request.max_version = g_plugin.table->max_version;
  request.copy = -1;
  DLCObservation obs{};
  char error[512] = {};
  g_plugin.table->consume(g_plugin.state, &handoff, &request, &obs, error, sizeof error);
  if (g_plugin.table->release != nullptr) g_plugin.table->release(g_plugin.state);

  // LIFE-3: exactly one deleter call once the consumer took the tensor (renamed it, LIFE-1).
  const bool taken = handoff.name != nullptr && std::strncmp(handoff.name, "used_", 5) == 0;
  const uint32_t calls = g_host->ledger.calls(managed);
  if (!(in.options & 8)) {
    if (calls > 1 || g_host->ledger.stray_calls() > 0) {
      die("deleter called twice: the second call came from consume() or release()");
    }
    if (taken && calls == 0) die("deleter never called after the consumer took the tensor");
    if (!taken && calls != 0) die("deleter called on a tensor the consumer did not take");
  }
  return 0;
}
