// A finding: what went wrong (its class), which rule it breaks, and one line of words. Fixed
// size, so that a judge can fill it inside a signal handler and on every case without the heap.
#pragma once

#include "rules.h"
#include "safe_text.h"

namespace dlc {

struct Finding {
  FindingClass cls = FindingClass::none;
  Rule rule = Rule::none;
  // The party the finding is about: the class's own (findings.def), or for a class that can be
  // either party's (a crash, a stream hand-off, a plugin error) what the judge set after set().
  Role role = Role::none;
  char words[480] = {};

  bool any() const noexcept { return cls != FindingClass::none; }
  Severity severity() const noexcept { return severity_of(cls, rule); }
  // An INFO finding is an observation: reported, never a failure.
  bool fails() const noexcept { return any() && severity() != Severity::info; }
  // Sets class and rule (the class's own rule when `r` is none) and returns a writer for the words.
  SafeText set(FindingClass c, Rule r = Rule::none) noexcept {
    cls = c;
    rule = r != Rule::none ? r : info(c).rule;
    role = info(c).role;
    return SafeText(words, sizeof words);
  }
  void clear() noexcept {
    cls = FindingClass::none;
    rule = Rule::none;
    role = Role::none;
    words[0] = '\0';
  }
};

}  // namespace dlc
