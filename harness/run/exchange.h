// One exchange, run in the current process: produce, check the producer's handoff, consume,
// release, and hand every fact to the judge. The runner calls this inside forked workers; the
// result goes into a fixed-size record (no heap), which a worker shares with its parent.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "finding.h"
#include "host.h"
#include "phase.h"
#include "plan.h"

namespace dlc {

struct CaseRecord {
  std::atomic<uint8_t> done{0};  // set last, once the record is complete
  Verdict verdict = Verdict::skip;
  FindingClass cls = FindingClass::none;
  Rule rule = Rule::none;
  Role role = Role::none;        // the party the finding is about
  unsigned char phase_party = 0;  // the Party whose code ran last (phase.h's mirror)
  uint32_t micros = 0;
  // From produce()'s return to the consume() call: a device producer's pending write must outlast
  // it, or a consumer that reads without waiting is not caught (STRM-1). 0: no consume() call.
  uint32_t handoff_micros = 0;
  // The outcome settled what the rules expect, where the plan could not know it: a declined wish
  // for a representation the producer does not declare is n/a (skip); immutable data exported
  // to a legacy caller, instead of refused, is allowed with an INFO note (pass).
  bool expectation_settled = false;
  Expectation settled = Expectation::pass;
  char detail[480] = {};
};

// Calls create() on every participant (once per process, before forking).
[[nodiscard]] bool create_plugin_states(std::vector<Participant>& participants, std::string* error);

// Runs `c` and fills `out` (everything but `done`).
void run_exchange(const std::vector<Participant>& participants, const CaseDef& c,
                  CaseRecord* out) noexcept;

// What the fault handler needs to know of the case in flight (async-signal-safe to read).
struct CaseContext {
  bool raw = false;
  bool misaligned = false;
  Rule rule = Rule::none;
};
extern CaseContext g_case_context;

// The role of a Party (phase.h): the party whose code ran.
Role role_of(Party party) noexcept;

// Copies a record into the report's model.
void to_result(const CaseRecord& record, CaseResult* result);

}  // namespace dlc
