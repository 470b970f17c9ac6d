// Who allocated what during one exchange (LIFE-5): the producer's deleter must free everything
// the producer allocated for the tensor, and a consumer frees nothing it does not own.
//
// Allocations are attributed to the party whose code runs (phase.h) on the exchange's thread.
// The hooks that feed this are not in this library: the CLI links malloc interposition
// (alloc_hooks.cpp) in a plain build, and the sanitizers' allocation hooks in a sanitized one, so
// uninstrumented plugins are covered either way. Without hooks nothing is recorded.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlc::alloc_track {

struct Summary {
  uint64_t producer_leaked_bytes = 0;
  uint32_t producer_leaked_blocks = 0;
  char leak_site[160] = {};
  uint32_t consumer_foreign_frees = 0;
  uint64_t consumer_foreign_bytes = 0;
  char free_site[160] = {};
};

// Starts recording (clears the table). The exchange's thread is the one that calls this.
void begin_case() noexcept;
// Stops recording; fills `out` (when not null) with what the producer left allocated and what the
// consumer freed that it did not own.
void end_case(Summary* out) noexcept;

// Where a foreign free is reported as it happens, so that a worker that dies afterwards (the
// owner's own free of the same block, under a sanitizer) still has it. Null: nowhere.
void set_live_summary(Summary* summary) noexcept;

// For the hooks: called after an allocation of `size` bytes at `p` by the code at `site`, and
// before a free of `p`. on_free returns false when the free must not happen (a foreign free in a
// plain build: the block stays valid for its owner, which frees it later).
void on_alloc(void* p, size_t size, const void* site) noexcept;
bool on_free(void* p, const void* site, bool can_refuse) noexcept;
bool recording() noexcept;

// An allocation's site inside libc (strdup's malloc) is its caller's: of the stack `frames`
// (innermost first, the hook's own frames before libc's), the first frame past libc's, else
// `site`. Exposed for the tests.
const void* caller_outside_libc(const void* const* frames, int count, const void* site) noexcept;
bool in_libc(const void* site) noexcept;
// Whether a library (its file name: "libcudart.so.13") is a device runtime's, or a tool's injected
// into the process beside it (compute-sanitizer's libsanitizer-*): memory it allocates while a
// producer's call runs is not the producer's leak (LIFE-5).
bool is_runtime_library(const char* file_name) noexcept;

// The path of the loaded object one of whose segments holds `p` ("" for the executable), or
// nullptr when none does (and for nullptr). What dladdr answers first, without its search of the
// object's symbol table (a fifth of a millisecond in libtorch's, once per capsule name judged).
const char* loaded_object_of(const void* p) noexcept;

// Memory that no party allocated but that belongs to the harness (the guard arena's blocks): a
// consumer's free of it is a foreign free too. Must be async-signal-safe and allocation-free.
void set_harness_memory_check(bool (*owned_by_harness)(const void* p)) noexcept;

// Installs the sanitizers' allocation hooks when the build has a sanitizer; a no-op otherwise.
void install_sanitizer_hooks() noexcept;

}  // namespace dlc::alloc_track
