#include "alloc_track.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>

#include <cstring>
#include <initializer_list>

#include "phase.h"
#include "safe_text.h"
#include "sanitizer_build.h"

#if DLC_HAS_ASAN
// The sanitizers' allocation hooks (compiler-rt's sanitizer/allocator_interface.h, which gcc's
// runtime exports without shipping the header).
extern "C" int __sanitizer_install_malloc_and_free_hooks(
    void (*malloc_hook)(const volatile void*, size_t), void (*free_hook)(const volatile void*));
#endif

namespace dlc::alloc_track {
namespace {

struct Block {
  void* p;
  size_t size;
  const void* site;
  Party owner;
};

constexpr size_t kMaxBlocks = 4096;
Block g_blocks[kMaxBlocks];
size_t g_count = 0;
bool g_recording = false;
pthread_t g_thread{};
thread_local bool t_inside = false;  // a hook's own work is not recorded
Summary g_summary;
Summary* g_live = nullptr;
bool (*g_harness_memory)(const void*) = nullptr;

// "libc.so.6" of "/usr/lib/x86_64-linux-gnu/libc.so.6".
const char* file_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

void site_text(const void* site, char* out, size_t n) {
  SafeText t(out, n);
  if (site == nullptr) {
    t.add("an unknown site");
    return;
  }
  Dl_info info{};
  if (dladdr(site, &info) != 0 && info.dli_fname != nullptr) {
    t.add(file_name(info.dli_fname)).add('+')
        .hex(reinterpret_cast<uintptr_t>(site) - reinterpret_cast<uintptr_t>(info.dli_fbase));
    if (info.dli_sname != nullptr) t.add(" (").add(info.dli_sname).add(')');
  } else {
    t.hex(reinterpret_cast<uintptr_t>(site));
  }
}

bool on_thread() { return pthread_equal(pthread_self(), g_thread) != 0; }

// libc's code, found once by its program headers (a sanitizer intercepts libc's exported
// functions, so their addresses would name the sanitizer's runtime instead).
struct CodeRange {
  uintptr_t begin = 0, end = 0;
  bool holds(const void* p) const {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    return a >= begin && a < end;
  }
};

CodeRange find_libc_code() {
  CodeRange range;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name == nullptr ||
            std::strncmp(file_name(info->dlpi_name), "libc.so", 7) != 0) {
          return 0;
        }
        auto* r = static_cast<CodeRange*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type != PT_LOAD || (h.p_flags & PF_X) == 0) continue;
          const uintptr_t begin = info->dlpi_addr + h.p_vaddr;
          if (r->begin == 0 || begin < r->begin) r->begin = begin;
          if (begin + h.p_memsz > r->end) r->end = begin + h.p_memsz;
        }
        return 1;
      },
      &range);
  return range;
}

const CodeRange& libc_code() {
  static const CodeRange range = find_libc_code();
  return range;
}

}  // namespace

const void* caller_outside_libc(const void* const* frames, int count, const void* site) noexcept {
  const CodeRange& libc = libc_code();
  int i = 0;
  while (i < count && !libc.holds(frames[i])) ++i;  // the hook's own frames
  while (i < count && libc.holds(frames[i])) ++i;   // strdup, asprintf and what they call
  return i < count ? frames[i] : site;
}

bool in_libc(const void* site) noexcept { return libc_code().holds(site); }

bool recording() noexcept { return g_recording && !t_inside && on_thread(); }

void begin_case() noexcept {
  static bool unwinder_loaded = false;
  if (!unwinder_loaded) {
    // The unwinder's first use loads libgcc_s: once, here, rather than inside a party's call.
    unwinder_loaded = true;
    t_inside = true;
    (void)libc_code();
    void* frame[2];
    (void)backtrace(frame, 2);
    t_inside = false;
  }
  g_count = 0;
  g_summary = Summary{};
  g_thread = pthread_self();
  g_recording = true;
}

void set_live_summary(Summary* summary) noexcept { g_live = summary; }

void set_harness_memory_check(bool (*owned_by_harness)(const void* p)) noexcept {
  g_harness_memory = owned_by_harness;
}

void on_alloc(void* p, size_t size, const void* site) noexcept {
  if (p == nullptr || !recording()) return;
  const Party owner = g_phase.party;
  if (owner == Party::harness || g_count == kMaxBlocks) return;
  if (in_libc(site)) {
    // strdup, asprintf, getline: libc allocates on its caller's behalf, and the caller is whose
    // block it is (a device runtime's own strings are not the producer's leak).
    t_inside = true;
    void* frames[16];
    const int n = backtrace(frames, 16);
    site = caller_outside_libc(frames, n, site);
    t_inside = false;
  }
  g_blocks[g_count++] = Block{p, size, site, owner};
}

