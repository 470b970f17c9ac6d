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
#define DLC_RULE(token, id, severity, tensor, major, minor, binds, summary) token,
#include "rules.def"
#undef DLC_RULE
};

struct RuleInfo {
  Rule rule;
  const char* id;  // "LIFE-3"; "" for Rule::none
  Severity severity;  // its sentence's strength; clauses.def holds sub-clauses of another
  // What a tensor breaking the rule is to a consumer (the validator's weight): must, no
  // conformant consumer imports it; should, a strict consumer refuses it; info, nothing to refuse.
  Severity tensor;
  DLCVersion since;
  // The source sentence binds producers only (DEV-2): a consumer that takes such a tensor and
  // reads it right breaks no text; that is an INFO observation.
  bool producers_only;
  const char* summary;
};

const RuleInfo& info(Rule rule) noexcept;
std::span<const RuleInfo> all_rules() noexcept;  // in the table's order, Rule::none excluded
Rule rule_from_id(std::string_view id) noexcept;  // Rule::none for "" or an unknown id
inline const char* id_of(Rule rule) noexcept { return info(rule).id; }

enum class FindingClass : uint8_t {
#define DLC_CLASS(token, name, rule, severity, role, meaning) token,
#include "findings.def"
#undef DLC_CLASS
};

// The party a finding is about: the one whose code did it, which a suppression entry names.
// none: no party (the harness's own failure), or, in the class table, "the judge says".
enum class Role : uint8_t { none, producer, consumer };
const char* to_string(Role role) noexcept;        // "", "producer", "consumer"
Role role_from_name(std::string_view name) noexcept;  // Role::none for anything else

struct ClassInfo {
  FindingClass cls;
  const char* name;  // "deleter-called-twice"
  Rule rule;         // Rule::none: the finding carries its case's rule
  bool fixed_severity;
  Severity severity;  // when fixed_severity
  Role role;          // Role::none: either party, the judge says which (findings.def: either)
  const char* meaning;
};

const ClassInfo& info(FindingClass cls) noexcept;
std::span<const ClassInfo> all_classes() noexcept;
FindingClass class_from_name(std::string_view name) noexcept;  // none for "" or an unknown name
inline const char* name_of(FindingClass cls) noexcept { return info(cls).name; }

// A memory-safety defect: a read or write outside what was handed over, a second free, a use
// after free, a write to read-only memory, a host read of device memory, a call through a NULL or
// misread pointer, a crash. MUST wherever it is found (findings.def); a consumer's that a
// tensor's content caused, on a tensor no conformant producer makes, is a hardening finding
// (harness/run/hardening.h).
bool is_memory_safety(FindingClass cls) noexcept;

// Whether a fault of `cls` can come of a tensor's content (a read through a wrong shape, a crash,
// a hang), unlike an ownership defect (a second deleter call, a capsule not renamed), which is the
// consumer's whatever the tensor holds. On a tensor no conformant producer makes, a consumer's
// content fault is a hardening finding (docs/rules.md, "Invalid input is hardening").
bool is_content_fault(FindingClass cls) noexcept;

// How severe a finding of `cls` against `rule` is: the rule's sub-clause for that class
// (clauses.def), else the class's fixed severity, else the rule's (a finding with neither is
// MUST: nothing says it is acceptable).
Severity severity_of(FindingClass cls, Rule rule) noexcept;

// A known misreading of a tensor: what a reader that gets one rule wrong reads, so that wrong
// data equal to it is filed under that rule (NULL strides read column-major, LAY-5; packed
// sub-byte bits read highest first, DT-3; lanes ignored, DT-3) and other wrong data under LAY-4.
struct KnownMisreading {
  uint64_t digest = 0;        // the digest of the values so read
  Rule rule = Rule::none;     // the rule the misreading breaks
  const char* expected = "";  // the right reading, after a count: "elements in row-major order"
  const char* misread = "";   // what the reader did: "read them in column-major order"
};

}  // namespace dlc
