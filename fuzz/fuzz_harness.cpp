// Shared by the fuzz targets: plugin lookup, the fault handler, the guarded layout of a
// TensorInput and the ledger checks after a consumer ran. See fuzz_harness.hpp.
#include "fuzz_harness.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <dlpack/dlpack.h>

#include "dlc_fuzz_config.h"

#if defined(__SANITIZE_ADDRESS__)
#define DLC_FUZZ_HAS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define DLC_FUZZ_HAS_SANITIZER 1
#endif
#endif
#if DLC_FUZZ_HAS_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DLC_FUZZ_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLC_FUZZ_HAS_ASAN 1
#endif
#endif
#if DLC_FUZZ_HAS_ASAN
#include <sanitizer/asan_interface.h>
#endif

// Present only when libFuzzer is linked in, which owns the sanitizers' death callback.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));
#include "validate.h"

namespace dlc_fuzz {
namespace {

dlc::HostState* g_host = nullptr;

// Phase and plugin of the code now running; read by the signal handler.
const char* g_where = "the fuzzer";
std::string g_plugin = "-";

const TensorInput* g_input = nullptr;
bool g_input_versioned = false;

// "reproduce: DLCONFORM_CONSUMER=x /path/to/target", built before the first input so that the
// signal handler only writes it; the replay main names the file it is running.
char g_reproduce[1024] = "";
const char* g_input_file = nullptr;

void write_stderr(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

// After the words of a finding: the input in one line and the command that replays it.
void print_reproducer() {
  if (g_input != nullptr) {
    const std::string line = "dlconform fuzz: input: " + describe(*g_input, g_input_versioned) + "\n";
    write_stderr(line.c_str());
  }
  write_stderr("dlconform fuzz: ");
  write_stderr(g_reproduce);
  write_stderr(" ");
  write_stderr(g_input_file != nullptr ? g_input_file : "<the crash file libFuzzer writes below>");
  write_stderr("\n");
}

// A sanitizer found it (ASan, UBSan with halt_on_error): say where we were, after its report.
void on_sanitizer_death() {
  write_stderr("dlconform fuzz: sanitizer finding (report above) in ");
  write_stderr(g_where);
  write_stderr(" of plugin ");
  write_stderr(g_plugin.c_str());
  write_stderr("\n");
  print_reproducer();
}

[[maybe_unused]] void on_asan_report(const char*) { on_sanitizer_death(); }

// The blocks of the tensor in flight; the fuzzer's deleter frees them (LIFE-5), so a touch after
// it faults (LIFE-6).
void* g_blocks[6];
int g_block_count = 0;

// Where each deleter call came from, for "first call from consume(), second from release()".
const char* g_delete_where[4];
uint32_t g_delete_count = 0;

struct sigaction g_previous_segv, g_previous_bus;

void* keep(void* block) {
  if (block != nullptr) g_blocks[g_block_count++] = block;
  return block;
}

template <class Managed>
void fuzz_deleter(Managed* self) {
  if (g_delete_count < 4) g_delete_where[g_delete_count] = g_where;
  ++g_delete_count;
  // A second call (or a call on a pointer never handed out) is recorded and touches nothing.
  if (!host().ledger.deleter_called(self)) return;
  for (int i = 0; i < g_block_count; ++i) host().arena.free(g_blocks[i]);
}

// The deleters have the real DLPack types, the ones consumers call them through: clang's
// -fsanitize=function checks the function type at every indirect call. They are stored in the
// harness's mirror structs, which have the same layout (asserted in validate.cpp).
void versioned_deleter_impl(DLManagedTensorVersioned* self) { fuzz_deleter(self); }
void legacy_deleter_impl(DLManagedTensor* self) { fuzz_deleter(self); }
auto versioned_deleter() {
  return reinterpret_cast<void (*)(dlc::abi::ManagedTensorVersioned*)>(versioned_deleter_impl);
}
auto legacy_deleter() {
  return reinterpret_cast<void (*)(dlc::abi::ManagedTensor*)>(legacy_deleter_impl);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  bool is_write = false, is_exec = false;
#if defined(__x86_64__)
  if (context != nullptr) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    is_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
    is_exec = (uc->uc_mcontext.gregs[REG_ERR] & 16) != 0 ||
              static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]) == address;
  }
#else
  (void)context;
#endif
  dlc::FaultReport report;
  if (g_host != nullptr) g_host->arena.classify(address, is_write, is_exec, &report);
  char line[768];
  dlc::SafeText text{line, sizeof line};
  text.add("dlconform fuzz: ").add(report.finding_class);
  if (report.rule[0] != '\0') text.add(" [").add(report.rule).add("]");
  text.add(": ").add(report.detail).add(" in ").add(g_where);
  text.add(" of plugin ").add(g_plugin.c_str()).add("\n");
  ssize_t ignored = write(STDERR_FILENO, line, text.length);
  (void)ignored;
  print_reproducer();
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
  raise(sig);
}

