// Real frameworks in the matrix: `dlconform matrix --framework ENV` runs python/
// dlconform_frameworks.py in each framework environment's interpreter, through the CPython
// bridge, and adds its cases, parties and notes to the report.
//
// An environment is a pinned requirements file envs/NAME.txt, installed by `tools/dev envs` as a
// virtual environment in $DLCONFORM_ENV_DIR/NAME (default ~/.cache/dlconform/venvs/NAME) with a
// copy of the pins it was made from; `debian` is Debian's own python3-numpy and python3-torch;
// `all` is every envs/*.txt and debian. A missing or stale environment becomes one skipped case
// that says why and names the command that creates it.
//
// The variables an environment's driver needs (the `# environment:` header line of envs/NAME.txt)
// are written resolved by tools/dev into $DIR/.dlconform-environment, one VAR=VALUE a line, and
// prefix the driver's command. $DLCONFORM_ENVS_DIR, when set, is where the pins files are instead
// of the source tree's envs/ (tools/dev latest: re-resolved pins in a scratch folder).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "result.h"

namespace dlc {

struct FrameworkEnv {
  std::string name;
  std::string python;  // the interpreter, "" when unusable
  std::string why;     // why it is unusable
  bool exists = true;  // false: no such environment at all (a typo), which stops the run
  // What the driver's process needs set (from $DIR/.dlconform-environment), in file order.
  std::vector<std::pair<std::string, std::string>> environment;
};

// Reads a .dlconform-environment file's text: one VAR=VALUE a line (VAR a shell identifier, the
// value everything after the first '='), blank lines and lines starting with '#' ignored.
// False, with a one-line `error` naming the line, on anything else.
[[nodiscard]] bool parse_environment_file(std::string_view text,
                                          std::vector<std::pair<std::string, std::string>>* out,
                                          std::string* error);

// The variables as a prefix of a /bin/sh command: "VAR='value' " each, values shell-quoted.
std::string environment_prefix(const std::vector<std::pair<std::string, std::string>>& vars);

// Every environment name `all` stands for, sorted.
std::vector<std::string> all_framework_envs();

// Resolves one environment name.
FrameworkEnv resolve_framework_env(const std::string& name);

// False, with a one-line `error` naming the known ones, if a name is no environment at all.
[[nodiscard]] bool check_framework_envs(const std::vector<std::string>& names, std::string* error);

// Runs the framework cases of each environment and appends them to `out`, their parties and
// notes to `info`. False, with a one-line `error`, when the driver cannot run at all (no bridge
// built) or prints something that is not a record.
// `env_done`, when set, is called after each environment with its name. A name that is no
// environment at all is an error (a typo in a CI file must not pass unseen).
// `filter` (--filter: a glob, else a substring of the case id) is applied by the driver, so that
// cases filtered out never run.
[[nodiscard]] bool run_framework_cases(const std::vector<std::string>& envs,
                                       const std::string& producers_dir, double timeout,
                                       const std::string& filter,
                                       std::vector<CaseResult>* out, RunInfo* info,
                                       std::string* error,
                                       const std::function<void(const std::string&)>& env_done = {});

// The framework rows in two steps, so that their drivers start (an interpreter, the framework
// imports, probes and plan: serial work, seconds each) while the mocks' cases run: start() checks
// the environments and starts the first drivers; finish() runs the rest and collects every
// record, as run_framework_cases does. A run started and not finished is stopped.
struct DriverPool;
class FrameworkRows {
 public:
  FrameworkRows();
  ~FrameworkRows();
  FrameworkRows(const FrameworkRows&) = delete;
  FrameworkRows& operator=(const FrameworkRows&) = delete;
  [[nodiscard]] bool start(const std::vector<std::string>& envs, const std::string& producers_dir,
                           double timeout, const std::string& filter, std::string* error);
  [[nodiscard]] bool finish(std::vector<CaseResult>* out, RunInfo* info, std::string* error,
                            const std::function<void(const std::string&)>& env_done = {});

 private:
  std::unique_ptr<DriverPool> pool_;
};

// Libraries judged by name in one interpreter (--module NAME[=PROFILE], --adapter FILE.py,
// --python PATH): the run's environment is called "module" in case ids.
struct LibraryRun {
  std::vector<std::string> modules;
  std::vector<std::string> adapters;
  std::string python;  // "" -> $DLCONFORM_PYTHON (set by `python -m dlconform`), else python3
};

// Before anything runs: resolves the interpreter and checks that it is CPython 3.9 or later,
// that every profile file parses and every adapter file exists. False with a one-line `error`.
[[nodiscard]] bool check_library_run(LibraryRun* run, std::string* error);

// Runs the driver for the libraries: each as producer and consumer with the mock producers, the
// negotiation table, XAPI where it exists, and pairs with NumPy. A module that does not import,
// or crashes the interpreter at import, is an error naming it.
[[nodiscard]] bool run_library_cases(const LibraryRun& run, const std::string& producers_dir,
                                     double timeout, const std::string& filter,
                                     std::vector<CaseResult>* out, RunInfo* info,
                                     std::string* error);

// Parses one tab-separated `case` record of the driver (without its tag); false if malformed.
[[nodiscard]] bool parse_framework_record(const std::string& line, CaseResult* out);

}  // namespace dlc
