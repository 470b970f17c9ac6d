// A finding: what went wrong (its class), which rule it breaks, and one line of words. Fixed
// size, so that a judge can fill it inside a signal handler and on every case without the heap.
#pragma once

#include "rules.h"
#include "safe_text.h"

namespace dlc {

struct Finding {
  FindingClass cls = FindingClass::none;
  Rule rule = Rule::none;
  char words[480] = {};

  bool any() const noexcept { return cls != FindingClass::none; }
  Severity severity() const noexcept { return severity_of(cls, rule); }
  // An INFO finding is an observation: reported, never a failure.
  bool fails() const noexcept { return any() && severity() != Severity::info; }
  // Sets class and rule (the class's own rule when `r` is none) and returns a writer for the words.
  SafeText set(FindingClass c, Rule r = Rule::none) noexcept {
    cls = c;
    rule = r != Rule::none ? r : info(c).rule;
    return SafeText(words, sizeof words);
  }
  void clear() noexcept {
    cls = FindingClass::none;
    rule = Rule::none;
    words[0] = '\0';
  }
};

}  // namespace dlc
