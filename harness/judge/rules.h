// The rule table (rules.def) and the finding classes (findings.def): the one place that says what
// each rule is, how severe a violation is, and which rule each kind of finding breaks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "dlconform/plugin.h"

namespace dlc {

enum class Severity : uint8_t { must, should, info };
const char* to_string(Severity severity) noexcept;  // "MUST", "SHOULD", "INFO"

enum class Rule : uint8_t {
  none = 0,
#define DLC_RULE(token, id, severity, major, minor, summary) token,
#include "rules.def"
#undef DLC_RULE
};

struct RuleInfo {
  Rule rule;
  const char* id;  // "LIFE-3"; "" for Rule::none
  Severity severity;
  DLCVersion since;
  const char* summary;
};

const RuleInfo& info(Rule rule) noexcept;
std::span<const RuleInfo> all_rules() noexcept;  // in the table's order, Rule::none excluded
Rule rule_from_id(std::string_view id) noexcept;  // Rule::none for "" or an unknown id
inline const char* id_of(Rule rule) noexcept { return info(rule).id; }

enum class FindingClass : uint8_t {
#define DLC_CLASS(token, name, rule, severity, meaning) token,
#include "findings.def"
#undef DLC_CLASS
};

struct ClassInfo {
  FindingClass cls;
  const char* name;  // "deleter-called-twice"
  Rule rule;         // Rule::none: the finding carries its case's rule
  bool fixed_severity;
  Severity severity;  // when fixed_severity
  const char* meaning;
};

const ClassInfo& info(FindingClass cls) noexcept;
std::span<const ClassInfo> all_classes() noexcept;
FindingClass class_from_name(std::string_view name) noexcept;  // none for "" or an unknown name
inline const char* name_of(FindingClass cls) noexcept { return info(cls).name; }

// How severe a finding of `cls` against `rule` is: the class's fixed severity, else the rule's
// (a finding with neither is MUST: nothing says it is acceptable).
Severity severity_of(FindingClass cls, Rule rule) noexcept;

}  // namespace dlc
