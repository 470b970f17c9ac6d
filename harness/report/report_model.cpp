// Counting, ordering and grid building shared by every report format.
#include "report_model.h"

#include "rules.h"

#include <algorithm>
#include <map>
#include <utility>

namespace dlc::report {
namespace {

constexpr std::string_view kScenarioOrder[] = {"S0",   "S1",           "S2",     "raw", "negotiation",
                                               "edge", "used-capsule", "planted"};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool failed(Verdict v) {
  return v == Verdict::fail || v == Verdict::crash || v == Verdict::timeout;
}

// What went wrong in one case, as the start of a sentence. The detail says it best when the
// case failed as a finding; when the verdict itself is the surprise, say what was expected.
std::string case_reason(const CaseResult& c) {
  const std::string fallback = !c.finding_class.empty() ? c.finding_class : to_string(c.verdict);
  const std::string detail = c.detail.empty() ? std::string() : ": " + c.detail;
  if (c.known) return "suppressed as known: " + (c.detail.empty() ? fallback : c.detail);
  if (c.as_expected()) return c.detail.empty() ? fallback : c.detail;
  if (c.expected == Expectation::broken && c.verdict == Verdict::pass) {
    return "passed, but " +
           (c.expected_class.empty() ? std::string("a failure") : c.expected_class) +
           " was expected" + detail;
  }
  if (c.expected == Expectation::broken && failed(c.verdict)) {
    return "found " + fallback + " where " + c.expected_class + " was expected" + detail;
  }
  if (c.verdict == Verdict::skip) {
    return std::string("skipped where ") + to_string(c.expected) + " was expected" + detail;
  }
  if (c.expected == Expectation::skip) {
    return std::string(to_string(c.verdict)) + " where a skip was expected" + detail;
  }
  return c.detail.empty() ? fallback : c.detail;
}

// Index of the most frequent key, ties going to the key seen first.
template <typename Key>
size_t most_common(const std::vector<Key>& keys, size_t* count) {
  std::map<Key, std::pair<size_t, size_t>> tally;  // key -> (count, first position)
  for (size_t i = 0; i < keys.size(); ++i) {
    auto [it, inserted] = tally.try_emplace(keys[i], 0, i);
    ++it->second.first;
  }
  size_t best = 0, best_count = 0;
  for (const auto& [key, entry] : tally) {
    if (entry.first > best_count || (entry.first == best_count && entry.second < best)) {
      best = entry.second;
      best_count = entry.first;
    }
  }
  *count = best_count;
  return best;
}

void explain(const std::vector<CaseResult>& cases, Cell* cell) {
  const bool unexpected = cell->count(Outcome::unexpected) > 0;
  std::vector<const CaseResult*> candidates;
  for (size_t i : cell->members) {
    const Outcome o = outcome_of(cases[i]);
    if (unexpected ? o == Outcome::unexpected
                   : (o == Outcome::expected_broken || o == Outcome::known)) {
      candidates.push_back(&cases[i]);
    }
  }
  if (candidates.empty()) return;

  std::vector<std::pair<std::string, std::string>> findings;  // (class, rule)
  findings.reserve(candidates.size());
  for (const CaseResult* c : candidates) findings.emplace_back(c->finding_class, c->rule_id);
  size_t count = 0;
  const auto winner = findings[most_common(findings, &count)];
  std::vector<std::string> texts;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (findings[i] == winner) texts.push_back(case_reason(*candidates[i]));
  }
  size_t text_count = 0;
  Cell::Reason& r = cell->reason;
  r.text = texts[most_common(texts, &text_count)];
  r.finding_class = winner.first;
  r.rule_id = winner.second;
  r.count = count;
  r.of = cell->members.size();
  std::sort(findings.begin(), findings.end());
  r.other_findings =
      static_cast<size_t>(std::unique(findings.begin(), findings.end()) - findings.begin()) - 1;
}

int header_group(std::string_view h) {
  if (h.size() > 1 && h[0] == 'v' && is_digit(h[1])) return 0;
  if (h.starts_with("variant-")) return 1;
  return 2;
}

}  // namespace

