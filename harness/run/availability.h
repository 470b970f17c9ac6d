// Whether a plugin can run on this machine (plugin ABI 3's available() slot: a device and its
// driver), and the start of the device runtime its cases need.
#pragma once

#include <string>
#include <vector>

#include "plan.h"

namespace dlc {

// Asks every plugin with an available() slot whether it can run here, each in a child process
// of its own (a device runtime it starts must not live in a process that forks workers). Sets
// Participant::unavailable to the reason of those that cannot. False only when no child can be
// forked.
[[nodiscard]] bool probe_availability(std::vector<Participant>& participants, std::string* error);

// Asks the available() slot of case `c`'s parties of real device memory in the process that runs
// the case, before it: what the runtime allocates for good there (for CUDA, the driver's load)
// stays out of the case's allocation record. What the runtime's first real call allocates inside
// the case is left out of LIFE-5 by its site (alloc_track). Nothing for a case without such a
// party, or one that cannot run here.
void start_device_runtime(const std::vector<Participant>& participants, const CaseDef& c);

}  // namespace dlc
