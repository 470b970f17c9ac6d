// `dlconform matrix`: parse, run (run/session.h), apply suppressions, write the reports, print
// the summary, and exit with the findings' bits.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string_view>

#include "exit_codes.h"
#include "options.h"
#include "report.h"
#include "suppressions.h"

namespace dlc::cli {
namespace {

int usage_error(const std::string& message) {
  std::fprintf(stderr, "dlconform matrix: %s\n%s", message.c_str(), kMatrixUsage);
  return kExitUsage;
}

int run(int argc, char** argv) {
  MatrixCommand o;
  const Parsed parsed = parse_matrix(argc, argv, &o);
  if (parsed.status == ParseStatus::help) {
    std::fputs(kMatrixUsage, stdout);
    return kExitOk;
  }
  if (parsed.status == ParseStatus::error) return usage_error(parsed.message);

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
  for (const std::string& file : o.suppressions) {
    if (!load_suppressions(file, &suppressions, &error)) {
      std::fprintf(stderr, "dlconform matrix: --suppressions: %s\n", error.c_str());
      return kExitHarnessError;
    }
  }
  MatrixFailure failure = MatrixFailure::none;
  if (o.list) {
    std::vector<std::string> ids;
    if (!list_matrix(o.run, &ids, &error, &failure)) {
      std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
      return failure == MatrixFailure::usage ? kExitUsage : kExitHarnessError;
    }
    for (const std::string& id : ids) std::printf("%s\n", id.c_str());
    return kExitOk;
  }

  const bool tty = isatty(STDERR_FILENO) != 0;
  const auto started = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  };
  size_t next_plain = 0;
  double last_tty = -1;
  o.run.started = [&](size_t parties, size_t cases) {
    if (!o.quiet && cases > 0) {
      std::fprintf(stderr, "[matrix] %zu plugins, %zu cases, %d workers\n", parties, cases,
                   o.run.jobs);
    }
  };
  // The progress line counts what the summary counts: known findings (suppressed) apart.
  o.run.known = [&](const CaseResult& r) { return is_suppressed(suppressions, r); };
  o.run.progress = [&](const RunProgress& p) {
    if (o.quiet) return;
    const double t = elapsed();
    if (p.total == 0 && std::string_view(p.stage) == "matrix") return;  // --no-builtin, no plugin
    if (p.total == 0) {  // framework rows: one line per environment
      std::fprintf(stderr, "[%s] %zu cases, %zu unexpected, %zu known, %.1f s\n", p.stage, p.done,
                   p.unexpected, p.known, t);
      return;
    }
    if (tty) {
      if (p.done != p.total && t - last_tty < 0.1) return;
      last_tty = t;
      std::fprintf(stderr, "\r[%s] %zu/%zu cases, %zu unexpected, %zu known, %.0f cases/s   ",
                   p.stage, p.done, p.total, p.unexpected, p.known, t > 0 ? p.done / t : 0.0);
      if (p.done == p.total) std::fputc('\n', stderr);
    } else if (p.done * 10 >= next_plain * p.total || p.done == p.total) {
      if (p.done == p.total && next_plain > 10) return;
      next_plain = p.done * 10 / p.total + 1;
      std::fprintf(stderr, "[%s] %zu/%zu cases, %zu unexpected, %zu known, %.1f s\n", p.stage,
                   p.done, p.total, p.unexpected, p.known, t);
    }
  };
  MatrixRun result;
  if (!run_matrix(o.run, &result, &error, &failure)) {
    std::fprintf(stderr, "dlconform matrix: %s\n", error.c_str());
    return failure == MatrixFailure::usage ? kExitUsage : kExitHarnessError;
  }
  std::vector<CaseResult>& results = result.results;
  const size_t known = apply_suppressions(suppressions, results);
  result.info.suppressions = suppression_uses(suppressions, results);
  for (const auto& [format, path] : o.reports) {
    const std::string content =
        format == "json"                  ? render_json(result.info, results)
        : format == "junit"               ? render_junit(result.info, results)
        : format == "markdown"            ? render_markdown(result.info, results)
        : format == "frameworks-markdown" ? render_frameworks_markdown(result.info, results)
                                          : render_html(result.info, results);
    if (content.empty() || !write_file_atomic(path, content, &error)) {
      std::fprintf(stderr, "dlconform matrix: %s\n",
                   content.empty() ? ("cannot render the " + format + " report").c_str()
                                   : error.c_str());
      return kExitHarnessError;
    }
  }