Outcome outcome_of(const CaseResult& c) {
  if (c.known) return Outcome::known;
  if (!c.as_expected()) return Outcome::unexpected;
  switch (c.expected) {
    case Expectation::pass:
      return Outcome::pass;
    case Expectation::broken:
      return Outcome::expected_broken;
    case Expectation::skip:
      return Outcome::skip;
  }
  return Outcome::unexpected;
}

const char* to_string(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return "pass";
    case Outcome::expected_broken:
      return "expected-broken";
    case Outcome::skip:
      return "skip";
    case Outcome::known:
      return "known";
    case Outcome::unexpected:
      return "unexpected";
  }
  return "?";
}

const char* to_string(CellState s) {
  switch (s) {
    case CellState::empty:
      return "empty";
    case CellState::pass:
      return "pass";
    case CellState::expected_broken:
      return "expected-broken";
    case CellState::unexpected:
      return "unexpected";
    case CellState::skip:
      return "skip";
  }
  return "?";
}

Summary summarise(const std::vector<CaseResult>& cases) {
  Summary s;
  for (const CaseResult& c : cases) {
    const Outcome o = outcome_of(c);
    ++s.cases;
    ++s.by_outcome[static_cast<size_t>(o)];
    ++s.by_verdict[static_cast<size_t>(c.verdict)];
    s.unavailable += c.unavailable ? 1 : 0;
    s.hardening += c.hardening ? 1 : 0;
    s.hardening_unexpected += c.hardening && o == Outcome::unexpected ? 1 : 0;
    if (o == Outcome::known) {
      ++s.known;
      if (c.as_expected()) ++s.known_now_as_expected;
    } else if (o == Outcome::unexpected) {
      ++s.unexpected;
    } else {
      ++s.as_expected;
    }
  }
  return s;
}

std::string verdict_line(const Summary& s) {
  // Cases no machine here could run are said apart: "as expected" must not hide them.
  // Hardening findings are not conformance: said apart, with how many of them are new.
  const std::string hardening =
      s.hardening == 0 ? ""
                       : "; " + std::to_string(s.hardening) + " hardening finding" +
                             (s.hardening == 1 ? "" : "s") + " on invalid tensors (" +
                             std::to_string(s.hardening_unexpected) + " unexpected)";
  const std::string apart =
      (s.unavailable == 0 ? ""
                          : "; " + std::to_string(s.unavailable) +
                                " skipped because a party cannot run on this machine") +
      hardening;
  if (s.unexpected > 0) {
    return std::to_string(s.unexpected) +
           (s.unexpected == 1 ? " unexpected result" : " unexpected results") + apart;
  }
  if (s.known > 0) {
    return "No unexpected results (" + std::to_string(s.as_expected) + " as expected, " +
           std::to_string(s.known) + " known" + apart + ")";
  }
  return "All " + std::to_string(s.cases) + " cases as expected" +
         (apart.empty() ? "" : " (" + apart.substr(2) + ")");
}

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare digit runs by value without converting, so no run can overflow.
      size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      size_t si = i, sj = j;
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      const std::string_view da = a.substr(si, ei - si), db = b.substr(sj, ej - sj);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return a.size() - i < b.size() - j;
  return a < b;  // naturally equal ("v01" and "v1"): any strict, consistent order
}

bool header_less(std::string_view a, std::string_view b) {
  const int ga = header_group(a), gb = header_group(b);
  if (ga != gb) return ga < gb;
  return natural_less(a, b);
}

