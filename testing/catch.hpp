// One include for Catch2 v2 (Debian 12) and v3 (the GPU machine).
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define DLC_CATCH_V3 1
#else
#include <catch2/catch.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dlc_testing {

// CI sets CI=true: there, a test's subject (a framework, a library) must be present.
inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::strcmp(ci, "true") == 0;
}

}  // namespace dlc_testing

// A test whose subject is missing skips visibly: Catch2 v3's SKIP, or under v2 meson's skip
// exit code 77 (such a test case runs alone in its meson test). Under CI it fails instead.
#if defined(DLC_CATCH_V3)
#define DLC_SKIP(why)                                  \
  do {                                                 \
    if (dlc_testing::in_ci()) FAIL("missing in CI: " << why); \
    SKIP(why);                                         \
  } while (0)
#else
#define DLC_SKIP(why)                                                   \
  do {                                                                  \
    if (dlc_testing::in_ci()) FAIL("missing in CI: " << why);           \
    std::printf("SKIP: %s\n", std::string(why).c_str());                \
    std::fflush(stdout);                                                \
    std::_Exit(77);                                                     \
  } while (0)
#endif
