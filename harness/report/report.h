// The compatibility report: JSON (one record per case, for tools), Markdown (for CI summaries),
// one self-contained HTML page (coloured grids with drill-down), and JUnit XML (for CI test tabs).
//
// All four read the same model (report_model.h): a case is as expected, unexpected, or known
// (suppressed, never a failure), and each scenario is a grid of producer header x consumer header.
// The renderers never throw: they return "" only if memory runs out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace dlc {

// Writes `path` atomically: the content goes to "PATH.tmp.<pid>" beside it, which is flushed
// and renamed over `path`, so a reader sees the old file or the new one, never a mix. An existing
// file keeps its permission bits. On failure the temporary file is removed, `path` is untouched,
// and `*error` (when not null) reads "cannot write report PATH: <strerror>".
[[nodiscard]] bool write_file_atomic(const std::string& path, std::string_view content,
                                     std::string* error) noexcept;

// A JSON string literal for `raw`, quotes included: escapes quotes, backslashes and control
// characters; replaces invalid UTF-8 by U+FFFD. Shared with the layout report.
std::string json_string(std::string_view raw);

// {"tool", "run": {RunInfo}, "summary": {cases, as_expected, unexpected, known, by_verdict},
//  "cases": [{id, scenario, producer {name, header}, consumer {name, header}, tensor, verdict,
//  expected, finding_class, expected_class, rule_id, detail, known, as_expected, seconds}]}.
// Cases keep their input order; one case per line.
std::string render_json(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept;

// A headline, then per scenario a grid of ✅ ⚠️ ❌ ➖ with one sentence per broken cell
// citing its rule, then the unexpected cases (at most 200 rows).
std::string render_markdown(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept;

// One page with inline CSS and JavaScript only (works from file://): headline, a coloured grid per
// scenario whose cells open the list of their cases, and a filter over case ids.
std::string render_html(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept;

// The real-frameworks report (reports/frameworks.md) over the framework scenarios' cases:
// frameworks and their roles, a pair grid per framework environment, the alignment checks, the
// negotiation table, the C exchange API checks, and the findings with their reproducers (from
// the suppression reasons' "[repro: FILE]").
std::string render_frameworks_markdown(const RunInfo& info,
                                       const std::vector<CaseResult>& cases) noexcept;

// <testsuites> with one <testsuite> per scenario and one <testcase> per case: a <failure> when
// not as expected, <skipped/> for skips and for known (suppressed) cases.
std::string render_junit(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept;

}  // namespace dlc
