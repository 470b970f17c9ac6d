#include "matrix.h"

#include <fnmatch.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>

#include "dlc_config.h"
#include "exchange.h"
#include "frameworks.h"
#include "report/report.h"
#include "runner.h"
#include "suppressions.h"

namespace dlc {
namespace {

constexpr const char* kUsage =
    "usage: dlconform matrix [--plugin SO]... [--no-builtin] [--filter PATTERN] [--jobs N]\n"
    "                        [--timeout SECONDS] [--json F] [--junit F] [--markdown F] [--html F]\n"
    "                        [--framework NAME]... [--suppressions F] [--warn-only]\n"
    "                        [--no-isolation] [--list]\n"
    "                        [--quiet | --verbose]\n";

struct Options {
  std::vector<std::string> plugins;
  bool builtin = true;
  std::string filter;
  int jobs = 0;
  double timeout = 10.0;
  std::map<std::string, std::string> reports;  // format -> path
  bool isolate = true;
  bool list = false;
  bool quiet = false;
  bool verbose = false;
  std::string suppressions;  // path, "" for none
  std::vector<std::string> frameworks;  // numpy, torch
  bool warn_only = false;
};

int usage_error(const std::string& message) {
  std::fprintf(stderr, "dlconform matrix: %s\n%s", message.c_str(), kUsage);
  return kExitUsage | kExitHarnessError;
}

bool parse_int(const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || value < min || value > max) return false;
  *out = value;
  return true;
}

// Returns -1 on success, else the exit code.
int parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--plugin" || arg == "--filter" || arg == "--jobs" || arg == "--timeout" ||
        arg == "--json" || arg == "--junit" || arg == "--markdown" || arg == "--html" ||
        arg == "--suppressions" || arg == "--framework") {
      if (!value(&v)) return usage_error("option " + arg + " needs a value");
      if (arg == "--plugin") {
        o->plugins.push_back(v);
      } else if (arg == "--suppressions") {
        o->suppressions = v;
      } else if (arg == "--framework") {
        if (v != "numpy" && v != "torch") {
          return usage_error("expected --framework numpy or torch but found '" + v + "'");
        }
        o->frameworks.push_back(v);
      } else if (arg == "--filter") {
        o->filter = v;
      } else if (arg == "--jobs") {
        long jobs = 0;
        if (!parse_int(v, 1, 64, &jobs)) {
          return usage_error("expected --jobs between 1 and 64 but found '" + v + "'");
        }
        o->jobs = static_cast<int>(jobs);
      } else if (arg == "--timeout") {
        char* end = nullptr;
        o->timeout = std::strtod(v.c_str(), &end);
        if (end == v.c_str() || *end != '\0' || !(o->timeout > 0)) {
          return usage_error("expected --timeout in seconds (> 0) but found '" + v + "'");
        }
      } else {
        o->reports[arg.substr(2)] = v;
      }
    } else if (arg == "--no-builtin") {
      o->builtin = false;
    } else if (arg == "--no-isolation") {
      o->isolate = false;
    } else if (arg == "--list") {
      o->list = true;
    } else if (arg == "--warn-only") {
      o->warn_only = true;
    } else if (arg == "--quiet") {
      o->quiet = true;
    } else if (arg == "--verbose") {
      o->verbose = true;
    } else if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    } else {
      return usage_error("unknown option '" + arg + "'");
    }
  }
  if (o->jobs == 0) {
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = static_cast<int>(std::max(1L, std::min(cores, 16L)));
  }
  return -1;
}

bool matches(const std::string& filter, const std::string& id) {
  if (filter.empty()) return true;
  if (filter.find_first_of("*?[") != std::string::npos) {
    return fnmatch(filter.c_str(), id.c_str(), 0) == 0;
  }
  return id.find(filter) != std::string::npos;
}

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

}  // namespace

std::vector<std::string> builtin_plugin_dirs() {
  std::error_code ec;
  const auto self = std::filesystem::canonical("/proc/self/exe", ec);
  const auto built = std::filesystem::weakly_canonical(DLC_BUILD_CLI_PATH, ec);
  if (!ec && self == built) return {DLC_BUILD_PRODUCERS_DIR, DLC_BUILD_CONSUMERS_DIR};
  // Installed: PREFIX/bin/dlconform finds PREFIX/<libdir>/dlconform/plugins, wherever PREFIX is
  // now; the configured prefix is the fallback.
  const auto beside = self.parent_path().parent_path() / DLC_PLUGIN_DIR_IN_PREFIX;
  if (!ec && std::filesystem::is_directory(beside, ec)) return {beside.string()};
  return {DLC_INSTALLED_PLUGIN_DIR};
}