namespace {
bool runtime_site(const void* site);

// runtime_site inside the free hook, which records nothing of what it calls.
bool runtime_block(const void* site) {
  t_inside = true;
  const bool runtime = runtime_site(site);
  t_inside = false;
  return runtime;
}

bool foreign(void* p, size_t size, const void* site, bool can_refuse) {
  t_inside = true;
  ++g_summary.consumer_foreign_frees;
  g_summary.consumer_foreign_bytes += size;
  if (g_summary.free_site[0] == '\0') site_text(site, g_summary.free_site, sizeof g_summary.free_site);
  if (g_live != nullptr) *g_live = g_summary;
  t_inside = false;
  (void)p;
  return !can_refuse;
}
}  // namespace

bool on_free(void* p, const void* site, bool can_refuse) noexcept {
  if (p == nullptr || !recording()) return true;
  const Party party = g_phase.party;
  // The harness's tensor memory is never the consumer's to free (LIFE-5); glibc would abort on it.
  if (party == Party::consumer && g_harness_memory != nullptr && g_harness_memory(p)) {
    return foreign(p, 0, site, true);
  }
  for (size_t i = g_count; i-- > 0;) {
    if (g_blocks[i].p != p) continue;
    const Party owner = g_blocks[i].owner;
    // The producer's deleter (Party::producer) frees the producer's blocks; a consumer frees its
    // own. The harness never frees a party's memory.
    if (party == owner || party == Party::harness) {
      g_blocks[i] = g_blocks[--g_count];
      return true;
    }
    if (party == Party::consumer && owner == Party::producer) {
      const size_t size = g_blocks[i].size;
      if (runtime_block(g_blocks[i].site)) {
        // The runtime frees its own memory (its call made in the producer's phase): nobody's
        // tensor, and not the consumer's free. Seen under compute-sanitizer, from libcuda.
        g_blocks[i] = g_blocks[--g_count];
        return true;
      }
      if (!can_refuse) g_blocks[i] = g_blocks[--g_count];
      // Refused in a plain build: the owner frees the block later.
      return foreign(p, size, site, can_refuse);
    }
    g_blocks[i] = g_blocks[--g_count];
    return true;
  }
  return true;
}

namespace {
// A device runtime's own memory (its context, its caches, the loader's records of the driver it
// opens) lives as long as the process and is nobody's tensor: allocated while a producer's call
// runs, it is still not the producer's to free (LIFE-5). Judged once per case, on what is left.
bool runtime_site(const void* site) {
  const char* path = loaded_object_of(site);
  return path != nullptr && is_runtime_library(file_name(path));
}
}  // namespace

const char* loaded_object_of(const void* p) noexcept {
  if (p == nullptr) return nullptr;
  struct Search {
    uintptr_t address;
    const char* path;
  } search{reinterpret_cast<uintptr_t>(p), nullptr};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        auto* s = static_cast<Search*>(out);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          const uintptr_t begin = info->dlpi_addr + h.p_vaddr;
          if (h.p_type == PT_LOAD && s->address >= begin && s->address - begin < h.p_memsz) {
            s->path = info->dlpi_name != nullptr ? info->dlpi_name : "";
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.path;
}

bool is_runtime_library(const char* base) noexcept {
  // compute-sanitizer's libraries (libsanitizer-collection.so, ...) are injected into the
  // process it runs and allocate beside the runtime's calls as it does.
  for (const char* runtime :
       {"libcuda.so", "libcudart.so", "libnvidia-", "ld-linux", "libsanitizer-"}) {
    if (std::strncmp(base, runtime, std::strlen(runtime)) == 0) return true;
  }
  return false;
}

void end_case(Summary* out) noexcept {
  g_recording = false;
  if (out == nullptr) return;
  t_inside = true;
  for (size_t i = 0; i < g_count; ++i) {
    if (g_blocks[i].owner != Party::producer || runtime_site(g_blocks[i].site)) continue;
    g_summary.producer_leaked_bytes += g_blocks[i].size;
    if (g_summary.producer_leaked_blocks++ == 0) {
      site_text(g_blocks[i].site, g_summary.leak_site, sizeof g_summary.leak_site);
    }
  }
  t_inside = false;
  *out = g_summary;
}

#if DLC_HAS_ASAN
namespace {
void sanitizer_malloc_hook(const volatile void* p, size_t size) {
  on_alloc(const_cast<void*>(p), size, nullptr);
}
void sanitizer_free_hook(const volatile void* p) { on_free(const_cast<void*>(p), nullptr, false); }
}  // namespace
void install_sanitizer_hooks() noexcept {
  static bool installed = false;
  if (!installed) {
    installed = true;
    __sanitizer_install_malloc_and_free_hooks(sanitizer_malloc_hook, sanitizer_free_hook);
  }
}
#else
void install_sanitizer_hooks() noexcept {}
#endif

}  // namespace dlc::alloc_track
