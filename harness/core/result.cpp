#include "result.h"

namespace dlc {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "pass";
    case Verdict::fail:
      return "fail";
    case Verdict::crash:
      return "crash";
    case Verdict::timeout:
      return "timeout";
    case Verdict::skip:
      return "skip";
  }
  return "?";
}

const char* to_string(Expectation e) {
  switch (e) {
    case Expectation::pass:
      return "pass";
    case Expectation::broken:
      return "broken";
    case Expectation::skip:
      return "skip";
  }
  return "?";
}

bool CaseResult::as_expected() const {
  switch (expected) {
    case Expectation::pass:
      return verdict == Verdict::pass;
    case Expectation::skip:
      return verdict == Verdict::skip;
    case Expectation::broken:
      return (verdict == Verdict::fail || verdict == Verdict::crash ||
              verdict == Verdict::timeout) &&
             (expected_class.empty() || expected_class == finding_class) &&
             (expected_rule.empty() || expected_rule == rule_id) &&
             (expected_class.empty() || expected_hardening == hardening);
  }
  return false;
}

}  // namespace dlc
