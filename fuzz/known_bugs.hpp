// Known bugs of the importer under test ($DLCONFORM_KNOWN) and the forked children that run the
// inputs which have one (known_bugs.cpp), and what the two halves of the harness share for it
// (fuzz_harness.cpp). Internal to the fuzz support library; the targets use fuzz_harness.hpp.
#pragma once

#include "fuzz_harness.hpp"
#include "result.h"

namespace dlc_fuzz {

// ---- known_bugs.cpp

// Reads $DLCONFORM_KNOWN for the plugin under test (all but the $DLCONFORM_KNOWN_EXCEPT rule,
// which a replay of a filed finding must show); one line and exit 1 on a bad file.
void load_known_bugs();
// Whether the importer under test is known to break `rule` (never for Rule::none).
bool is_known(dlc::Rule rule);
// A known bug of the importer under test, said once per rule and process (and counted).
void say_known_once(dlc::Rule rule, const char* lead, const char* words);
// In a child of run_known: the known rule that sent the input there, under which a crash or a
// sanitizer's report is named.
bool in_child();
dlc::Rule child_known_rule();
// In a child: hands the finding to the parent, which judges it, and ends the child before
// libFuzzer's crash file or a sanitizer's exit can follow.
[[noreturn]] void child_stop(const dlc::Finding& f);

// ---- fuzz_harness.cpp

const dlc::PartyRef& under_test();
const TensorInput* current_input();
void set_input_rule(dlc::Rule rule);  // the rule a fault on the current input is named under
void write_stderr(const char* text);  // async-signal-safe
// "dlconform fuzz: CLASS [RULE]: words"; `signal` ("SIGABRT", ...) leads the words.
void print_finding(const dlc::Finding& f, const char* signal = nullptr);
// The MUST rules the current input breaks that bind consumers too (the validator's one judgement
// of validity, known_bug_of's): a content fault on it is a hardening finding, and print_finding
// says so on a line of its own, with the rule the producer broke. None for a valid input.
void set_input_broken(const dlc::Rule* rules, int count);  // at most kMaxEdges kept
// After the words of a finding: the input in one line and the command that replays it.
void print_reproducer();
// A sanitizer stopped the process: its words after the sanitizer's report (or, in a child, the
// finding to the parent).
void on_sanitizer_death();

}  // namespace dlc_fuzz
