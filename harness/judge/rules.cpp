#include "rules.h"

namespace dlc {
namespace {

constexpr bool kBinds_both = false, kBinds_producers = true;
constexpr Severity kTensor_refuse = Severity::must, kTensor_strict = Severity::should,
                   kTensor_none = Severity::info;
constexpr RuleInfo kRules[] = {
    {Rule::none, "", Severity::info, Severity::info, {0, 0}, false, ""},
#define DLC_RULE(token, id, severity, tensor, major, minor, binds, summary) \
  {Rule::token, id, Severity::severity, kTensor_##tensor, {major, minor}, kBinds_##binds, summary},
#include "rules.def"
#undef DLC_RULE
};

constexpr int kSev_rule = -1, kSev_must = 0, kSev_info = 2;
[[maybe_unused]] constexpr int kSev_should = 1;
constexpr Role kRole_producer = Role::producer, kRole_consumer = Role::consumer,
               kRole_either = Role::none;
constexpr ClassInfo kClasses[] = {
#define DLC_CLASS(token, name, rule_token, severity, role, meaning)                    \
  {FindingClass::token, name, Rule::rule_token, kSev_##severity != kSev_rule,         \
   static_cast<Severity>(kSev_##severity == kSev_rule ? kSev_must : kSev_##severity), \
   kRole_##role, meaning},
#include "findings.def"
#undef DLC_CLASS
};

struct Clause {
  Rule rule;
  FindingClass cls;
  Severity severity;
};
constexpr Clause kClauses[] = {
#define DLC_CLAUSE(rule, cls, severity) {Rule::rule, FindingClass::cls, Severity::severity},
#include "clauses.def"
#undef DLC_CLAUSE
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

const char* to_string(Role role) noexcept {
  switch (role) {
    case Role::producer:
      return "producer";
    case Role::consumer:
      return "consumer";
    case Role::none:
      break;
  }
  return "";
}

Role role_from_name(std::string_view name) noexcept {
  return name == "producer" ? Role::producer : name == "consumer" ? Role::consumer : Role::none;
}

const RuleInfo& info(Rule r) noexcept { return kRules[static_cast<size_t>(r)]; }
std::span<const RuleInfo> all_rules() noexcept { return std::span<const RuleInfo>(kRules).subspan(1); }

Rule rule_from_id(std::string_view id) noexcept {
  if (id.empty()) return Rule::none;
  for (const RuleInfo& r : all_rules()) {
    if (id == r.id) return r.rule;
  }
  return Rule::none;
}

const ClassInfo& info(FindingClass c) noexcept { return kClasses[static_cast<size_t>(c)]; }
std::span<const ClassInfo> all_classes() noexcept { return kClasses; }

FindingClass class_from_name(std::string_view name) noexcept {
  for (const ClassInfo& c : all_classes()) {
    if (name == c.name) return c.cls;
  }
  return FindingClass::none;
}

bool is_memory_safety(FindingClass cls) noexcept {
  switch (cls) {
    case FindingClass::deleter_called_twice:
    case FindingClass::destructor_ignores_name:
    case FindingClass::stray_deleter_call:
    case FindingClass::capsule_not_renamed:
    case FindingClass::frees_unowned:
    case FindingClass::use_after_delete:
    case FindingClass::null_deleter_called:
    case FindingClass::struct_overread:
    case FindingClass::future_major_touched:
    case FindingClass::out_of_bounds:
    case FindingClass::write_to_read_only:
    case FindingClass::device_pointer_dereferenced:
    case FindingClass::bad_function_pointer:
    case FindingClass::misaligned_access:
    case FindingClass::memory_corruption:
    case FindingClass::wild_pointer:
    case FindingClass::sanitizer_report:
    case FindingClass::crash:
      return true;
    default:
      return false;
  }
}

bool is_content_fault(FindingClass cls) noexcept {
  switch (cls) {
    case FindingClass::out_of_bounds:
    case FindingClass::wild_pointer:
    case FindingClass::misaligned_access:
    case FindingClass::memory_corruption:
    case FindingClass::sanitizer_report:
    case FindingClass::device_pointer_dereferenced:
    case FindingClass::crash:
    case FindingClass::timeout:
      return true;
    default:
      return false;
  }
}

Severity severity_of(FindingClass cls, Rule r) noexcept {
  const ClassInfo& c = info(cls);
  if (r == Rule::none) r = c.rule;
  for (const Clause& clause : kClauses) {
    if (clause.rule == r && clause.cls == cls) return clause.severity;
  }
  if (c.fixed_severity) return c.severity;
  return r == Rule::none ? Severity::must : info(r).severity;
}

}  // namespace dlc
