// One exchange, run in the current process: produce, check the producer, consume, release, and
// judge the outcome against the DLPack rules. The runner calls this inside forked workers.
#pragma once

#include <vector>

#include "cases.h"
#include "host.h"

namespace dlc {

// The host every plugin in this process was created with.
HostState& process_host();

// The capsule destructor's part (LIFE-2): calls the deleter of a "dltensor" or
// "dltensor_versioned" struct that nobody took; does nothing for a NULL deleter or pointer.
void delete_unclaimed(const DLCHandoff& h);

// Calls create() on every participant (once per process, before forking).
[[nodiscard]] bool create_plugin_states(std::vector<Participant>& participants, std::string* error);

// Runs `c` and fills c.result's verdict, finding class, rule and detail.
void run_exchange(const std::vector<Participant>& participants, CaseDef& c) noexcept;

}  // namespace dlc
