// Property: none. An empty libFuzzer target, built with the same flags as the others: the exec/s
// ceiling of this machine and build, against which tools/fuzz-bench reports the real targets.
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }
