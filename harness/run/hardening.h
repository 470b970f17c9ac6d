// Hardening findings (docs/rules.md, "Invalid input is hardening"): a consumer that crashes, touches
// memory it was not handed or hangs on a tensor that no conformant producer makes broke no
// sentence. The producer did. The finding is real (a buggy or hostile producer takes the process
// down), and it is reported apart from conformance, under the rule the producer broke, with its
// own exit bit (16) and its own role in a suppression entry ("hardening").
#pragma once

#include <string>
#include <string_view>

#include "result.h"
#include "rules.h"

namespace dlc {

// The rule a producer of header `producer_header` ("v0.6"; anything else: any header) broke to
// make the catalogue's tensor `name`: the reference validator's first violation that no conformant
// consumer imports, with its words; Rule::none when a conformant producer of that header can make
// it, or when `name` names no tensor of the catalogue. `name` may carry a prefix
// ("utils.dlpack.from_dlpack/dtype_zero_lanes").
Rule invalid_tensor_rule(std::string_view name, std::string_view producer_header,
                         std::string* words);

// Marks a consumer's content fault (rules.h is_content_fault) on such a tensor, or its memory-safety defect on a capsule a
// framework row's __dlpack__ returned consumed already (LIFE-8), as a hardening finding: role
// "hardening", the case's rule the producer's, its words led by what the producer broke. The one judgement of
// validity for the matrix, the framework rows and the libraries alike (the runner and the
// framework rows call it as each case is collected). Returns whether it marked the case.
bool mark_hardening(CaseResult& c);

}  // namespace dlc
