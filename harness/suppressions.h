// Suppression files: known findings a team has decided to live with, each with a reason.
//
// One entry per line, fields separated by blanks, '#' starts a comment:
//   RULE   PARTY                  REASON...
//   LIFE-3 my-consumer            https://github.com/org/repo/issues/123
//   LAY-9  torch@1.13             aligned loads only on the copy path; refuses otherwise
// RULE is a rule id of DLPACK_RULES.md (FAMILY-N) or '*'. PARTY is a plugin or framework name,
// a header ("torch-1.13*": a framework's header is its name and version), or "name@header", and
// may be a glob ("planted-*"). REASON (free text, required) says why,
// preferably with an upstream link. A suppressed case shows as "known" in every report and never
// fails the run; an entry that matched nothing is reported as stale.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.h"

namespace dlc {

struct Suppression {
  std::string rule;    // "LIFE-3", or "*"
  std::string party;   // "my-consumer", "torch@1.13", "planted-*"
  std::string reason;  // free text
  int line = 0;        // 1-based line in its file
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

// Reads and parses `path`; false with a one-line error if it cannot be read or is malformed.
[[nodiscard]] bool load_suppressions(const std::string& path, Suppressions* out,
                                     std::string* error);

// Marks every case that is not as expected and matches an entry (same rule, or '*'; the
// producer's or consumer's name, header or "name@header" matches PARTY) as known. Returns how many.
size_t apply_suppressions(Suppressions& suppressions, std::vector<CaseResult>& cases);

// True for the rules DLPACK_RULES.md states as SHOULD or INFO (a non-strict finding): DT-3,
// LAY-7, LAY-9, FLAG-3, FLAG-4. Every other rule, and a finding with no rule (a crash), is MUST.
bool is_non_strict_rule(std::string_view rule);

// The findings' bits of the exit code (see matrix.h): 8 if a case that is neither as expected nor
// known broke a MUST rule, crashed or hung (whatever rule its tensor exercises), 4 if one broke a
// SHOULD/INFO rule; 0 with `warn_only`.
int findings_exit_bits(const std::vector<CaseResult>& cases, bool warn_only);

}  // namespace dlc
