// Crash-isolated execution of many cases: forked workers claim cases from a shared counter, run
// them in-process, and write each result into a shared, fixed-size record. A worker that dies
// takes only its current case with it (its fault handler writes the finding: which buffer it hit,
// which rule that breaks); a case that runs past the timeout is killed. The parent then starts a
// fresh worker. Workers, the shared mapping and the temporary folder are cleaned up on every path.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plan.h"

namespace dlc {

struct RunnerOptions {
  int jobs = 2;
  double case_timeout_seconds = 5.0;
  bool isolate = true;  // false: run in this process (benchmarks, debugging)
  // Called on the parent with (done, total, unexpected so far).
  std::function<void(size_t, size_t, size_t)> progress;
};

// Runs every case; fills each CaseDef's result. Returns false (with a message) only on a harness
// failure such as fork() failing repeatedly.
[[nodiscard]] bool run_cases(const std::vector<Participant>& participants,
                             std::vector<CaseDef>& cases, const RunnerOptions& options,
                             std::string* error);

}  // namespace dlc