std::string exe_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// Storage geometry of `in` over all of its dimensions (not only the 32 of DLCTensorSpec), with
// fill.hpp's rules: extents >= 0, every product and offset within 64 bits (LAY-10), compact
// strides when strides is NULL or the type is packed sub-byte.
struct Geometry {
  bool valid = false;
  uint64_t element_bytes = 0;
  uint64_t numel = 0;
  int64_t min_offset = 0;
  int64_t max_offset = 0;
  uint64_t storage_bytes = 0;
  bool packed = false;  // sub-byte elements packed into bytes: read as a byte string
};

Geometry geometry(const TensorInput& in, bool strides_given, bool padded) {
  Geometry g;
  const uint64_t bit_width = uint64_t{in.dtype.bits} * in.dtype.lanes;
  const bool packed = bit_width < 8 && !padded;
  g.element_bytes = (bit_width + 7) / 8;
  if (in.ndim < 0 || in.dtype.lanes == 0) return g;
  uint64_t numel = 1;
  for (int64_t i = 0; i < in.ndim; ++i) {
    if (in.extent(i) < 0) return g;
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(in.extent(i)), &numel)) return g;
  }
  const bool compact = !strides_given || packed;
  int64_t acc = 1;
  int64_t min_offset = 0, max_offset = 0;
  for (int64_t i = in.ndim - 1; i >= 0; --i) {
    const int64_t extent = in.extent(i);
    const int64_t stride = compact ? acc : in.stride(i);
    if (__builtin_mul_overflow(acc, extent == 0 ? 1 : extent, &acc)) {
      if (compact) return g;
      acc = 1;
    }
    if (numel == 0) continue;
    int64_t reach = 0;
    if (__builtin_mul_overflow(extent - 1, stride, &reach)) return g;
    int64_t& bound = reach < 0 ? min_offset : max_offset;
    if (__builtin_add_overflow(bound, reach, &bound)) return g;
  }
  uint64_t span = 0;
  if (packed) {
    uint64_t bits = 0;
    if (__builtin_mul_overflow(numel, bit_width, &bits)) return g;
    span = bits / 8 + (bits % 8 != 0);
  } else if (numel > 0) {
    const uint64_t elements =
        static_cast<uint64_t>(max_offset) + (0 - static_cast<uint64_t>(min_offset)) + 1;
    if (elements == 0) return g;
    if (__builtin_mul_overflow(elements, g.element_bytes, &span)) return g;
  }
  g.numel = numel;
  g.min_offset = min_offset;
  g.max_offset = max_offset;
  g.storage_bytes = span;
  g.packed = packed;
  g.valid = true;
  return g;
}

// Calls visit(offset in elements) for every element of a valid, non-packed `g`, in logical
// row-major order, over all of in.ndim dimensions.
// The harness's own loops are not what the fuzzer should explore: no coverage feedback.
#if defined(__clang__)
#define DLC_FUZZ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define DLC_FUZZ_NO_COVERAGE
#endif

