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
    return c.rule_id == "STRM-3" || c.rule_id == "STRM-4" ? Role::producer : Role::consumer;
  }
  if (c.scenario == "negotiation" || c.scenario == "xapi") return Role::producer;
  return Role::consumer;
}

}  // namespace dlc
