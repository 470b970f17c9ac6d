// The DLCHost services a plugin borrows (guarded allocation, read-only protection, the deleter
// ledger), bound to one arena and one ledger per process.
#pragma once

#include "device_ledger.h"
#include "dlconform/plugin.h"
#include "guard.h"
#include "ledger.h"

namespace dlc {

struct HostState {
  GuardArena arena;
  DeleterLedger ledger;
  DeviceLedger devices;  // what device runtimes allocated for the case's tensors
  DLCHost table{};
  HostState();
  HostState(const HostState&) = delete;
  HostState& operator=(const HostState&) = delete;
  // Ends a case or a fuzz execution.
  void reset() noexcept {
    arena.reset();
    ledger.reset();
    devices.reset();
  }
};

// What the host knows of a faulting address: the arena's block, else a device-only allocation
// (reported as the data of a tensor on another device, DEV-3). Async-signal-safe.
BlockFacts host_facts(const HostState& host, uintptr_t address) noexcept;

// The one host of this process (created on first use, never destroyed: deleters may run late).
// Its ledger is the one the deleter trampolines report to.
HostState& process_host();

}  // namespace dlc