template <class Visit>
DLC_FUZZ_NO_COVERAGE void walk(const TensorInput& in, bool strides_given, const Geometry& g, Visit visit) {
  if (g.numel == 0) return;
  const int64_t ndim = in.ndim;
  std::vector<int64_t> stride(static_cast<size_t>(ndim)), index(static_cast<size_t>(ndim), 0);
  int64_t acc = 1;
  for (int64_t i = ndim - 1; i >= 0; --i) {
    stride[i] = strides_given ? in.stride(i) : acc;
    acc *= in.extent(i) == 0 ? 1 : in.extent(i);  // numel fits, so no overflow
  }
  int64_t offset = 0;
  for (uint64_t k = 0; k < g.numel; ++k) {
    visit(offset);
    for (int64_t d = ndim - 1; d >= 0; --d) {
      if (++index[d] < in.extent(d)) {
        offset += stride[d];
        break;
      }
      offset -= (in.extent(d) - 1) * stride[d];
      index[d] = 0;
    }
  }
}

// Budget of one input: larger valid tensors are skipped rather than backed.
constexpr int64_t kMaxBackedNdim = 1024;
constexpr uint64_t kMaxBackedBytes = uint64_t{256} << 10;
constexpr uint64_t kMaxBackedElements = uint64_t{1} << 16;
constexpr uint32_t kFillSeed = 0x5EED;

// The part of DLManagedTensorVersioned that every major keeps in place.
struct FrozenHead {
  DLCVersion version;
  void* manager_ctx;
  void (*deleter)(dlc::abi::ManagedTensorVersioned* self);
};
static_assert(sizeof(FrozenHead) == 24, "version, manager_ctx, deleter");

}  // namespace

dlc::HostState& host() {
  if (g_host == nullptr) g_host = new dlc::HostState();
  return *g_host;
}

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> dirs;
  if (const char* dir = std::getenv("DLCONFORM_PLUGIN_DIR")) dirs.push_back(dir);
  dirs.push_back(exe_dir() + "/dlconform-plugins");  // an OSS-Fuzz $OUT
  std::error_code ec;
  const auto self = std::filesystem::canonical("/proc/self/exe", ec);
  const auto built_dir = std::filesystem::weakly_canonical(DLC_FUZZ_BUILD_DIR, ec);
  if (!ec && self.parent_path() == built_dir) {
    dirs.push_back(DLC_FUZZ_CONSUMERS_DIR);
    dirs.push_back(std::string(DLC_FUZZ_CONSUMERS_DIR) + "/zoo");
    dirs.push_back(DLC_FUZZ_PRODUCERS_DIR);
  } else {
    // Installed as PREFIX/libexec/dlconform/<target>: the plugins of the same PREFIX first.
    const std::string prefix = self.parent_path().parent_path().parent_path().string();
    for (const std::string& dir :
         {prefix + "/" + DLC_FUZZ_PLUGIN_DIR_IN_PREFIX, std::string(DLC_FUZZ_INSTALLED_PLUGIN_DIR)}) {
      dirs.push_back(dir);
      dirs.push_back(dir + "/zoo");
    }
  }
  return dirs;
}

std::string builtin_plugin_path(const std::string& name) {
  const std::string file = "dlc-" + name + ".so";
  std::error_code ec;
  for (const std::string& dir : plugin_search_path()) {
    if (std::filesystem::exists(dir + "/" + file, ec)) return dir + "/" + file;
  }
  std::string looked;
  for (const std::string& dir : plugin_search_path()) looked += (looked.empty() ? "" : ", ") + dir;
  std::fprintf(stderr, "dlconform fuzz: cannot start: no built-in plugin named %s (looked for %s in %s)\n",
               name.c_str(), file.c_str(), looked.c_str());
  std::exit(2);
}

dlc::LoadedPlugin load_or_exit(const std::string& path, uint32_t role) {
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n", r.message.c_str());
    std::exit(2);
  }
  if ((r.plugin.table->roles & role) == 0) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s: expected a %s plugin but found none\n",
                 path.c_str(), role == DLC_ROLE_CONSUMER ? "consumer" : "producer");
    std::exit(2);
  }
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&host().table, &r.plugin.state, error, sizeof error) != DLC_OK) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s: create() failed: %s\n", path.c_str(),
                 error);
    std::exit(2);
  }
  return r.plugin;
}

