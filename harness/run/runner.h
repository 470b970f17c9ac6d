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

// How far a run is: cases done of total, those neither as expected nor known, and the known
// findings (a suppression file lists them), as the summary counts them.
struct RunProgress {
  const char* stage = "matrix";  // "matrix", "frameworks" or "libraries"
  size_t done = 0;
  size_t total = 0;  // 0 while unknown (framework rows)
  size_t unexpected = 0;
  size_t known = 0;

  // Counts one finished case as the summary does: a finding `known` names is not unexpected.
  void tally(const CaseResult& r, const std::function<bool(const CaseResult&)>& is_known) {
    ++done;
    if (!r.as_expected()) ++(is_known && is_known(r) ? known : unexpected);
  }
};

struct RunnerOptions {
  int jobs = 2;
  double case_timeout_seconds = 5.0;
  bool isolate = true;  // false: run in this process (benchmarks, debugging)
  // Called on the parent with the counts so far.
  std::function<void(const RunProgress&)> progress;
  // A finding the run's suppression files list as known: counted apart from the unexpected.
  std::function<bool(const CaseResult&)> known;
};

// Forks the worker template: call it once the plugins are loaded and their states created, and
// before the plan is built. run_cases then forks its workers from the template, whose address
// space is a twentieth of what the parent's is by then, which every fork and exit of a worker,
// and of the child a worker forks for a case expected to crash, pays for. Without it (or if it
// dies) run_cases forks from the calling process; so it does when this process already runs
// other threads (a plugin's pool), whose locks a fork now could copy in a taken state.
[[nodiscard]] bool start_worker_template(const std::vector<Participant>& participants,
                                         std::string* error);
void stop_worker_template();
// Stops the worker template when it goes out of scope: on every path out of a run.
class WorkerTemplateStopper {
 public:
  WorkerTemplateStopper() = default;
  WorkerTemplateStopper(const WorkerTemplateStopper&) = delete;
  WorkerTemplateStopper& operator=(const WorkerTemplateStopper&) = delete;
  ~WorkerTemplateStopper() { stop_worker_template(); }
};

// Runs every case; fills each CaseDef's result. Returns false (with a message) only on a harness
// failure such as fork() failing repeatedly.
[[nodiscard]] bool run_cases(const std::vector<Participant>& participants,
                             std::vector<CaseDef>& cases, const RunnerOptions& options,
                             std::string* error);

}  // namespace dlc
