// Property: for any max_version a caller may pass (or none), a producer answers as VER-4 says:
// a legacy caller (none, or a major below 1) gets a "dltensor" capsule or a refusal; a caller of
// the same or a newer major gets "dltensor_versioned" carrying the producer's own version; a
// caller of an older major gets a legacy capsule or a refusal, never a struct it cannot read.
//
// Every answer is judged by the judge the matrix uses (judge_handoff, judge_refusal).
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
#include "judge.h"
#include "phase.h"
#include "plan.h"
#include "plugin_loader.h"

namespace {

std::vector<dlc::LoadedPlugin> g_producers;
std::vector<dlc::Participant> g_parties;  // the producers' resolved profiles (emitted version)

bool load(const std::string& path) {
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none || !r.plugin.is_producer()) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n",
                 r.error != dlc::LoadError::none ? r.message.c_str()
                                                 : (path + ": expected a producer plugin").c_str());
    return false;
  }
  dlc_fuzz::announce_under_test("producer", r.plugin);
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&dlc_fuzz::host().table, &r.plugin.state, error, sizeof error) !=
          DLC_OK) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s: create() failed: %s\n", path.c_str(),
                 error);
    return false;
  }
  dlc::Participant p;
  std::string why;
  if (!dlc::describe(r.plugin, false, &p, &why)) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n", why.c_str());
    return false;
  }
  g_producers.push_back(r.plugin);
  g_parties.push_back(std::move(p));
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
  bool ok = true;
  if (const char* plugin = std::getenv("DLCONFORM_PLUGIN")) {
    ok = load(plugin);
  } else if (const char* name = std::getenv("DLCONFORM_PRODUCER")) {
    ok = load(dlc_fuzz::builtin_plugin_path(name));
  } else {
    // The conformant versioned producers, the external-style one, and the major-2 one.
    for (const char* name : {"versioned-producer-v1_0", "versioned-producer-v1_1",
                             "versioned-producer-v1_2", "versioned-producer-v1_3",
                             "future-minor-producer-v1_3", "future-major-producer-v1_3",
                             "malloc-producer-v1_3"}) {
      ok = ok && load(dlc_fuzz::builtin_plugin_path(name));
    }
  }
  if (!ok) std::exit(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  dlc_fuzz::install_fault_handler();
  const size_t which = (size > 0 ? bytes[0] : 0) % g_producers.size();
  const dlc::LoadedPlugin& p = g_producers[which];
  const dlc::Participant& party = g_parties[which];
  dlc_fuzz::host().reset();
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
  const char* who = dlc_fuzz::label(p);
  int rc = DLC_OK;
  {
    dlc::ScopedPhase phase("produce()", who, dlc::Party::producer);
    rc = p.table->produce(p.state, &request, &h, error, sizeof error);
  }
  dlc::Finding f;
  if (rc != DLC_OK) {
    dlc::RefusalFacts rf;
    rf.request = &request;
    rf.rc = rc;
    rf.error = error;
    rf.producer_version = party.emits;
    rf.negotiation_only = true;
    dlc::judge_refusal(rf, &f);
  } else {
    const dlc::abi::StructKind kind = dlc::abi::struct_kind_of_name(h.name);
    if (kind != dlc::abi::StructKind::unknown) dlc_fuzz::host().ledger.interpose(h.pointer, kind);
    dlc::HandoffFacts hf;
    hf.request = &request;
    hf.handoff = h;
    hf.producer_version = party.emits;
    hf.negotiation_only = true;
    dlc::judge_handoff(hf, &f);
    dlc::delete_unclaimed(h);
  }
  if (f.fails()) {
    dlc::SafeText(f.words + std::strlen(f.words), sizeof f.words - std::strlen(f.words))
        .add(" (produce() of ").add(who).add(')');
    dlc_fuzz::die(f);
  }
  return 0;
}
