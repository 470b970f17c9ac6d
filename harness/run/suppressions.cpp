#include "suppressions.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "exit_codes.h"
#include "sanitizer_build.h"
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

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t j = std::min(text.find(',', i), text.size());
    out.push_back(text.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The party an entry of the new form names, in the case: the producer or the consumer.
const PartyRef& party_in(Role role, const CaseResult& c) {
  return role == Role::producer ? c.producer : c.consumer;
}

enum class Match { no, yes, unnamed_class };

Match match(const Suppression& s, const CaseResult& c) {
  if (s.rule != "*" && s.rule != c.rule_id) return Match::no;
  if (s.old_form()) {
    return party_matches(s.party, c.producer) || party_matches(s.party, c.consumer) ? Match::yes
                                                                                    : Match::no;
  }
  if (s.role_name() != c.role || !party_matches(s.party, party_in(s.role, c))) {
    return Match::no;
  }
  if (!s.cases.empty() && fnmatch(s.cases.c_str(), c.id.c_str(), 0) != 0) return Match::no;
  for (const std::string& cls : s.classes) {
    if (cls == c.finding_class) return Match::yes;
  }
  return Match::unnamed_class;
}

std::string where(const Suppression& s) { return s.origin + ":" + std::to_string(s.line); }

}  // namespace

