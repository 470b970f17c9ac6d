#include "suppressions.h"

#include <fnmatch.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "exit_codes.h"
#include "rules.h"

namespace dlc {
namespace {

// A rule id of the rule table (LIFE-3, LAY-10, FLAG-1b), or '*'.
bool is_rule_id(std::string_view rule) { return rule == "*" || rule_from_id(rule) != Rule::none; }

bool party_matches(const std::string& pattern, const PartyRef& party) {
  const std::string full = party.name + "@" + party.header;
  return fnmatch(pattern.c_str(), party.name.c_str(), 0) == 0 ||
         fnmatch(pattern.c_str(), party.header.c_str(), 0) == 0 ||
         fnmatch(pattern.c_str(), full.c_str(), 0) == 0;
}

}  // namespace

bool parse_suppressions(std::string_view text, const std::string& origin, Suppressions* out,
                        std::string* error) {
  out->origin = origin;
  out->entries.clear();
  std::istringstream lines{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    Suppression s;
    s.line = number;
    s.origin = origin;
    if (!(fields >> s.rule)) continue;  // blank or comment
    const std::string where = origin + ":" + std::to_string(number) + ": ";
    if (!is_rule_id(s.rule)) {
      *error = where + "expected a rule id such as LIFE-3 (or *) but found '" + s.rule + "'";
      return false;
    }
    if (!(fields >> s.party)) {
      *error = where + "expected RULE PARTY REASON but found only the rule " + s.rule;
      return false;
    }
    std::getline(fields >> std::ws, s.reason);
    while (!s.reason.empty() && std::isspace(static_cast<unsigned char>(s.reason.back()))) {
      s.reason.pop_back();
    }
    if (s.reason.empty()) {
      *error = where + "expected a reason or an upstream link after " + s.rule + " " + s.party +
               " but found none";
      return false;
    }
    out->entries.push_back(std::move(s));
  }
  return true;
}

bool load_suppressions(const std::string& path, Suppressions* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read suppression file " + path;
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    *error = "cannot read suppression file " + path;
    return false;
  }
  Suppressions more;
  if (!parse_suppressions(text.str(), path, &more, error)) return false;
  out->origin = out->origin.empty() ? path : out->origin + ", " + path;
  for (Suppression& s : more.entries) out->entries.push_back(std::move(s));
  return true;
}

Suppression* find_suppression(Suppressions& suppressions, std::string_view rule,
                              const PartyRef& party) {
  for (Suppression& s : suppressions.entries) {
    if ((s.rule == "*" || s.rule == rule) && party_matches(s.party, party)) return &s;
  }
  return nullptr;
}

bool is_stale(const Suppression& s, const std::vector<CaseResult>& cases) {
  if (s.matched != 0) return false;
  const bool fuzz_only = s.reason.find("[fuzz: ") != std::string::npos &&
                         s.reason.find("[case: ") == std::string::npos &&
                         s.reason.find("[repro: ") == std::string::npos;
  if (fuzz_only) return false;
  for (const CaseResult& c : cases) {
    if (party_matches(s.party, c.producer) || party_matches(s.party, c.consumer)) return true;
  }
  return false;
}

bool entry_matches(const Suppression& s, const CaseResult& c) {
  const bool rule = s.rule == "*" || s.rule == c.rule_id;
  return rule && (party_matches(s.party, c.producer) || party_matches(s.party, c.consumer));
}

bool is_suppressed(const Suppressions& suppressions, const CaseResult& c) {
  if (c.as_expected()) return false;
  for (const Suppression& s : suppressions.entries) {
    if (entry_matches(s, c)) return true;
  }
  return false;
}

size_t apply_suppressions(Suppressions& suppressions, std::vector<CaseResult>& cases) {
  size_t marked = 0;
  for (CaseResult& c : cases) {
    if (c.as_expected() || c.known) continue;
    // Every entry that matches counts the case, so that two files naming the same release (two
    // framework environments with the same torch) are both in use, not one of them stale.
    for (Suppression& s : suppressions.entries) {
      if (entry_matches(s, c)) {
        if (!c.known) c.known_reason = s.reason;
        c.known = true;
        ++s.matched;
      }
    }
    if (c.known) ++marked;
  }
  return marked;
}

Severity severity_of_case(const CaseResult& c) {
  // A crash or a hang is never acceptable, whatever rule its tensor exercises; nor is a case that
  // no longer shows what it must (a planted bug not caught).
  if (c.verdict == Verdict::crash || c.verdict == Verdict::timeout) return Severity::must;
  if (c.finding_class.empty()) return Severity::must;
  return severity_of(class_from_name(c.finding_class), rule_from_id(c.rule_id));
}

int findings_exit_bits(const std::vector<CaseResult>& cases, bool warn_only) {
  int bits = 0;
  for (const CaseResult& c : cases) {
    if (c.as_expected() || c.known) continue;
    switch (severity_of_case(c)) {
      case Severity::must:
        bits |= kExitIncompatible;
        break;
      case Severity::should:
        bits |= kExitNonStrict;
        break;
      case Severity::info:
        break;
    }
  }
  return warn_only ? 0 : bits;
}

}  // namespace dlc
