// Hardening findings (docs/rules.md, "Invalid input is hardening"): a consumer that crashes or
// touches memory it was not handed on a tensor that no conformant producer makes broke no
// sentence. The producer did. The finding is real (a buggy or hostile producer takes the process
// down), and it is reported apart from conformance, under the rule the producer broke, with its
// own exit bit (16) and its own role in a suppression entry ("hardening").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "result.h"
#include "rules.h"

namespace dlc {

// The rule a producer broke to make the catalogue's tensor `name` (the reference validator's first
// violation that no conformant consumer imports, for a consumer of the newest header) with the
// validator's words; Rule::none when a conformant producer can make it, or when `name` names no
// tensor of the catalogue. `name` may carry a prefix ("to_dlpack/shape_overflow_int64").
Rule invalid_tensor_rule(std::string_view name, std::string* words);

// Marks each consumer's memory-safety finding (rules.h is_memory_safety) on such a tensor as a
// hardening finding: role "hardening", its words prefixed with the producer's broken rule. The
// one judgement of validity for the matrix and the framework rows alike.
void mark_hardening(std::vector<CaseResult>& cases);

}  // namespace dlc
