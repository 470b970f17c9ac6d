// The result model shared by the matrix runner and every report writer.
//
// One CaseResult per executed case. A case is one exchange: a producer plugin makes a tensor,
// a consumer plugin imports it, and the harness judges what happened against the DLPack rules.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dlc {

// What happened, judged against the rules.
//  pass:    the exchange behaved as the rules require (imported correctly, or refused cleanly
//           where refusing is allowed).
//  fail:    a finding: wrong data, a deleter called twice or never, an invalid tensor accepted...
//  crash:   the worker died on a signal while running the case.
//  timeout: the case ran past its time limit.
//  skip:    the case does not apply (the producer cannot make this tensor, for example).
enum class Verdict { pass, fail, crash, timeout, skip };

// What we expect of a case.
//  pass:   a conformant pair; anything but pass is a regression.
//  broken: a known incompatibility or a planted bug; fail, crash or timeout all confirm it, and
//          `expected_class` (when set) must match the finding class.
//  skip:   expected not to apply.
enum class Expectation { pass, broken, skip };

const char* to_string(Verdict v);
const char* to_string(Expectation e);

struct PartyRef {
  std::string name;    // plugin name, e.g. "versioned-producer"
  std::string header;  // DLPack header it was built against, e.g. "v1.3", or a framework version
};

struct CaseResult {
  std::string id;  // stable, unique: "S0/versioned-producer@v1.3/legacy-consumer@v0.6/f32_2x3"
  std::string scenario;  // "S0", "S1", "S2", "raw", "negotiation", "edge", "planted"
  PartyRef producer;
  PartyRef consumer;
  std::string tensor;  // name of the tensor spec, e.g. "f32_2x3_strided"
  Verdict verdict = Verdict::skip;
  Expectation expected = Expectation::pass;
  std::string finding_class;   // "" when none; see finding classes in runner docs
  std::string expected_class;  // for planted bugs: the class that must be reported
  std::string expected_rule;   // and the rule
  // and whether it is a hardening finding (a planted bug: caught as one exactly when it says so)
  bool expected_hardening = false;
  std::string rule_id;         // DLPack rule, e.g. "LIFE-3"; "" when none
  // The party the finding is about: "producer" or "consumer" (whose code did it); "" when there is
  // no finding or no party to blame. A suppression entry names it.
  std::string role;
  std::string detail;          // one line: what was observed, "expected X but found Y"
  bool known = false;          // matched a suppression entry
  std::string known_reason;    // the reason of the first entry it matched
  std::string known_by;        // "FILE:LINE" of that entry
  double seconds = 0.0;
  double handoff_seconds = 0.0;  // produce()'s return to the consume() call (exchange.h)
  // An INFO finding on a passing case (an observation, never a failure), or the severity of the
  // finding: "MUST", "SHOULD", "INFO"; "" when there is none.
  std::string severity;
  // A consumer's memory-safety finding on a tensor no conformant producer makes (hardening.h):
  // role "hardening", its own exit bit; the case's rule is the one the producer broke.
  bool hardening = false;
  // Skipped because a party cannot run on this machine (no CUDA device): counted apart in the
  // summary; `detail` gives the party's reason.
  bool unavailable = false;

  // The outcome matches the expectation.
  bool as_expected() const;
};

// Everything a report needs besides the cases.
// A party of the run, for the report's table of parties and their profiles.
struct PartyInfo {
  std::string label;    // "strict-consumer@v1.3", "numpy-2.4.6"
  std::string role;     // "producer", "consumer", "producer+consumer"
  std::string profile;  // Profile::summary()
  std::string path;     // where it was loaded from (shown only with run details)
  bool builtin = true;
};

// A suppression entry and what it matched in the run, for the reports.
struct SuppressionUse {
  std::string where;   // "suppressions/env-frameworks.txt:7"
  std::string entry;   // "LAY-8 crash consumer torch@2.13*"; the old form "LAY-8 torch@2.13*"
  std::string reason;
  bool old_form = false;
  bool stale = false;
  size_t matched = 0;
  std::vector<std::pair<std::string, size_t>> classes;  // "crash consumer" -> cases
  std::vector<std::string> cases;                       // the ids it marked known
  // Findings of its rule, role and party of classes it does not name (an error of the entry).
  std::vector<std::pair<std::string, size_t>> unnamed;
  std::vector<std::string> unnamed_cases;
};

// Everything a report needs besides the cases.
struct RunInfo {
  std::string tool_version;
  // Run details (time, machine, paths) change from run to run: reports carry them only when
  // asked (--run-details), so that a committed report diffs cleanly.
  bool details = false;
  std::string started_at;  // ISO 8601 UTC
  std::string machine;     // uname, compiler
  double wall_seconds = 0.0;
  int jobs = 1;
  std::vector<PartyInfo> parties;
  std::vector<std::string> notes;  // one line each: frameworks not installed, and why
  std::vector<SuppressionUse> suppressions;  // every entry loaded, in file order
};

}  // namespace dlc