std::string Suppression::label() const {
  if (old_form()) return rule + " " + party;
  std::string classes_text;
  for (const std::string& c : classes) classes_text += (classes_text.empty() ? "" : ",") + c;
  return rule + " " + classes_text + " " + role_name() + " " + party +
         (cases.empty() ? "" : " cases=" + cases);
}

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
    const std::string at = origin + ":" + std::to_string(number) + ": ";
    if (!is_rule_id(s.rule)) {
      *error = at + "expected a rule id such as LIFE-3 (or *) but found '" + s.rule + "'";
      return false;
    }
    std::string second, third;
    if (!(fields >> second)) {
      *error = at + "expected RULE CLASS ROLE PARTY REASON but found only the rule " + s.rule;
      return false;
    }
    // The new form has a role third; the old one a party second and its reason after it.
    const std::streampos after_second = fields.tellg();
    if ((fields >> third) && (third == "producer" || third == "consumer" || third == "hardening")) {
      // A hardening finding is the consumer's, on a tensor its producer made invalid.
      s.hardening = third == "hardening";
      s.role = s.hardening ? Role::consumer : role_from_name(third);
      for (const std::string& cls : split_commas(second)) {
        if (cls.empty() || class_from_name(cls) == FindingClass::none) {
          *error = at + "expected finding classes of findings.def (deleter-never-called, " +
                   "wrong-data, ...) before the role " + third + " but found '" + cls + "'";
          return false;
        }
        s.classes.push_back(cls);
      }
      if (!(fields >> s.party)) {
        *error = at + "expected a party after " + s.rule + " " + second + " " + third +
                 " but found none";
        return false;
      }
      const std::streampos before_cases = fields.tellg();
      std::string maybe_cases;
      if ((fields >> maybe_cases) && maybe_cases.rfind("cases=", 0) == 0) {
        s.cases = maybe_cases.substr(6);
        if (s.cases.empty()) {
          *error = at + "expected a glob over case ids after cases= but found none";
          return false;
        }
      } else {
        fields.clear();
        fields.seekg(before_cases);
      }
    } else {
      s.party = second;
      fields.clear();
      fields.seekg(after_second);
    }
    std::getline(fields >> std::ws, s.reason);
    while (!s.reason.empty() && std::isspace(static_cast<unsigned char>(s.reason.back()))) {
      s.reason.pop_back();
    }
    if (s.reason.empty()) {
      *error = at + "expected a reason or an upstream link after " + s.label() + " but found none";
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

Suppression* find_suppression(Suppressions& suppressions, std::string_view rule, Role role,
                              const PartyRef& party) {
  for (Suppression& s : suppressions.entries) {
    if (s.rule != "*" && s.rule != rule) continue;
    if ((s.old_form() || s.role == role) && party_matches(s.party, party)) return &s;
  }
  return nullptr;
}

bool is_stale(const Suppression& s, const std::vector<CaseResult>& cases) {
  if (s.matched != 0) return false;
  const bool fuzz_only = s.reason.find("[fuzz: ") != std::string::npos &&
                         s.reason.find("[case: ") == std::string::npos &&
                         s.reason.find("[repro: ") == std::string::npos;
  if (fuzz_only) return false;
  // A defect that shows only under the sanitizers' allocator (a heap overflow the plain allocator
  // leaves unseen) cannot be stale in a build without them.
  if (!DLC_HAS_ASAN && s.reason.find("[sanitizers]") != std::string::npos) return false;
  for (const CaseResult& c : cases) {
    const bool ran = s.old_form() ? party_matches(s.party, c.producer) ||
                                        party_matches(s.party, c.consumer)
                                  : party_matches(s.party, party_in(s.role, c));
    if (ran) return true;
  }
  return false;
}

bool is_suppressed(const Suppressions& suppressions, const CaseResult& c) {
  if (c.as_expected()) return false;
  for (const Suppression& s : suppressions.entries) {
    if (match(s, c) == Match::yes) return true;
  }
  return false;
}

size_t apply_suppressions(Suppressions& suppressions, std::vector<CaseResult>& cases) {
  size_t marked = 0;
  std::vector<Suppression*> unnamed;
  for (CaseResult& c : cases) {
    if (c.as_expected() || c.known) continue;
    // Every entry that matches counts the case, so that two files naming the same release (two
    // framework environments with the same torch) are both in use, not one of them stale.
    unnamed.clear();
    for (Suppression& s : suppressions.entries) {
      switch (match(s, c)) {
        case Match::no:
          break;
        case Match::unnamed_class:
          unnamed.push_back(&s);
          break;
        case Match::yes:
          if (!c.known) {
            c.known_reason = s.reason;
            c.known_by = where(s);
          }
          c.known = true;
          ++s.matched;
          ++s.matched_classes[c.finding_class + " " + (c.role.empty() ? "-" : c.role)];
          s.matched_cases.push_back(c.id);
          break;
      }
    }
    if (c.known) {
      ++marked;
      continue;
    }
    // Unexpected, and an entry of its rule, role and party does not name its class: the
    // entry's error (an entry of the same party that does name it is no error of the others).
    for (Suppression* s : unnamed) {
      ++s->unnamed_classes[c.finding_class + " " + c.role];
      s->unnamed_cases.push_back(c.id);
    }
  }
  return marked;
}

std::vector<SuppressionUse> suppression_uses(const Suppressions& suppressions,
                                             const std::vector<CaseResult>& cases) {
  std::vector<SuppressionUse> out;
  for (const Suppression& s : suppressions.entries) {
    SuppressionUse u;
    u.where = where(s);
    u.entry = s.label();
    u.reason = s.reason;
    u.old_form = s.old_form();
    u.stale = is_stale(s, cases);
    u.matched = s.matched;
    u.classes.assign(s.matched_classes.begin(), s.matched_classes.end());
    u.cases = s.matched_cases;
    u.unnamed.assign(s.unnamed_classes.begin(), s.unnamed_classes.end());
    u.unnamed_cases = s.unnamed_cases;
    out.push_back(std::move(u));
  }
  return out;
}

std::vector<SuppressionNotice> suppression_notices(const Suppressions& suppressions,
                                                   const std::vector<CaseResult>& cases) {
  std::vector<SuppressionNotice> out;
  auto listing = [](const std::map<std::string, size_t>& counts) {
    std::string text;
    for (const auto& [what, n] : counts) {
      text += (text.empty() ? "" : ", ") + what + " (" + std::to_string(n) + ")";
    }
    return text;
  };
  for (const Suppression& s : suppressions.entries) {
    if (is_stale(s, cases)) {
      out.push_back({SuppressionNotice::Kind::stale,
                     where(s) + ": stale suppression: " + s.label() + " matched no case"});
    }
    if (!s.unnamed_classes.empty()) {
      out.push_back({SuppressionNotice::Kind::unnamed_class,
                     where(s) + ": error: " + s.label() + " also meets findings of classes it " +
                         "does not name, which stay unexpected: " + listing(s.unnamed_classes) +
                         ", first " + s.unnamed_cases.front()});
    }
    if (s.old_form() && s.matched > 0) {
      out.push_back({SuppressionNotice::Kind::old_form,
                     where(s) + ": warning: " + s.label() +
                         " is in the old form (rule and party only); it matched " +
                         listing(s.matched_classes) + ": name them (RULE CLASS ROLE PARTY REASON)"});
    }
  }
  return out;
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
    if (c.hardening) {
      bits |= kExitHardening;
      continue;
    }
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
