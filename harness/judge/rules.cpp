#include "rules.h"

namespace dlc {
namespace {

constexpr RuleInfo kRules[] = {
    {Rule::none, "", Severity::info, {0, 0}, ""},
#define DLC_RULE(token, id, severity, major, minor, summary) \
  {Rule::token, id, Severity::severity, {major, minor}, summary},
#include "rules.def"
#undef DLC_RULE
};

constexpr int kSev_rule = -1, kSev_must = 0, kSev_info = 2;
[[maybe_unused]] constexpr int kSev_should = 1;
constexpr ClassInfo kClasses[] = {
#define DLC_CLASS(token, name, rule_token, severity, meaning)                          \
  {FindingClass::token, name, Rule::rule_token, kSev_##severity != kSev_rule,         \
   static_cast<Severity>(kSev_##severity == kSev_rule ? kSev_must : kSev_##severity), \
   meaning},
#include "findings.def"
#undef DLC_CLASS
};

static_assert(sizeof kRules / sizeof kRules[0] == static_cast<size_t>(Rule::XAPI_5) + 1,
              "one row per Rule");

}  // namespace

const char* to_string(Severity severity) noexcept {
  switch (severity) {
    case Severity::must:
      return "MUST";
    case Severity::should:
      return "SHOULD";
    case Severity::info:
      return "INFO";
  }
  return "?";
}

const RuleInfo& info(Rule r) noexcept { return kRules[static_cast<size_t>(r)]; }
const RuleInfo* rules_begin() noexcept { return kRules + 1; }
const RuleInfo* rules_end() noexcept { return kRules + sizeof kRules / sizeof kRules[0]; }

Rule rule_from_id(std::string_view id) noexcept {
  if (id.empty()) return Rule::none;
  for (const RuleInfo* r = rules_begin(); r != rules_end(); ++r) {
    if (id == r->id) return r->rule;
  }
  return Rule::none;
}

const ClassInfo& info(FindingClass c) noexcept { return kClasses[static_cast<size_t>(c)]; }
const ClassInfo* classes_begin() noexcept { return kClasses; }
const ClassInfo* classes_end() noexcept { return kClasses + sizeof kClasses / sizeof kClasses[0]; }

FindingClass class_from_name(std::string_view name) noexcept {
  for (const ClassInfo* c = classes_begin(); c != classes_end(); ++c) {
    if (name == c->name) return c->cls;
  }
  return FindingClass::none;
}

Severity severity_of(FindingClass cls, Rule r) noexcept {
  const ClassInfo& c = info(cls);
  if (c.fixed_severity) return c.severity;
  if (r == Rule::none) r = c.rule;
  return r == Rule::none ? Severity::must : info(r).severity;
}

}  // namespace dlc
