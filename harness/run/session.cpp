#include "session.h"

#include <fnmatch.h>
#include <sys/utsname.h>

#include <chrono>
#include <ctime>
#include <filesystem>

#include "availability.h"
#include "dlc_config.h"
#include "exchange.h"
#include "frameworks.h"
#include "runner.h"

namespace dlc {
namespace {

std::string iso_now() {
  const std::time_t t = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return text;
}

std::string machine_line() {
  utsname u{};
  uname(&u);
  return std::string(u.sysname) + " " + u.release + " " + u.machine + ", " + DLC_COMPILER;
}

std::string roles_of(const LoadedPlugin& p) {
  if (p.is_producer() && p.is_consumer()) return "producer+consumer";
  return p.is_producer() ? "producer" : "consumer";
}

bool plan_filtered(const MatrixConfig& config, bool to_run, std::vector<Participant>* participants,
                   std::vector<CaseDef>* cases, size_t* planned, std::string* error,
                   MatrixFailure* failure) {
  if (!load_participants(config.builtin, config.plugins, participants, error)) {
    *failure = MatrixFailure::harness;
    return false;
  }
  // The workers' template is forked before the plan exists, so that it stays small.
  if (to_run && (!create_plugin_states(*participants, error) ||
                 !probe_availability(*participants, error) ||
                 (config.isolate && !start_worker_template(*participants, error)))) {
    *failure = MatrixFailure::harness;
    return false;
  }
  std::vector<CaseDef> all = plan_matrix(*participants);
  *planned = all.size();
  for (CaseDef& c : all) {
    if (filter_matches(config.filter, c.result.id)) cases->push_back(std::move(c));
  }
  // Framework and library rows come later: a plan of no plugin case is fine beside them.
  const bool other_rows =
      !config.frameworks.empty() || !config.modules.empty() || !config.adapters.empty();
  if (all.empty() && !other_rows) {
    *error = "no cases: the loaded plugins include no producer and consumer to pair";
    *failure = MatrixFailure::usage;
    return false;
  }
  if (cases->empty() && !other_rows) {
    *error = "--filter '" + config.filter + "' matches none of the " + std::to_string(all.size()) +
             " cases";
    *failure = MatrixFailure::usage;
    return false;
  }
  return true;
}

}  // namespace

bool filter_matches(const std::string& filter, const std::string& id) {
  if (filter.empty()) return true;
  if (filter.find_first_of("*?[") != std::string::npos) {
    return fnmatch(filter.c_str(), id.c_str(), 0) == 0;
  }
  return id.find(filter) != std::string::npos;
}

std::vector<std::string> builtin_plugin_dirs() {
  std::error_code ec;
  const auto self = std::filesystem::canonical("/proc/self/exe", ec);
  const auto built = std::filesystem::weakly_canonical(DLC_BUILD_CLI_PATH, ec);
  if (!ec && self == built) {
    return {DLC_BUILD_PRODUCERS_DIR, DLC_BUILD_CONSUMERS_DIR, DLC_BUILD_CUDA_DIR};
  }
  // Installed: PREFIX/bin/dlconform finds PREFIX/<libdir>/dlconform/plugins, wherever PREFIX is
  // now; the configured prefix is the fallback.
  const auto beside = self.parent_path().parent_path() / DLC_PLUGIN_DIR_IN_PREFIX;
  if (!ec && std::filesystem::is_directory(beside, ec)) return {beside.string()};
  return {DLC_INSTALLED_PLUGIN_DIR};
}

bool load_participants(bool builtin, const std::vector<std::string>& extra,
                       std::vector<Participant>* out, std::string* error) {
  auto add = [&](const std::string& path, bool is_builtin) {
    LoadResult r = load_plugin(path);
    if (r.error != LoadError::none) {
      *error = (is_builtin ? "built-in plugin " : "--plugin ") + r.message;
      return false;
    }
    Participant p;
    if (!describe(r.plugin, is_builtin, &p, error)) return false;
    out->push_back(std::move(p));
    return true;
  };
  if (builtin) {
    for (const std::string& dir : builtin_plugin_dirs()) {
      for (const std::string& path : list_builtin_plugins(dir)) {
        if (!add(path, true)) return false;
      }
    }
    if (out->empty()) {
      *error = "no built-in plugins found in " + builtin_plugin_dirs().front();
      return false;
    }
  }
  for (const std::string& path : extra) {
    if (!add(path, false)) return false;
  }
  return true;
}

bool list_matrix(const MatrixConfig& config, std::vector<std::string>* ids, std::string* error,
                 MatrixFailure* failure) {
  std::vector<Participant> participants;
  std::vector<CaseDef> cases;
  size_t planned = 0;
  if (!plan_filtered(config, false, &participants, &cases, &planned, error, failure)) return false;
  for (const CaseDef& c : cases) ids->push_back(c.result.id);
  return true;
}

bool run_matrix(const MatrixConfig& config, MatrixRun* out, std::string* error,
                MatrixFailure* failure) {
  *failure = MatrixFailure::none;
  // A framework environment that does not exist stops the run before anything runs.
  if (!check_framework_envs(config.frameworks, error)) {
    *failure = MatrixFailure::harness;
    return false;
  }
  LibraryRun libraries{config.modules, config.adapters, config.python};
  if (!check_library_run(&libraries, error)) {
    *failure = MatrixFailure::harness;
    return false;
  }
  std::vector<Participant> participants;
  std::vector<CaseDef> cases;
  std::chrono::steady_clock::time_point started;
  bool ran = false;
  FrameworkRows framework_rows;
  {
    // The framework drivers start first: their interpreters import (10 to 20 s) while the
    // plugins load and the mocks' workers run, and their records are read once those are done.
    // A run that fails before then stops them (FrameworkRows' destructor).
    if (!config.frameworks.empty() &&
        !framework_rows.start(config.frameworks, builtin_plugin_dirs().front(),
                              config.timeout_seconds, config.filter, error)) {
      *failure = MatrixFailure::harness;
      return false;
    }
    // plan_filtered starts the worker template; it serves this run only, whatever way it ends.
    const WorkerTemplateStopper stop_template;
    if (!plan_filtered(config, true, &participants, &cases, &out->planned, error, failure)) {
      return false;
    }
    if (config.started) config.started(participants.size(), cases.size());
    started = std::chrono::steady_clock::now();
    RunnerOptions ro;
    ro.jobs = config.jobs;
    ro.case_timeout_seconds = config.timeout_seconds;
    ro.isolate = config.isolate;
    ro.progress = config.progress;
    ro.known = config.known;
    ran = run_cases(participants, cases, ro, error);
  }
  if (!ran) {
    *failure = MatrixFailure::harness;
    return false;
  }
  RunInfo& info = out->info;
  info.tool_version = DLC_VERSION;
  info.details = config.run_details;
  info.jobs = config.jobs;
  for (const Participant& p : participants) {
    info.parties.push_back(
        PartyInfo{p.label, roles_of(p.plugin), p.profile.summary(), p.plugin.path, p.builtin});
  }
  out->results.reserve(cases.size());
  for (CaseDef& c : cases) {
    c.result.unavailable = c.unavailable_party >= 0;
    out->results.push_back(std::move(c.result));
  }
  if (!config.frameworks.empty()) {
    std::vector<CaseResult> framework_cases;
    RunProgress p{"frameworks", 0, 0, 0, 0};
    size_t counted = 0;
    auto env_done = [&](const std::string&) {
      for (; counted < framework_cases.size(); ++counted) {
        if (filter_matches(config.filter, framework_cases[counted].id)) {
          p.tally(framework_cases[counted], config.known);
        }
      }
      if (config.progress) config.progress(p);
    };
    if (!framework_rows.finish(&framework_cases, &info, error, env_done)) {
      *failure = MatrixFailure::harness;
      return false;
    }
    for (CaseResult& r : framework_cases) {
      if (filter_matches(config.filter, r.id)) out->results.push_back(std::move(r));
    }
  }
  if (!libraries.modules.empty() || !libraries.adapters.empty()) {
    std::vector<CaseResult> library_cases;
    if (!run_library_cases(libraries, builtin_plugin_dirs().front(), config.timeout_seconds,
                           config.filter, &library_cases, &info, error)) {
      *failure = MatrixFailure::harness;
      return false;
    }
    RunProgress p{"libraries", 0, 0, 0, 0};
    for (CaseResult& r : library_cases) {
      if (!filter_matches(config.filter, r.id)) continue;
      p.tally(r, config.known);
      out->results.push_back(std::move(r));
    }
    if (config.progress) config.progress(p);
  }
  if (config.run_details) {
    info.started_at = iso_now();
    info.machine = machine_line();
    info.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  return true;
}

}  // namespace dlc
