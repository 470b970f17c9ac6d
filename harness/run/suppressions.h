// Suppression files: known findings a team has decided to live with, each with a reason.
//
// One entry per line, fields separated by blanks, '#' starts a comment:
//   RULE   PARTY                  REASON...
//   LIFE-3 my-consumer            https://github.com/org/repo/issues/123
//   LAY-9  torch@1.13             aligned loads only on the copy path; refuses otherwise
// RULE is a rule id of docs/rules.md (FAMILY-N) or '*'. PARTY is a plugin or framework name,
// a header ("torch-1.13*": a framework's header is its name and version), or "name@header", and
// may be a glob ("planted-*"). REASON (free text, required) says why,
// preferably with an upstream link. A suppressed case shows as "known" in every report and never
// fails the run; an entry that matched nothing is reported as stale.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.h"
#include "rules.h"

namespace dlc {

struct Suppression {
  std::string rule;    // "LIFE-3", or "*"
  std::string party;   // "my-consumer", "torch@1.13", "planted-*"
  std::string reason;  // free text
  int line = 0;        // 1-based line in its file
  std::string origin;  // the file it came from
  size_t matched = 0;  // cases it marked known
};

struct Suppressions {
  std::string origin;  // the file's path, for messages
  std::vector<Suppression> entries;
};

// Parses `text`. On a malformed line returns false with `error` reading
// "ORIGIN:LINE: expected RULE PARTY REASON but found ...".
[[nodiscard]] bool parse_suppressions(std::string_view text, const std::string& origin,
                                      Suppressions* out, std::string* error);

// Reads and parses `path`, appending its entries to `out`; false with a one-line error if it
// cannot be read or is malformed.
[[nodiscard]] bool load_suppressions(const std::string& path, Suppressions* out,
                                     std::string* error);

// Marks every case that is not as expected and matches an entry (same rule, or '*'; the
// producer's or consumer's name, header or "name@header" matches PARTY) as known, and counts it
// on every entry it matches. Returns how many cases it marked.
size_t apply_suppressions(Suppressions& suppressions, std::vector<CaseResult>& cases);

// Whether a case that is not as expected matches an entry (what apply_suppressions marks),
// without counting it: the progress line's "known".
[[nodiscard]] bool is_suppressed(const Suppressions& suppressions, const CaseResult& c);

// The first entry for `rule` (or '*') whose PARTY matches `party`, or nullptr: the fuzzers go on
// past a known finding of the importer under test.
[[nodiscard]] Suppression* find_suppression(Suppressions& suppressions, std::string_view rule,
                                            const PartyRef& party);

// True if `s` matched no case although the run had its party, and it is matrix evidence: an
// entry for a party that did not run, or one citing only fuzz inputs ([fuzz: ...]), is not.
[[nodiscard]] bool is_stale(const Suppression& s, const std::vector<CaseResult>& cases);

// How severe an unexpected case is, from the rule table (rules.def): a crash, a hang or a case
// with no finding is MUST; otherwise the severity of its class and rule.
Severity severity_of_case(const CaseResult& c);

// The findings' bits of the exit code (exit_codes.h): 8 if a case that is neither as expected nor
// known is MUST-level, 4 if one is SHOULD-level; 0 with `warn_only`.
int findings_exit_bits(const std::vector<CaseResult>& cases, bool warn_only);

}  // namespace dlc