std::vector<std::string> scenario_order(const std::vector<CaseResult>& cases) {
  std::vector<std::string> known, others;
  for (const CaseResult& c : cases) {
    const bool listed = std::find(std::begin(kScenarioOrder), std::end(kScenarioOrder),
                                  c.scenario) != std::end(kScenarioOrder);
    std::vector<std::string>& into = listed ? known : others;
    if (std::find(into.begin(), into.end(), c.scenario) == into.end()) into.push_back(c.scenario);
  }
  auto rank = [](const std::string& s) {
    return std::find(std::begin(kScenarioOrder), std::end(kScenarioOrder), s) -
           std::begin(kScenarioOrder);
  };
  std::sort(known.begin(), known.end(),
            [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  std::sort(others.begin(), others.end(),
            [](const std::string& a, const std::string& b) { return natural_less(a, b); });
  known.insert(known.end(), others.begin(), others.end());
  return known;
}

const char* scenario_meaning(std::string_view s) {
  if (s == "S0") return "A new (versioned) producer, an old consumer, via the capsule protocol.";
  if (s == "S1") return "An old producer, a new consumer, via the capsule protocol.";
  if (s == "S2") return "Old exchange code rebuilt against a newer header, on either side.";
  if (s == "raw") return "A bare struct pointer with no negotiation: which layouts survive.";
  if (s == "negotiation") return "What each producer answers for each max_version (VER-4).";
  if (s == "edge") return "Semantic edge cases: imported correctly or refused cleanly.";
  if (s == "used-capsule") {
    return "A capsule consumed already, handed again: it must be refused, its deleter left alone "
           "(LIFE-8).";
  }
  if (s == "planted") return "Planted bugs: each must be caught with its finding class.";
  if (s == "native") return "Producer and consumer of the same generation.";
  return "";
}

CellState Cell::state() const {
  if (members.empty()) return CellState::empty;
  if (count(Outcome::unexpected) > 0) return CellState::unexpected;
  if (count(Outcome::expected_broken) + count(Outcome::known) > 0) {
    return CellState::expected_broken;
  }
  if (count(Outcome::pass) > 0) return CellState::pass;
  return CellState::skip;
}

std::string cell_title(const Cell& cell) {
  return cell.producer_header + " → " + cell.consumer_header + " (" + cell.scenario + ")";
}

std::string reason_text(const Cell& cell) {
  const Cell::Reason& r = cell.reason;
  std::string s = r.text;
  // Details often cite their rule already ("producer refused ... (VER-4)"); say it once.
  if (!r.rule_id.empty() && s.find("(" + r.rule_id + ")") == std::string::npos) {
    s += " (" + r.rule_id + ")";
  }
  return s;
}

std::string reason_sentence(const Cell& cell) {
  const Cell::Reason& r = cell.reason;
  if (r.count == 0) return "";
  std::string s = reason_text(cell) + "; ";
  if (!r.finding_class.empty()) s += r.finding_class + " in ";
  s += std::to_string(r.count) + " of " + std::to_string(r.of) + (r.of == 1 ? " case" : " cases");
  if (r.other_findings > 0) {
    s += ", and " + std::to_string(r.other_findings) +
         (r.other_findings == 1 ? " other finding" : " other findings");
  }
  return s;
}

std::vector<Grid> build_grids(const std::vector<CaseResult>& cases) {
  std::map<std::string, std::vector<size_t>> by_scenario;
  for (size_t i = 0; i < cases.size(); ++i) by_scenario[cases[i].scenario].push_back(i);

  std::vector<Grid> grids;
  for (const std::string& scenario : scenario_order(cases)) {
    const std::vector<size_t>& members = by_scenario[scenario];
    Grid g;
    g.scenario = scenario;
    for (size_t i : members) {
      g.rows.push_back(cases[i].producer.header);
      g.columns.push_back(cases[i].consumer.header);
    }
    for (std::vector<std::string>* axis : {&g.rows, &g.columns}) {
      std::sort(axis->begin(), axis->end(),
                [](const std::string& a, const std::string& b) { return header_less(a, b); });
      axis->erase(std::unique(axis->begin(), axis->end()), axis->end());
    }
    std::map<std::string_view, size_t> row_of, column_of;
    for (size_t r = 0; r < g.rows.size(); ++r) row_of[g.rows[r]] = r;
    for (size_t k = 0; k < g.columns.size(); ++k) column_of[g.columns[k]] = k;

    g.cells.resize(g.rows.size() * g.columns.size());
    for (size_t r = 0; r < g.rows.size(); ++r) {
      for (size_t k = 0; k < g.columns.size(); ++k) {
        Cell& cell = g.cells[r * g.columns.size() + k];
        cell.scenario = scenario;
        cell.producer_header = g.rows[r];
        cell.consumer_header = g.columns[k];
      }
    }
    for (size_t i : members) {
      const CaseResult& c = cases[i];
      Cell& cell =
          g.cells[row_of[c.producer.header] * g.columns.size() + column_of[c.consumer.header]];
      cell.members.push_back(i);
      ++cell.by_outcome[static_cast<size_t>(outcome_of(c))];
    }
    for (Cell& cell : g.cells) {
      const CellState state = cell.state();
      if (state == CellState::unexpected || state == CellState::expected_broken) {
        explain(cases, &cell);
      }
    }
    grids.push_back(std::move(g));
  }
  return grids;
}

Refusals refusals_of(const std::string& party_label, const std::vector<CaseResult>& cases) {
  Refusals r;
  const size_t at = party_label.rfind('@');
  const std::string name = party_label.substr(0, at);
  const std::string header = at == std::string::npos ? "" : party_label.substr(at + 1);
  auto is = [&](const PartyRef& p) {
    return p.name == name && (p.header == header || p.header.rfind(header + " ", 0) == 0);
  };
  size_t shown = 0;
  for (const CaseResult& c : cases) {
    const bool producer_refused = is(c.producer) && c.verdict == Verdict::skip &&
                                  c.detail.rfind("producer refused", 0) == 0;
    const bool consumer_refused = is(c.consumer) && c.verdict == Verdict::pass &&
                                  c.detail.rfind("refused cleanly", 0) == 0;
    if (!producer_refused && !consumer_refused) continue;
    ++r.count;
    if (shown < 3 && r.examples.find(c.tensor) == std::string::npos) {
      r.examples += (shown++ ? ", " : "") + c.tensor;
    }
  }
  if (r.count > shown && shown > 0) r.examples += ", ...";
  return r;
}

std::vector<RuleCount> rules_cited(const std::vector<CaseResult>& cases) {
  std::vector<RuleCount> out;
  for (const RuleInfo& info : all_rules()) {
    RuleCount r{info.id, to_string(info.severity), info.summary};
    for (const CaseResult& c : cases) {
      // A hardening finding cites the producer's rule; it has its own table (hardening_rows).
      if (c.rule_id != info.id || c.finding_class.empty() || c.hardening) continue;
      const Outcome o = outcome_of(c);
      if (o == Outcome::unexpected) {
        ++r.unexpected;
      } else if (o == Outcome::expected_broken || o == Outcome::known) {
        ++r.expected;
      } else if (c.verdict == Verdict::pass) {
        ++r.observations;
      }
    }
    if (r.unexpected + r.expected + r.observations > 0) out.push_back(std::move(r));
  }
  return out;
}

std::vector<HardeningRow> hardening_rows(const std::vector<CaseResult>& cases) {
  std::vector<HardeningRow> out;
  for (const CaseResult& c : cases) {
    if (!c.hardening) continue;
    // A framework row's header is its label already ("torch@2.13.0"); a plugin's grid header
    // adds its name after the version ("v1.3 torch-fromDLPack").
    const std::string& h = c.consumer.header;
    const std::string consumer = h.find('@') != std::string::npos
                                     ? h
                                     : c.consumer.name + "@" + h.substr(0, h.find(' '));
    auto row = std::find_if(out.begin(), out.end(), [&](const HardeningRow& r) {
      return r.consumer == consumer && r.rule == c.rule_id && r.cls == c.finding_class;
    });
    if (row == out.end()) {
      out.push_back(HardeningRow{consumer, c.rule_id, c.finding_class, 0, 0, c.id});
      row = out.end() - 1;
    }
    ++row->cases;
    row->unexpected += outcome_of(c) == Outcome::unexpected ? 1 : 0;
  }
  return out;
}

}  // namespace dlc::report
