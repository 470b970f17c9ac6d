// One table of exit codes for every command (the matrix, layout, bench, the fuzz targets'
// start-up), a bitmask in the manner of abidiff:
//   0  every case as expected (or suppressed as known, or --warn-only)
//   1  bit 0: the harness could not do its job: an input named on the command line cannot be
//      used (a plugin that does not load, a header that does not compile, an unreadable or
//      malformed suppression or profile file), an unwritable report path, a failed fork
//   3  bits 0 and 1: the command line itself is wrong (an unknown flag, a flag without its value,
//      a value out of range, a filter that matches nothing)
//   4  bit 2: an unexpected finding of a SHOULD rule (non-strict)
//   8  bit 3: an unexpected finding of a MUST rule, a crash or a hang (incompatible)
//  16  bit 4: an unexpected hardening finding: a consumer's crash, out-of-bounds access or hang on
//      a tensor no conformant producer makes (it broke no sentence; the producer did)
// Bits 2, 3 and 4 combine. INFO findings are observations and set no bit.
#pragma once

namespace dlc {

constexpr int kExitOk = 0;
constexpr int kExitHarnessError = 1;
constexpr int kExitUsage = 2 | kExitHarnessError;
constexpr int kExitNonStrict = 4;
constexpr int kExitIncompatible = 8;
constexpr int kExitHardening = 16;

}  // namespace dlc
