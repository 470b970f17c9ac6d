// Where control is: which party's code runs now (a producer's produce(), a consumer's consume(),
// a deleter). The ledger, the allocation tracker and the fault words read it, so that a finding
// says "second call from release() of plugin X". Plain globals: one exchange at a time per
// process, and readable from a signal handler.
#pragma once

namespace dlc {

enum class Party : unsigned char { harness, producer, consumer };

struct Phase {
  const char* where = "the harness";  // static string: "produce()", "consume()", "release()"...
  const char* plugin = "-";           // the label of the plugin running, or "-"
  Party party = Party::harness;
};

inline Phase g_phase;

// Where a worker mirrors the party of each phase it enters (a byte of the case's shared record),
// so that the parent can blame a worker that died without a word on the party whose code ran.
inline volatile unsigned char* g_party_mirror = nullptr;

// Sets the phase for a scope and restores the previous one.
class ScopedPhase {
 public:
  ScopedPhase(const char* where, const char* plugin, Party party) noexcept : saved_(g_phase) {
    g_phase = Phase{where, plugin, party};
    if (g_party_mirror != nullptr) *g_party_mirror = static_cast<unsigned char>(party);
  }
  ~ScopedPhase() {
    g_phase = saved_;
    if (g_party_mirror != nullptr) *g_party_mirror = static_cast<unsigned char>(saved_.party);
  }
  ScopedPhase(const ScopedPhase&) = delete;
  ScopedPhase& operator=(const ScopedPhase&) = delete;

 private:
  Phase saved_;
};

}  // namespace dlc