std::string adapter_beside_executable() {
  std::error_code ec;
  const std::string adapter = exe_dir() + "/dlconform-plugins/dlc-adapter.so";
  return std::filesystem::exists(adapter, ec) ? adapter : std::string();
}

dlc::LoadedPlugin load_consumer_under_test(const char* default_name) {
  if (const char* path = std::getenv("DLCONFORM_PLUGIN")) {
    return load_or_exit(path, DLC_ROLE_CONSUMER);
  }
  const char* name = std::getenv("DLCONFORM_CONSUMER");
  if (name == nullptr) {
    // OSS-Fuzz and ClusterFuzzLite pass no environment: a framework's adapter shipped as
    // $OUT/dlconform-plugins/dlc-adapter.so (tools/oss-fuzz-build.sh) is the default there.
    const std::string adapter = adapter_beside_executable();
    if (!adapter.empty()) return load_or_exit(adapter, DLC_ROLE_CONSUMER);
  }
  return load_or_exit(builtin_plugin_path(name != nullptr ? name : default_name),
                      DLC_ROLE_CONSUMER);
}

std::string label(const dlc::LoadedPlugin& plugin) {
  return plugin.name() + "@" + plugin.header();
}

void set_phase(const char* where, const std::string& plugin) {
  g_where = where;
  if (g_plugin != plugin) g_plugin = plugin;
}

void install_fault_handler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  std::string command = "reproduce:";
  for (const char* name : {"DLCONFORM_PLUGIN", "DLCONFORM_CONSUMER", "DLCONFORM_PRODUCER",
                           "DLCONFORM_LEVEL", "DLCONFORM_PLUGIN_DIR"}) {
    if (const char* value = std::getenv(name)) command += std::string(" ") + name + "=" + value;
  }
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  command += " " + (ec ? std::string("<fuzz target>") : exe);
  std::snprintf(g_reproduce, sizeof g_reproduce, "%s", command.c_str());
  // The words go after the sanitizer's report. libFuzzer's own death callback writes the crash
  // file and must not be replaced: under libFuzzer, hook ASan's report instead.
#if DLC_FUZZ_HAS_SANITIZER
  if (LLVMFuzzerMutate == nullptr) __sanitizer_set_death_callback(on_sanitizer_death);
#endif
#if DLC_FUZZ_HAS_ASAN
  if (LLVMFuzzerMutate != nullptr) __asan_set_error_report_callback(on_asan_report);
#endif
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
  sigaction(SIGBUS, &action, &g_previous_bus);
}

void set_current_input(const TensorInput* in, bool versioned) {
  g_input = in;
  g_input_versioned = versioned;
}

void die(const char* rule, const std::string& what) {
  std::fprintf(stderr, "dlconform fuzz: %s [%s]\n", what.c_str(), rule);
  std::fflush(stderr);
  print_reproducer();
  std::abort();
}

