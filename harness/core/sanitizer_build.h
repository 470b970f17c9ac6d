// What this translation unit is compiled with, in one place: gcc says it with
// __SANITIZE_ADDRESS__, clang with __has_feature. Each macro is 0 or 1.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define DLC_HAS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLC_HAS_ASAN 1
#endif
#endif
#if !defined(DLC_HAS_ASAN)
#define DLC_HAS_ASAN 0
#endif

// ASan or UBSan: the runtime that has a death callback (sanitizer/common_interface_defs.h).
// gcc names no macro for UBSan alone.
#if DLC_HAS_ASAN
#define DLC_HAS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(undefined_behavior_sanitizer)
#define DLC_HAS_SANITIZER 1
#endif
#endif
#if !defined(DLC_HAS_SANITIZER)
#define DLC_HAS_SANITIZER 0
#endif

// No coverage feedback for a function under a fuzzer (clang's -fsanitize-coverage): the
// harness's own loops say nothing of the code under test.
#if defined(__clang__)
#define DLC_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define DLC_NO_COVERAGE
#endif
