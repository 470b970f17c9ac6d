// `dlconform matrix`: load the built-in mocks and any --plugin, plan every case, run them in
// crash-isolated workers, and write the compatibility report.
#pragma once

#include <string>
#include <vector>

#include "cases.h"

namespace dlc {

// Exit codes, a bitmask in the manner of abidiff:
constexpr int kExitOk = 0;            // every case as expected
constexpr int kExitHarnessError = 1;  // bit 0: the harness could not do its job
constexpr int kExitUsage = 2;         // bit 1: bad command line (always with bit 0)
constexpr int kExitNonStrict = 4;     // bit 2: an unexpected finding of a SHOULD/INFO rule
constexpr int kExitIncompatible = 8;  // bit 3: an unexpected finding of a MUST rule, or a crash
// Suppressed (known) findings set no bit; --warn-only reports findings and exits 0 unless the
// harness itself failed.

int matrix_main(int argc, char** argv) noexcept;

// Where the built-in plugins live: the build tree when run from it, else the install prefix.
std::vector<std::string> builtin_plugin_dirs();

// Loads every built-in plugin. False, with a one-line message, if one cannot be loaded or none
// is found.
[[nodiscard]] bool load_builtin_participants(std::vector<Participant>* out, std::string* error);

}  // namespace dlc