DLC_FUZZ_NO_COVERAGE Built build_tensor(const TensorInput& in, bool versioned,
                                         uint32_t consumer_major, bool fill) {
  Built b;
  if (in.ndim > kMaxBackedNdim) {
    b.skipped = true;
    return b;
  }
  host().reset();
  g_block_count = 0;
  g_delete_count = 0;
  dlc::GuardArena& arena = host().arena;
  const bool padded = versioned && (in.flags & dlc::abi::kFlagSubbytePadded) != 0;
  const bool strides_given = !(in.layout & kStridesNull);
  const Geometry g = geometry(in, strides_given, padded);
  const bool on_host = in.device.device_type == 1;

  // Data first, so that a valid tensor too large to back is skipped before anything is mapped.
  uint64_t byte_offset = in.byte_offset;
  uint8_t* data = nullptr;
  uint8_t* data_block = nullptr;
  uint64_t end = 0;
  const bool backable = g.valid && on_host && !(in.layout & kDataNull) &&
                        !__builtin_add_overflow(in.byte_offset, g.storage_bytes, &end);
  if (backable) {
    // A valid tensor is backed by exactly the memory it claims, or a consumer that rightly reads
    // it would be blamed. A large byte_offset cannot be backed, so it is taken modulo a page.
    byte_offset %= 4096;
    const uint64_t bytes = g.storage_bytes + byte_offset + in.misalign;
    if (bytes > kMaxBackedBytes || g.numel > kMaxBackedElements) {
      b.skipped = true;
      return b;
    }
    data_block = static_cast<uint8_t*>(keep(arena.alloc(bytes, 1, DLC_ALLOC_DATA)));
    if (fill) {
      for (uint64_t i = 0; i < bytes; ++i) data_block[i] = dlc_fill_byte(kFillSeed, i, 0);
    }
    // The lowest element sits at the start of the storage, the highest ends at the guard page.
    data = data_block + in.misalign - g.min_offset * static_cast<int64_t>(g.element_bytes);
    b.data_backed = true;
    if (fill) {
      const uint8_t* origin = data + byte_offset;
      b.digest = dlc_digest_init();
      b.digest_known = true;
      if (g.packed) {
        b.digest = dlc_digest_update(b.digest, origin, g.storage_bytes);
        b.elements = g.storage_bytes;
      } else {
        b.elements = g.numel;
        walk(in, strides_given, g, [&](int64_t offset) {
          b.digest = dlc_digest_update(
              b.digest, origin + offset * static_cast<int64_t>(g.element_bytes), g.element_bytes);
        });
      }
    }
  } else if (in.layout & kDataNull) {
    data = nullptr;
  } else if (!on_host) {
    data = static_cast<uint8_t*>(arena.device_poison(4096));  // DEV-3: never read on the host
  } else {
    data = static_cast<uint8_t*>(keep(arena.alloc(0, 1, DLC_ALLOC_DATA)));  // invalid: nothing
  }

  dlc::abi::Tensor t{};
  t.data = data;
  t.device = in.device;
  t.ndim = in.ndim;
  t.dtype = in.dtype;
  t.byte_offset = byte_offset;
  const size_t dims = in.ndim > 0 ? static_cast<size_t>(in.ndim) : 0;
  if (!(in.layout & kShapeNull)) {
    t.shape = static_cast<int64_t*>(keep(arena.alloc(8 * dims, 8, DLC_ALLOC_SHAPE)));
    for (size_t i = 0; i < dims; ++i) t.shape[i] = in.extent(static_cast<int64_t>(i));
  }
  if (strides_given) {
    t.strides = static_cast<int64_t*>(keep(arena.alloc(8 * dims, 8, DLC_ALLOC_STRIDES)));
    for (size_t i = 0; i < dims; ++i) t.strides[i] = in.stride(static_cast<int64_t>(i));
  }
  b.deleter_null = (in.layout & kDeleterNull) != 0;
  if (versioned && in.version.major != consumer_major) {
    FrozenHead head{in.version, nullptr,
                    b.deleter_null ? nullptr : versioned_deleter()};
    void* m = keep(arena.alloc(sizeof head, 8, DLC_ALLOC_STRUCT));
    std::memcpy(m, &head, sizeof head);
    b.managed = m;
  } else if (versioned) {
    auto* m = static_cast<dlc::abi::ManagedTensorVersioned*>(
        keep(arena.alloc(sizeof(dlc::abi::ManagedTensorVersioned), 8, DLC_ALLOC_STRUCT)));
    m->version = in.version;
    m->manager_ctx = nullptr;
    m->deleter = b.deleter_null ? nullptr : versioned_deleter();
    m->flags = in.flags;
    m->dl_tensor = t;
    b.managed = m;
  } else {
    auto* m = static_cast<dlc::abi::ManagedTensor*>(
        keep(arena.alloc(sizeof(dlc::abi::ManagedTensor), 8, DLC_ALLOC_STRUCT)));
    m->dl_tensor = t;
    m->manager_ctx = nullptr;
    m->deleter = b.deleter_null ? nullptr : legacy_deleter();
    b.managed = m;
  }
  if (versioned && (in.flags & dlc::abi::kFlagReadOnly) && data_block != nullptr) {
    arena.protect_read_only(data_block);  // FLAG-1: a write faults
  }
  host().ledger.produced(b.managed);
  b.handoff = {versioned ? "dltensor_versioned" : "dltensor", b.managed};
  return b;
}

