#include "blame.h"

namespace dlc {
namespace {

bool is_ours(const PartyRef& p) { return p.name.rfind("dlconform-", 0) == 0; }

}  // namespace

Role infer_role(const CaseResult& c) noexcept {
  const FindingClass cls = class_from_name(c.finding_class);
  if (c.finding_class.empty()) return Role::none;
  if (is_ours(c.consumer) && !is_ours(c.producer)) return Role::producer;
  if (is_ours(c.producer) && !is_ours(c.consumer)) return Role::consumer;
  if (const Role own = info(cls).role; own != Role::none) return own;
  if (cls == FindingClass::wrong_refusal_exception) {
    // A pair asked for the host (from_dlpack(x, device=cpu), with copy=False or not) refuses in
    // its consumer: the Array API's from_dlpack "must raise BufferError" (STRM-3), or ValueError
    // under copy=False (STRM-4). Elsewhere STRM-3 and STRM-4 are the answer of __dlpack__ to
    // dl_device or copy.
    const std::string_view last = std::string_view(c.id).substr(c.id.rfind('/') + 1);
    const bool host_asked = c.scenario == "pairs" && last.starts_with("device=cpu");
    return (c.rule_id == "STRM-3" || c.rule_id == "STRM-4") && !host_asked ? Role::producer
                                                                          : Role::consumer;
  }
  if (c.scenario == "negotiation" || c.scenario == "xapi") return Role::producer;
  return Role::consumer;
}

}  // namespace dlc
