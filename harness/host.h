// The DLCHost services a plugin borrows: guarded allocation and the deleter ledger, bound to
// the arena and ledger of the current worker.
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
  void reset() noexcept {
    arena.reset();
    ledger.reset();
  }
};

}  // namespace dlc