  std::map<std::string, std::pair<size_t, size_t>> by_scenario;  // as expected, total
  std::map<std::string, size_t> unavailable;  // reason -> cases skipped for it
  size_t unexpected = 0, must_level = 0, hardening = 0, hardening_findings = 0;
  for (const CaseResult& r : results) {
    if (r.unavailable) ++unavailable[r.detail];
    hardening_findings += r.hardening ? 1 : 0;
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
    // A hardening finding is no conformance finding: counted apart, whatever its severity.
    if (r.hardening) {
      ++hardening;
    } else if (severity_of_case(r) == Severity::must) {
      ++must_level;
    }
    if (o.verbose || unexpected <= 20) {
      std::fprintf(stderr, "UNEXPECTED %s: %s (expected %s) %s%s%s%s\n", r.id.c_str(),
                   to_string(r.verdict), to_string(r.expected), r.finding_class.c_str(),
                   r.rule_id.empty() ? "" : " [", r.rule_id.c_str(), r.rule_id.empty() ? "" : "]");
      if (!r.detail.empty()) std::fprintf(stderr, "    %s\n", r.detail.c_str());
    }
  }
  if (unexpected > 20 && !o.verbose) {
    std::fprintf(stderr, "... and %zu more unexpected cases (--verbose lists them all)\n",
                 unexpected - 20);
  }
  // Even with --quiet: the file needs attention.
  for (const SuppressionNotice& n : suppression_notices(suppressions, results)) {
    std::fprintf(stderr, "dlconform matrix: %s\n", n.text.c_str());
  }
  if (!o.quiet) {
    std::printf(
        "dlconform matrix: %zu cases in %.2f s (%d workers): %zu as expected, %zu known, "
        "%zu unexpected (%zu MUST-level, %zu non-strict, %zu hardening)%s\n",
        results.size(), elapsed(), o.run.jobs, results.size() - unexpected - known, known,
        unexpected, must_level, unexpected - must_level - hardening, hardening,
        o.warn_only ? " [--warn-only]" : "");
    for (const auto& [scenario, counts] : by_scenario) {
      std::printf("  %-12s %5zu / %5zu as expected\n", scenario.c_str(), counts.first,
                  counts.second);
    }
    if (hardening_findings > 0) {
      std::printf("  hardening: %zu findings on tensors no conformant producer makes, %zu of "
                  "them unexpected (exit bit 16)\n",
                  hardening_findings, hardening);
    }
    // Skipped for want of a device, apart from the rest: "as expected" must not hide them.
    for (const auto& [reason, count] : unavailable) {
      std::printf("  skipped here: %zu cases, a party cannot run on this machine: %s\n", count,
                  reason.c_str());
    }
    for (const std::string& note : result.info.notes) std::printf("  note: %s\n", note.c_str());
    for (const auto& [format, path] : o.reports) {
      std::printf("  %-9s %s\n", format.c_str(), path.c_str());
    }
  }
  return findings_exit_bits(results, o.warn_only);
}

}  // namespace

int matrix_main(int argc, char** argv) noexcept {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dlconform matrix: internal error: %s\n", e.what());
    return kExitHarnessError;
  } catch (...) {
    std::fprintf(stderr, "dlconform matrix: internal error\n");
    return kExitHarnessError;
  }
}

}  // namespace dlc::cli
