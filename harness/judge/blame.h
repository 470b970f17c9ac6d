// Who a finding is about, for a case whose record did not say: the framework rows, whose Python
// judge reports class and rule only. One function, so that the suppressions and every report
// blame the same party.
#pragma once

#include "result.h"
#include "rules.h"

namespace dlc {

// The role a finding of `c` is about. A party of dlconform's own (dlconform-consumer,
// dlconform-caller) is never the one blamed; otherwise the class's own role (findings.def), and
// for a class that can be either party's: a refusal of the wrong type is the refuser's (STRM-3
// and STRM-4: __dlpack__'s, the producer; DEV-3: the importer's), negotiation and the C exchange
// API are the producer's, and anything else (a crash on import) the consumer's.
Role infer_role(const CaseResult& c) noexcept;

}  // namespace dlc
