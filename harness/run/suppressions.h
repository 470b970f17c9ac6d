// Suppression files: known findings a team has decided to live with, each with a reason.
//
// One entry per line, fields separated by blanks, '#' starts a comment:
//   RULE    CLASS[,CLASS...]   ROLE      PARTY        [cases=GLOB]   REASON...
//   LIFE-3  deleter-never-called  consumer  my-consumer  https://github.com/org/repo/issues/123
//   LAY-8   crash              consumer  torch@2.13*  cases=pairs/*  aborts on negative strides
// RULE is a rule id of docs/rules.md (FAMILY-N) or '*'. CLASS names the finding classes the entry
// hides (findings.def, comma-separated). ROLE is the role of the party the finding is about:
// producer or consumer. PARTY is a plugin or framework name, a header ("torch-1.13*": a
// framework's header is its name and version), or "name@header", and may be a glob ("planted-*").
// cases=GLOB, optional, narrows the entry to case ids matching the glob. REASON (free text,
// required) says why, preferably with an upstream link. A case is known only when rule, class,
// role and party all match; a suppressed case shows as "known" in every report and never fails
// the run. An entry that matched nothing is reported as stale, and one whose rule, role and party
// match a finding of a class it does not name is an error (the finding stays unexpected).
//
// The old form, RULE PARTY REASON (rule and party only, in either role), still loads, with a
// warning that names the classes and roles it matched, so that a user's file can be rewritten.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "result.h"
#include "rules.h"

namespace dlc {

struct Suppression {
  std::string rule;                  // "LIFE-3", or "*"
  std::vector<std::string> classes;  // finding classes; empty in the old form
  Role role = Role::none;            // producer or consumer; none in the old form (either)
  // ROLE "hardening": the consumer's crash or memory-safety defect on a tensor no conformant
  // producer makes, under the rule the producer broke (harness/run/hardening.h).
  bool hardening = false;
  std::string role_name() const { return hardening ? "hardening" : to_string(role); }
  std::string party;                 // "my-consumer", "torch@1.13", "planted-*"
  std::string cases;                 // a glob over case ids; "" for every case
  std::string reason;                // free text
  int line = 0;                      // 1-based line in its file
  std::string origin;                // the file it came from
  bool old_form() const { return classes.empty(); }

  // What it matched in this run.
  size_t matched = 0;                          // cases it marked known
  std::map<std::string, size_t> matched_classes;  // "CLASS ROLE" -> cases it marked known
  std::vector<std::string> matched_cases;      // their ids, in the run's order
  // Findings of its rule, role and party (and cases glob) whose class it does not name: an
  // error of the entry; those cases stay unexpected. "CLASS" -> count, and the first case id.
  std::map<std::string, size_t> unnamed_classes;
  std::vector<std::string> unnamed_cases;

  // "LAY-8 crash consumer torch@2.13*" (with " cases=GLOB" when it has one); the old form
  // "LAY-8 torch@2.13*".
  std::string label() const;
};

struct Suppressions {
  std::string origin;  // the file's path, for messages
  std::vector<Suppression> entries;
};

// One line per entry that needs attention, for the matrix's stderr and the reports: a stale
// entry, an entry in the old form (what it matched, so that it can be rewritten), an entry that
// met a class it does not name (an error).
struct SuppressionNotice {
  enum class Kind { stale, old_form, unnamed_class } kind;
  std::string text;  // "FILE:LINE: ..."
};

// Parses `text`. On a malformed line returns false with `error` reading
// "ORIGIN:LINE: expected RULE CLASS ROLE PARTY REASON but found ...".
[[nodiscard]] bool parse_suppressions(std::string_view text, const std::string& origin,
                                      Suppressions* out, std::string* error);

// Reads and parses `path`, appending its entries to `out`; false with a one-line error if it
// cannot be read or is malformed.
[[nodiscard]] bool load_suppressions(const std::string& path, Suppressions* out,
                                     std::string* error);

// Marks every case that is not as expected and matches an entry as known (the new form: same
// rule or '*', a named class, the same role, PARTY matching that party's name, header or
// "name@header", and the cases glob; the old form: same rule, PARTY matching either party), and
// records on every entry what it matched. Returns how many cases it marked.
size_t apply_suppressions(Suppressions& suppressions, std::vector<CaseResult>& cases);

// Whether a case that is not as expected matches an entry (what apply_suppressions marks),
// without counting it: the progress line's "known".
[[nodiscard]] bool is_suppressed(const Suppressions& suppressions, const CaseResult& c);

// The first entry for `rule` (or '*') whose PARTY matches `party` in `role` (an old-form entry:
// in either), or nullptr. The fuzzers go on past a known bug of the importer under test; they
// decide before the importer runs, so by rule, whatever class the entry names.
[[nodiscard]] Suppression* find_suppression(Suppressions& suppressions, std::string_view rule,
                                            Role role, const PartyRef& party);

// True if `s` matched no case although the run had its party (in its role), and it is matrix
// evidence: an entry for a party that did not run, or one citing only fuzz inputs ([fuzz: ...]),
// is not.
[[nodiscard]] bool is_stale(const Suppression& s, const std::vector<CaseResult>& cases);

// After apply_suppressions: every entry and what it matched, for the reports.
std::vector<SuppressionUse> suppression_uses(const Suppressions& suppressions,
                                             const std::vector<CaseResult>& cases);

// After apply_suppressions: the entries that need attention, in file order.
std::vector<SuppressionNotice> suppression_notices(const Suppressions& suppressions,
                                                   const std::vector<CaseResult>& cases);

// How severe an unexpected case is, from the rule table (rules.def): a crash, a hang or a case
// with no finding is MUST; otherwise the severity of its class and rule.
Severity severity_of_case(const CaseResult& c);

// The findings' bits of the exit code (exit_codes.h): 8 if a case that is neither as expected nor
// known is MUST-level, 4 if one is SHOULD-level; 0 with `warn_only`.
int findings_exit_bits(const std::vector<CaseResult>& cases, bool warn_only);

}  // namespace dlc
