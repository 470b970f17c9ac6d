// The compatibility report: JSON (one record per case), Markdown (for CI summaries), a
// self-contained HTML page (coloured grids with drill-down), and JUnit XML (for CI test tabs).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace dlc {

// Writes `path` atomically: a temporary file beside it, then rename(). On failure nothing is
// left behind and `error` reads "cannot write report PATH: <reason>".
[[nodiscard]] bool write_file_atomic(const std::string& path, std::string_view content,
                                     std::string* error);

// A JSON string literal for `raw`: quotes, escapes, invalid UTF-8 replaced by U+FFFD.
std::string json_string(std::string_view raw);

std::string render_json(const RunInfo& info, const std::vector<CaseResult>& cases);
std::string render_markdown(const RunInfo& info, const std::vector<CaseResult>& cases);
std::string render_html(const RunInfo& info, const std::vector<CaseResult>& cases);
std::string render_junit(const RunInfo& info, const std::vector<CaseResult>& cases);

// One cell of a scenario grid: every case of (scenario, producer header, consumer header).
struct Cell {
  std::string scenario, producer_header, consumer_header;
  size_t cases = 0, passed = 0, expected_broken = 0, skipped = 0, unexpected = 0, known = 0;
  std::string why;              // one sentence for a broken cell, citing the rule
  std::vector<size_t> members;  // indices into the case vector
  // "pass", "expected-broken", "unexpected", "skip"
  std::string state() const;
};

// Scenarios in report order, and the cells of each, rows and columns in natural version order.
struct Grid {
  std::string scenario;
  std::vector<std::string> rows, columns;
  std::vector<Cell> cells;  // row-major; cells with no cases have cases == 0
};
std::vector<Grid> build_grids(const std::vector<CaseResult>& cases);

}  // namespace dlc