Outcome run_consumer(const dlc::LoadedPlugin& consumer, Built& built) {
  Outcome out;
  const std::string who = label(consumer);
  const char* const offered = built.handoff.name;
  DLCRequest request{};
  request.has_max_version = consumer.table->has_max_version;
  request.max_version = consumer.table->max_version;
  request.copy = -1;
  set_phase("consume()", who);
  out.rc = consumer.table->consume(consumer.state, &built.handoff, &request, &out.obs, out.error,
                                   sizeof out.error);
  set_phase("release()", who);
  if (consumer.table->release != nullptr) consumer.table->release(consumer.state);
  set_phase("the fuzzer", who);
  out.error[sizeof out.error - 1] = '\0';

  const char* name = built.handoff.name;
  out.taken = name != nullptr && std::strncmp(name, "used_", 5) == 0;
  if (out.taken && std::strcmp(name + 5, offered) != 0) {
    die("LIFE-1", std::string("capsule ") + offered + " renamed to " + name + " by plugin " + who +
                      " (expected used_" + offered + ")");
  }
  if (!out.taken && name != offered && (name == nullptr || std::strcmp(name, offered) != 0)) {
    die("LIFE-1", std::string("capsule ") + offered + " renamed to " + (name ? name : "NULL") +
                      " by plugin " + who + " (expected used_" + offered + " or no change)");
  }
  if (!out.taken && out.rc == DLC_OK) {
    die("LIFE-1", "consume() of plugin " + who + " imported the tensor but left the capsule named " +
                      offered + " (a consumer that takes a tensor renames it to used_" + offered +
                      ")");
  }
  if (out.rc == DLC_OK && built.digest_known && !out.obs.data_not_read &&
      (out.obs.digest != built.digest || out.obs.elements_read != built.elements)) {
    die("LAY-4", "wrong data: consume() of plugin " + who + " imported the tensor but read " +
                     std::to_string(out.obs.elements_read) + " elements with digest " +
                     std::to_string(out.obs.digest) + "; expected " +
                     std::to_string(built.elements) + " with digest " +
                     std::to_string(built.digest) +
                     " (byte_offset, strides or lanes misread?)");
  }
  if (built.deleter_null) return out;  // LIFE-4: nothing to call, and a call of NULL faulted
  const uint32_t calls = host().ledger.calls(built.managed);
  if (host().ledger.stray_calls() > 0) {
    die("LIFE-3", std::string("deleter called on a pointer the fuzzer never handed out, from ") +
                      g_delete_where[0] + " of plugin " + who);
  }
  if (calls > 1) {
    die("LIFE-3", std::string("deleter called ") + (calls == 2 ? "twice" : "more than twice") +
                      ": first call from " + g_delete_where[0] + ", second call from " +
                      g_delete_where[1] + " of plugin " + who);
  }
  if (out.taken && calls == 0) {
    die("LIFE-3", "deleter never called by plugin " + who + ", which took the tensor (" +
                      (out.rc == DLC_OK ? std::string("imported it")
                                        : std::string("refused it: ") + out.error) +
                      ")");
  }
  if (!out.taken && calls != 0) {
    die("LIFE-1", std::string("deleter called from ") + g_delete_where[0] + " of plugin " + who +
                      ", which never took the tensor (the capsule is still named " + offered + ")");
  }
  return out;
}

void import_one(const dlc::LoadedPlugin& consumer, const uint8_t* data, size_t size,
                bool versioned) {
  install_fault_handler();
  const TensorInput in = decode(data, size);
  set_current_input(&in, versioned);
  const uint32_t own_major = std::max(consumer.table->dlpack_version.major, 1u);
  Built built = build_tensor(in, versioned, versioned ? own_major : 0, true);
  if (!built.skipped) (void)run_consumer(consumer, built);
  set_current_input(nullptr, versioned);
}

}  // namespace dlc_fuzz

// Called by the replay main before each file, so that a finding names the file to replay.
extern "C" void dlc_fuzz_set_input_file(const char* path) { dlc_fuzz::g_input_file = path; }
