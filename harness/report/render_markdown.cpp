// The Markdown report, written for a CI job summary: the verdict in the first line, a grid per
// scenario that a person takes in at a glance, a sentence for each broken cell, and the list of
// unexpected cases to start debugging from.
#include "report.h"
#include "report_model.h"
#include "report_text.h"

namespace dlc {
namespace {

using report::CellState;
using report::markdown_escape;

constexpr size_t kMaxUnexpectedRows = 200;

const char* symbol(CellState s) {
  switch (s) {
    case CellState::pass:
      return "✅";
    case CellState::expected_broken:
      return "⚠️";
    case CellState::unexpected:
      return "❌";
    case CellState::skip:
      return "➖";
    case CellState::empty:
      return "";
  }
  return "";
}

void headline(const RunInfo& info, const report::Summary& s, std::string* o) {
  *o += "# dlconform compatibility report\n\n";
  *o += std::string(s.unexpected == 0 ? "✅" : "❌") + " **" + report::verdict_line(s) + ".**";
  *o += "\n\n| cases | as expected | unexpected | known |" +
        std::string(info.details ? " wall time |\n|--:|--:|--:|--:|--:|\n| " : "\n|--:|--:|--:|--:|\n| ");
  *o += std::to_string(s.cases) + " | " + std::to_string(s.as_expected) + " | " +
        std::to_string(s.unexpected) + " | " + std::to_string(s.known) + " |" +
        (info.details ? " " + report::human_duration(info.wall_seconds) + " |" : std::string()) +
        "\n\n";
  std::string run = "dlconform " + info.tool_version;
  if (info.details) {
    run += ", started " + info.started_at + ", " + std::to_string(info.jobs) +
           (info.jobs == 1 ? " worker" : " workers") + ", " + info.machine;
  }
  *o += markdown_escape(run) + ".";
  if (s.known_now_as_expected > 0) {
    *o += " " + std::to_string(s.known_now_as_expected) +
          " suppressed cases now behave as expected: their suppressions can go.";
  }
  *o +=
      "\n\n✅ every case passed · ⚠️ known incompatibility reproduced as expected · "
      "❌ unexpected result · ➖ not applicable (skipped). "
      "Rows: producer header; columns: consumer header.\n";
}

void grid(const report::Grid& g, std::string* o) {
  *o += "\n## " + markdown_escape(g.scenario) + "\n\n";
  if (const char* meaning = report::scenario_meaning(g.scenario); *meaning) {
    *o += std::string(meaning) + "\n\n";
  }
  *o += "| producer ↓ consumer → |";
  for (const std::string& c : g.columns) *o += " " + markdown_escape(c) + " |";
  *o += "\n|---|";
  for (size_t k = 0; k < g.columns.size(); ++k) *o += ":-:|";
  *o += "\n";
  for (size_t r = 0; r < g.rows.size(); ++r) {
    *o += "| **" + markdown_escape(g.rows[r]) + "** |";
    for (size_t k = 0; k < g.columns.size(); ++k) {
      const char* s = symbol(g.at(r, k).state());
      *o += *s ? std::string(" ") + s + " |" : std::string("  |");
    }
    *o += "\n";
  }
  std::string sentences;
  for (const report::Cell& cell : g.cells) {
    if (cell.reason.count == 0) continue;
    sentences += "- " + std::string(symbol(cell.state())) + " **" +
                 markdown_escape(cell.producer_header + " → " + cell.consumer_header) + "** (" +
                 markdown_escape(cell.scenario) +
                 "): " + markdown_escape(report::reason_sentence(cell)) + "\n";
  }
  if (!sentences.empty()) *o += "\n" + sentences;
}

void unexpected_list(const std::vector<CaseResult>& cases, std::string* o) {
  *o += "\n## Unexpected results\n\n";
  size_t total = 0;
  std::string rows;
  for (const CaseResult& c : cases) {
    if (report::outcome_of(c) != report::Outcome::unexpected) continue;
    if (++total > kMaxUnexpectedRows) continue;
    std::string finding = c.finding_class;
    if (!c.expected_class.empty() && c.expected_class != c.finding_class) {
      finding += (finding.empty() ? "" : " ") + std::string("(expected ") + c.expected_class + ")";
    }
    rows += "| " + markdown_escape(c.id) + " | " + to_string(c.verdict) + " | " +
            to_string(c.expected) + " | " + markdown_escape(finding) + " | " +
            markdown_escape(c.rule_id) + " | " + markdown_escape(c.detail) + " |\n";
  }
  if (total == 0) {
    *o += "None: every verdict matched its expectation.\n";
    return;
  }
  *o +=
      "| case | verdict | expected | finding class | rule | detail |\n"
      "|---|---|---|---|---|---|\n" +
      rows;
  if (total > kMaxUnexpectedRows) {
    *o += "\n… and " + std::to_string(total - kMaxUnexpectedRows) +
          " more; the JSON report lists every case.\n";
  }
}

void hardening(const std::vector<CaseResult>& cases, std::string* o) {
  const std::vector<report::HardeningRow> rows = report::hardening_rows(cases);
  if (rows.empty()) return;
  *o += "\n## Hardening findings\n\nA consumer that crashes, touches memory it was not handed "
        "or hangs on a tensor no conformant producer makes broke no sentence: the producer did. "
        "These are not conformance findings; an unexpected one sets exit bit 16 "
        "([docs/rules.md](../docs/rules.md#invalid-input-is-hardening)).\n\n"
        "| consumer | the producer broke | finding class | cases | unexpected | first case |\n"
        "|---|---|---|--:|--:|---|\n";
  for (const report::HardeningRow& r : rows) {
    *o += "| " + markdown_escape(r.consumer) + " | " + r.rule + " | " + markdown_escape(r.cls) +
          " | " + std::to_string(r.cases) + " | " + std::to_string(r.unexpected) + " | " +
          markdown_escape(r.first_case) + " |\n";
  }
}

void parties(const RunInfo& info, const std::vector<CaseResult>& cases, std::string* o) {
  if (info.parties.empty()) return;
  *o += "\n## Parties and their profiles\n\nWhat each party supports: a producer is asked only "
        "for tensors inside its profile (n/a otherwise), and a consumer must import every valid "
        "tensor inside its own.\n\n| party | role | profile | refused |\n|---|---|---|--:|\n";
  for (const PartyInfo& p : info.parties) {
    const report::Refusals r = report::refusals_of(p.label, cases);
    std::string refused = std::to_string(r.count);
    if (!r.examples.empty()) refused += " (" + r.examples + ")";
    *o += "| " + markdown_escape(p.label) + " | " + markdown_escape(p.role) + " | " +
          markdown_escape(p.profile) + " | " + markdown_escape(refused) + " |\n";
  }
}

void rules_cited(const std::vector<CaseResult>& cases, std::string* o) {
  const std::vector<report::RuleCount> rules = report::rules_cited(cases);
  if (rules.empty()) return;
  *o += "\n## Rules cited\n\nEvery rule a finding of this run cites, from "
        "[docs/rules.md](../docs/rules.md), with how severe a violation is.\n\n"
        "| rule | severity | the rule | unexpected | as expected or known | observations |\n"
        "|---|---|---|--:|--:|--:|\n";
  for (const report::RuleCount& r : rules) {
    *o += "| " + r.id + " | " + r.severity + " | " + markdown_escape(r.summary) + " | " +
          std::to_string(r.unexpected) + " | " + std::to_string(r.expected) + " | " +
          std::to_string(r.observations) + " |\n";
  }
}

// Every suppression entry: what it hides (class and role), how many cases, the first of them.
void suppressions(const RunInfo& info, std::string* o) {
  if (info.suppressions.empty()) return;
  *o += "\n## Suppression entries\n\nEvery entry of the suppression files, with the finding "
        "classes (and the role of the party blamed) and the cases it marked known. An entry that "
        "meets a class it does not name is an error: those cases stay unexpected.\n\n"
        "| entry | where | cases | classes matched | first case |\n|---|---|--:|---|---|\n";
  for (const SuppressionUse& u : info.suppressions) {
    const std::string classes = report::matched_classes(u, "❌ not named: ");
    *o += "| " + markdown_escape(u.entry) + " | " + markdown_escape(u.where) + " | " +
          std::to_string(u.matched) + " | " + markdown_escape(classes) + " | " +
          (u.cases.empty() ? "" : markdown_escape(u.cases.front())) + " |\n";
  }
}

void notes(const RunInfo& info, std::string* o) {
  if (info.notes.empty()) return;
  *o += "\n## Notes\n\n";
  for (const std::string& n : info.notes) *o += "- " + markdown_escape(n) + "\n";
}

}  // namespace

std::string render_markdown(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept {
  try {
    std::string o;
    headline(info, report::summarise(cases), &o);
    notes(info, &o);
    for (const report::Grid& g : report::build_grids(cases)) grid(g, &o);
    unexpected_list(cases, &o);
    hardening(cases, &o);
    rules_cited(cases, &o);
    parties(info, cases, &o);
    suppressions(info, &o);
    return o;
  } catch (...) {  // std::bad_alloc: nothing sensible can be written
    return {};
  }
}

}  // namespace dlc
