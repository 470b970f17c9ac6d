// Property: for any max_version a caller may pass (or none), a producer answers as VER-4 says:
// a legacy caller (none, or a major below 1) gets a "dltensor" capsule or a refusal; a caller of
// the same or a newer major gets "dltensor_versioned" carrying the producer's own version; a
// caller of an older major gets a legacy capsule or a refusal, never a struct it cannot read.
//
// Input: byte 0 picks the producer (unless DLCONFORM_PRODUCER or DLCONFORM_PLUGIN names one),
// byte 1 bit 0 says whether max_version is passed, bytes 2-5 and 6-9 are its major and minor.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "fuzz_harness.hpp"
#include "host.h"
#include "plugin_loader.h"

namespace {

dlc::HostState* g_host = nullptr;
std::vector<dlc::LoadedPlugin> g_producers;

[[noreturn]] void die(const dlc::LoadedPlugin& p, const std::string& what) {
  std::fprintf(stderr, "dlconform fuzz: VER-4 violated by produce() of %s@%s: %s\n",
               p.name().c_str(), p.header().c_str(), what.c_str());
  std::abort();
}

bool load(const std::string& path) {
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none || !r.plugin.is_producer()) {
    std::fprintf(stderr, "dlconform fuzz: %s\n",
                 r.error != dlc::LoadError::none ? r.message.c_str()
                                                 : (path + ": expected a producer plugin").c_str());
    return false;
  }
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&g_host->table, &r.plugin.state, error, sizeof error) != DLC_OK) {
    std::fprintf(stderr, "dlconform fuzz: %s: create() failed: %s\n", path.c_str(), error);
    return false;
  }
  g_producers.push_back(r.plugin);
  return true;
}

uint32_t read32(const uint8_t* bytes, size_t size, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4 && at + i < size; ++i) v |= uint32_t{bytes[at + i]} << (8 * i);
  return v;
}

}  // namespace

// Producer, has_max_version, major, minor.
extern "C" size_t dlc_fuzz_max_input_bytes() { return 10; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  g_host = new dlc::HostState();
  bool ok = true;
  if (const char* plugin = std::getenv("DLCONFORM_PLUGIN")) {
    ok = load(plugin);
  } else if (const char* name = std::getenv("DLCONFORM_PRODUCER")) {
    ok = load(dlc_fuzz::builtin_plugin_path(name));
  } else {
    // The conformant versioned producers; the major-2 one ignores max_version on purpose.
    for (const char* name : {"versioned-producer-v1_0", "versioned-producer-v1_1",
                             "versioned-producer-v1_2", "versioned-producer-v1_3",
                             "future-minor-producer-v1_3"}) {
      ok = ok && load(dlc_fuzz::builtin_plugin_path(name));
    }
  }
  if (!ok) std::exit(2);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const dlc::LoadedPlugin& p = g_producers[(size > 0 ? bytes[0] : 0) % g_producers.size()];
  g_host->reset();
  DLCRequest request{};
  request.copy = -1;
  request.has_max_version = size > 1 && (bytes[1] & 1);
  request.max_version = {read32(bytes, size, 2), read32(bytes, size, 6)};
  request.tensor.dtype = {2, 32, 1};
  request.tensor.ndim = 2;
  request.tensor.shape[0] = request.tensor.shape[1] = 4;
  request.tensor.device = {1, 0};
  DLCHandoff h{};
  char error[256] = {};
  const int rc = p.table->produce(p.state, &request, &h, error, sizeof error);
  const bool legacy_caller = !request.has_max_version || request.max_version.major < 1;
  if (rc == DLC_ERR_TYPE) die(p, std::string("TypeError from a versioned producer: ") + error);
  if (rc != DLC_OK) {
    // A refusal is allowed only when no struct the caller reads can be given.
    if (rc == DLC_ERR_BUFFER && legacy_caller) return 0;
    die(p, "refused max_version=" + std::to_string(request.max_version.major) + "." +
               std::to_string(request.max_version.minor) + ": " + error);
  }
  const bool versioned = h.name != nullptr && std::strcmp(h.name, "dltensor_versioned") == 0;
  const bool legacy = h.name != nullptr && std::strcmp(h.name, "dltensor") == 0;
  if (!versioned && !legacy) die(p, std::string("unknown capsule name ") + (h.name ? h.name : "NULL"));
  std::string problem;
  if (legacy_caller && versioned) problem = "a versioned struct for a legacy caller";
  if (versioned) {
    auto* m = static_cast<DLManagedTensorVersioned*>(h.pointer);
    if (m->version.major > request.max_version.major) {
      problem = "version " + std::to_string(m->version.major) + "." +
                std::to_string(m->version.minor) + " for a caller of major " +
                std::to_string(request.max_version.major);
    }
    if (m->deleter != nullptr) m->deleter(m);
  } else {
    if (!legacy_caller && request.max_version.major >= p.table->dlpack_version.major) {
      problem = "a legacy struct for a caller of the same or a newer major";
    }
    auto* m = static_cast<DLManagedTensor*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  }
  if (!problem.empty()) die(p, problem);
  return 0;
}
