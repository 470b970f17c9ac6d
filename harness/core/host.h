// The DLCHost services a plugin borrows (guarded allocation, read-only protection, the deleter
// ledger), bound to one arena and one ledger per process.
#pragma once

#include "dlconform/plugin.h"
#include "guard.h"
#include "ledger.h"

namespace dlc {

struct HostState {
  GuardArena arena;
  DeleterLedger ledger;
  DLCHost table{};
  HostState();
  HostState(const HostState&) = delete;
  HostState& operator=(const HostState&) = delete;
  // Ends a case or a fuzz execution.
  void reset() noexcept {
    arena.reset();
    ledger.reset();
  }
};

// The one host of this process (created on first use, never destroyed: deleters may run late).
// Its ledger is the one the deleter trampolines report to.
HostState& process_host();

}  // namespace dlc
