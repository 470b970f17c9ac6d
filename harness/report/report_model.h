// What every report format agrees on: how a case counts, the order of scenarios and headers,
// and the grid of (producer header x consumer header) cells per scenario with the one sentence
// that explains each broken cell. The writers only lay this out.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace dlc::report {

// Where one case counts. Every case lands in exactly one bucket, so the headline adds up.
//  pass:            expected pass, passed.
//  expected_broken: a known incompatibility or planted bug, reproduced as expected.
//  skip:            expected not to apply, and did not.
//  known:           matched a suppression entry (CaseResult::known); never a failure.
//  unexpected:      anything else: a regression, a bug no longer caught, a wrong finding class.
enum class Outcome { pass, expected_broken, skip, known, unexpected };
inline constexpr size_t kOutcomeCount = 5;

Outcome outcome_of(const CaseResult& c);
// "pass", "expected-broken", "skip", "known", "unexpected": also the CSS class names.
const char* to_string(Outcome o);

struct Summary {
  size_t cases = 0;
  size_t as_expected = 0;  // pass + expected_broken + skip
  size_t unexpected = 0;
  size_t known = 0;
  size_t known_now_as_expected = 0;  // suppressed cases that now behave: stale suppressions
  std::array<size_t, kOutcomeCount> by_outcome{};
  std::array<size_t, 5> by_verdict{};  // indexed by Verdict
  size_t unavailable = 0;  // skipped: a party cannot run on this machine (no CUDA device)
  // Hardening findings (harness/run/hardening.h): a consumer's memory-safety defect on a tensor
  // no conformant producer makes, counted apart from conformance; and those not known.
  size_t hardening = 0;
  size_t hardening_unexpected = 0;
};
Summary summarise(const std::vector<CaseResult>& cases);

// The run in one line: "All 8523 cases as expected", "No unexpected results (499 as expected,
// 1 known)" or "5 unexpected results".
std::string verdict_line(const Summary& s);

// Natural order: digit runs compare by value, so "v1.2" < "v1.10" and "numpy-2.1" < "numpy-10".
bool natural_less(std::string_view a, std::string_view b);

// Header order for grid rows and columns: DLPack versions ("v0.6" < ... < "v1.3"), then design
// variants ("variant-a0"...), then anything else (framework versions, "reference"), each group
// in natural order.
bool header_less(std::string_view a, std::string_view b);

// The scenarios present in `cases`, in report order: S0, S1, S2, raw, negotiation, edge,
// planted, then any others in natural order.
std::vector<std::string> scenario_order(const std::vector<CaseResult>& cases);

// One line for a reader who does not know the scenario names; "" for unknown scenarios.
const char* scenario_meaning(std::string_view scenario);

// How a cell reads at a glance.
enum class CellState { empty, pass, expected_broken, unexpected, skip };
const char* to_string(CellState s);  // "empty", "pass", "expected-broken", "unexpected", "skip"

// Every case of one (scenario, producer header, consumer header).
struct Cell {
  std::string scenario, producer_header, consumer_header;
  std::vector<size_t> members;  // indices into the case vector, in input order
  std::array<size_t, kOutcomeCount> by_outcome{};

  // Why a broken cell is broken: the most common (finding class, rule) among its unexpected
  // cases (or, in a cell with none, among its expected-broken and known cases), with the most
  // common detail of that finding. count == 0 for cells that are not broken.
  struct Reason {
    std::string text;  // the finding's detail, or what went wrong when there is no detail
    std::string finding_class;
    std::string rule_id;
    size_t count = 0;           // cases with this finding class and rule
    size_t of = 0;              // cases in the cell
    size_t other_findings = 0;  // distinct other (class, rule) pairs among the candidates
  } reason;

  size_t count(Outcome o) const { return by_outcome[static_cast<size_t>(o)]; }
  CellState state() const;
};

// "v1.3 → v0.6 (raw)": how a cell is named in sentences.
std::string cell_title(const Cell& cell);
// What broke, citing the rule: "deleter at offset 56 is not a deleter (LAY-3)".
std::string reason_text(const Cell& cell);
// The reason as one plain-text sentence: reason_text() and how much of the cell it covers,
// "...; bad-function-pointer in 4 of 4 cases". Writers escape it for their language.
std::string reason_sentence(const Cell& cell);

struct Grid {
  std::string scenario;
  std::vector<std::string> rows;     // producer headers, header_less order
  std::vector<std::string> columns;  // consumer headers, header_less order
  std::vector<Cell> cells;           // row-major, rows.size() * columns.size()

  const Cell& at(size_t row, size_t column) const { return cells[row * columns.size() + column]; }
};

// One grid per scenario, in scenario_order().
std::vector<Grid> build_grids(const std::vector<CaseResult>& cases);

// What a party refused in this run: a producer's refusals to export, a consumer's clean
// refusals to import. `examples`: the first few tensors, comma-separated.
struct Refusals {
  size_t count = 0;
  std::string examples;
};
Refusals refusals_of(const std::string& party_label, const std::vector<CaseResult>& cases);

// Every rule a finding of the run cites, in the rule table's order, with its severity and
// summary from the table, and how its findings counted.
struct RuleCount {
  std::string id, severity, summary;
  size_t unexpected = 0;    // unexpected findings
  size_t expected = 0;      // expected-broken or known findings
  size_t observations = 0;  // INFO findings on passing cases
};
std::vector<RuleCount> rules_cited(const std::vector<CaseResult>& cases);

// The hardening findings of the run (harness/run/hardening.h: a consumer's fault on a tensor no
// conformant producer makes), one row per consumer, rule the producer broke and class, in the
// order first met.
struct HardeningRow {
  std::string consumer;  // "torch@2.13.0"
  std::string rule;      // the rule the producer broke
  std::string cls;       // "crash", "out-of-bounds"
  size_t cases = 0;
  size_t unexpected = 0;  // neither planted nor known
  std::string first_case;
};
std::vector<HardeningRow> hardening_rows(const std::vector<CaseResult>& cases);

}  // namespace dlc::report
