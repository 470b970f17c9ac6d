// The run API behind `dlconform matrix`: load the parties, plan, run every case in isolated
// workers, add the framework rows, and hand back the results with the run's description. The
// command line (cli/) parses options into a MatrixConfig; reports are written by report/.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "plan.h"
#include "result.h"
#include "runner.h"

namespace dlc {

struct MatrixConfig {
  std::vector<std::string> plugins;  // external plugin paths
  bool builtin = true;
  std::string filter;                // substring or glob over case ids
  int jobs = 2;
  double timeout_seconds = 10.0;
  bool isolate = true;
  std::vector<std::string> frameworks;  // framework environments (see frameworks.h)
  std::vector<std::string> modules;     // libraries judged by name: NAME[=PROFILE]
  std::vector<std::string> adapters;    // Python adapter files (frameworks.h, LibraryRun)
  std::string python;                   // their interpreter; "" -> $DLCONFORM_PYTHON, python3
  bool run_details = false;             // record time, machine and paths in RunInfo
  // Called with the counts so far while cases run, then after each framework environment.
  std::function<void(const RunProgress&)> progress;
  // A finding listed as known (suppressions): the progress counts it apart from the unexpected.
  std::function<bool(const CaseResult&)> known;
  // Called once before the run with (parties, cases).
  std::function<void(size_t, size_t)> started;
};

struct MatrixRun {
  RunInfo info;
  std::vector<CaseResult> results;
  size_t planned = 0;  // cases in the plan before the filter
};

enum class MatrixFailure { none, harness, usage };

// Runs the matrix. On failure returns false with a one-line `error` and what kind it was.
[[nodiscard]] bool run_matrix(const MatrixConfig& config, MatrixRun* out, std::string* error,
                              MatrixFailure* failure);

// The ids the run would execute, for --list.
[[nodiscard]] bool list_matrix(const MatrixConfig& config, std::vector<std::string>* ids,
                               std::string* error, MatrixFailure* failure);

// Where the built-in plugins live: the build tree when run from it, else the install prefix.
std::vector<std::string> builtin_plugin_dirs();

// Loads every built-in plugin (and `extra` paths) as participants. False, with a one-line
// message, if one cannot be loaded, has a malformed profile, or none is found.
[[nodiscard]] bool load_participants(bool builtin, const std::vector<std::string>& extra,
                                     std::vector<Participant>* out, std::string* error);

bool filter_matches(const std::string& filter, const std::string& id);

}  // namespace dlc