bool load_builtin_participants(std::vector<Participant>* out, std::string* error) {
  for (const std::string& dir : builtin_plugin_dirs()) {
    for (const std::string& path : list_builtin_plugins(dir)) {
      LoadResult r = load_plugin(path);
      if (r.error != LoadError::none) {
        *error = "built-in plugin " + r.message;
        return false;
      }
      out->push_back(describe(r.plugin, true));
    }
  }
  if (out->empty()) *error = "no built-in plugins found in " + builtin_plugin_dirs().front();
  return !out->empty();
}

int matrix_main(int argc, char** argv) noexcept {
  try {
    Options o;
    if (const int rc = parse(argc, argv, &o); rc >= 0) return rc;

    // Every report path must be writable before hours of work go into it.
    for (const auto& [format, path] : o.reports) {
      std::string error;
      if (!write_file_atomic(path + ".probe", "", &error)) {
        std::fprintf(stderr, "dlconform matrix: --%s: %s\n", format.c_str(), error.c_str());
        return kExitHarnessError;
      }
      std::remove((path + ".probe").c_str());
    }

    std::string error;
    Suppressions suppressions;
    if (!o.suppressions.empty() && !load_suppressions(o.suppressions, &suppressions, &error)) {
      std::fprintf(stderr, "dlconform matrix: --suppressions: %s\n", error.c_str());
      return kExitUsage | kExitHarnessError;
    }

    std::vector<Participant> participants;
    if (o.builtin && !load_builtin_participants(&participants, &error)) {
      std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
      return kExitHarnessError;
    }
    for (const std::string& path : o.plugins) {
      LoadResult r = load_plugin(path);
      if (r.error != LoadError::none) {
        std::fprintf(stderr, "dlconform matrix: --plugin %s\n", r.message.c_str());
        return kExitHarnessError;
      }
      participants.push_back(describe(r.plugin, false));
    }

    std::vector<CaseDef> all = plan_matrix(participants);
    std::vector<CaseDef> cases;
    for (CaseDef& c : all) {
      if (matches(o.filter, c.result.id)) cases.push_back(std::move(c));
    }
    if (all.empty() && o.frameworks.empty()) {
      std::fprintf(stderr,
                   "dlconform matrix: no cases: the loaded plugins include no producer "
                   "and consumer to pair\n");
      return kExitUsage | kExitHarnessError;
    }
    if (cases.empty() && o.frameworks.empty()) {
      std::fprintf(stderr, "dlconform matrix: --filter '%s' matches none of the %zu cases\n",
                   o.filter.c_str(), all.size());
      return kExitUsage | kExitHarnessError;
    }
    if (o.list) {
      for (const CaseDef& c : cases) std::printf("%s\n", c.result.id.c_str());
      return kExitOk;
    }

    if (!create_plugin_states(participants, &error)) {
      std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
      return kExitHarnessError;
    }
    const bool tty = isatty(STDERR_FILENO) != 0;
    const auto started = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    RunnerOptions ro;
    ro.jobs = o.jobs;
    ro.case_timeout_seconds = o.timeout;
    ro.isolate = o.isolate;
    size_t next_plain_report = 0;
    double last_tty = -1;
    ro.progress = [&](size_t done, size_t total, size_t unexpected) {
      if (o.quiet) return;
      const double t = elapsed();
      if (tty) {
        if (done != total && t - last_tty < 0.1) return;
        last_tty = t;
        std::fprintf(stderr, "\r[matrix] %zu/%zu cases, %zu unexpected, %.0f cases/s   ", done,
                     total, unexpected, t > 0 ? done / t : 0.0);
        if (done == total) std::fputc('\n', stderr);
      } else if (done * 10 >= next_plain_report * total || done == total) {
        next_plain_report = done * 10 / total + 1;
        std::fprintf(stderr, "[matrix] %zu/%zu cases, %zu unexpected, %.1f s\n", done, total,
                     unexpected, t);
      }
    };
    if (!o.quiet) {
      std::fprintf(stderr, "[matrix] %zu plugins, %zu cases, %d workers\n", participants.size(),
                   cases.size(), o.jobs);
    }
    if (!run_cases(participants, cases, ro, &error)) {
      std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
      return kExitHarnessError;
    }

    RunInfo info;
    info.tool_version = DLC_VERSION;
    info.started_at = iso_now();
    info.machine = machine_line();
    info.wall_seconds = elapsed();
    info.jobs = o.jobs;
    for (const Participant& p : participants)
      info.plugins.push_back(p.label + " (" + p.plugin.path + ")");
    std::vector<CaseResult> results;
    results.reserve(cases.size());
    for (CaseDef& c : cases) results.push_back(std::move(c.result));
    if (!o.frameworks.empty()) {
      if (!o.quiet) std::fprintf(stderr, "[matrix] framework cases (forked workers)...\n");
      std::vector<CaseResult> framework_cases;
      if (!run_framework_cases(o.frameworks, builtin_plugin_dirs().front(), o.timeout,
                               &framework_cases, &error)) {
        std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
        return kExitHarnessError;
      }
      for (CaseResult& r : framework_cases) {
        if (matches(o.filter, r.id)) results.push_back(std::move(r));
      }
      info.wall_seconds = elapsed();
    }
    const size_t known = apply_suppressions(suppressions, results);

    for (const auto& [format, path] : o.reports) {
      std::string content = format == "json"       ? render_json(info, results)
                            : format == "junit"    ? render_junit(info, results)
                            : format == "markdown" ? render_markdown(info, results)
                                                   : render_html(info, results);
      if (!write_file_atomic(path, content, &error)) {
        std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
        return kExitHarnessError;
      }
    }

    std::map<std::string, std::pair<size_t, size_t>> by_scenario;  // as expected, total
    size_t unexpected = 0, must_level = 0;
    for (const CaseResult& r : results) {
      auto& s = by_scenario[r.scenario];
      ++s.second;
      if (r.as_expected() || r.known) {
        ++s.first;
        if (r.known && o.verbose) {
          std::fprintf(stderr, "KNOWN %s: %s [%s]\n", r.id.c_str(), r.finding_class.c_str(),
                       r.rule_id.c_str());
        }
        continue;
      }
      ++unexpected;
      if (r.verdict == Verdict::crash || r.verdict == Verdict::timeout ||
          !is_non_strict_rule(r.rule_id)) {
        ++must_level;
      }
      if (o.verbose || unexpected <= 20) {
        std::fprintf(stderr, "UNEXPECTED %s: %s (expected %s) %s%s%s%s\n", r.id.c_str(),
                     to_string(r.verdict), to_string(r.expected), r.finding_class.c_str(),
                     r.rule_id.empty() ? "" : " [", r.rule_id.c_str(),
                     r.rule_id.empty() ? "" : "]");
        if (!r.detail.empty()) std::fprintf(stderr, "    %s\n", r.detail.c_str());
      }
    }
    if (unexpected > 20 && !o.verbose) {
      std::fprintf(stderr, "... and %zu more unexpected cases (--verbose lists them all)\n",
                   unexpected - 20);
    }
    for (const Suppression& s : suppressions.entries) {
      if (s.matched == 0) {  // even with --quiet: the file needs attention
        std::fprintf(stderr, "dlconform matrix: %s:%d: stale suppression: %s %s matched no case\n",
                     suppressions.origin.c_str(), s.line, s.rule.c_str(), s.party.c_str());
      }
    }
    if (!o.quiet) {
      std::printf(
          "dlconform matrix: %zu cases in %.2f s (%d workers): %zu as expected, %zu known, "
          "%zu unexpected (%zu MUST-level, %zu non-strict)%s\n",
          results.size(), info.wall_seconds, o.jobs, results.size() - unexpected - known, known,
          unexpected, must_level, unexpected - must_level, o.warn_only ? " [--warn-only]" : "");
      for (const auto& [scenario, counts] : by_scenario) {
        std::printf("  %-12s %5zu / %5zu as expected\n", scenario.c_str(), counts.first,
                    counts.second);
      }
      for (const auto& [format, path] : o.reports)
        std::printf("  %-9s %s\n", format.c_str(), path.c_str());
    }
    return findings_exit_bits(results, o.warn_only);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlconform matrix: internal error: %s\n", e.what());
    return kExitHarnessError;
  } catch (...) {
    std::fprintf(stderr, "dlconform matrix: internal error\n");
    return kExitHarnessError;
  }
}

}  // namespace dlc
