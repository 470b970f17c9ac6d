#include "guard.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "catch.hpp"

namespace {

// Runs `body` in a child and returns the signal that ended it (0 if it exited normally).
template <class Body>
int signal_of(Body body) {
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);  // the test framework's own handler would report, not die
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

}  // namespace

TEST_CASE("guard: a block ends flush against an inaccessible page", "[unit]") {
  dlc::GuardArena arena;
  auto* p = static_cast<volatile uint8_t*>(arena.alloc(24, 8, DLC_ALLOC_SHAPE));
  REQUIRE(p != nullptr);
  CHECK(signal_of([&] { (void)p[23]; }) == 0);
  CHECK(signal_of([&] { (void)p[24]; }) == SIGSEGV);
}

TEST_CASE("guard: a fault past the end names the buffer and the distance", "[unit]") {
  dlc::GuardArena arena;
  auto* p = static_cast<uint8_t*>(arena.alloc(64, 8, DLC_ALLOC_STRUCT));
  dlc::FaultReport report;
  REQUIRE(arena.classify(reinterpret_cast<uintptr_t>(p + 72), false, false, &report));
  CHECK(std::string(report.finding_class) == "struct-overread");
  CHECK(std::string(report.rule) == "LAY-2");
  CHECK(std::string(report.detail)
            .find("read past the end of a 64-byte struct buffer (at offset 72)") !=
        std::string::npos);
}

TEST_CASE("guard: freed and read-only blocks are attributed", "[unit]") {
  dlc::GuardArena arena;
  auto* data = static_cast<uint8_t*>(arena.alloc(256, 256, DLC_ALLOC_DATA));
  REQUIRE(arena.protect_read_only(data));
  CHECK(signal_of([&] { data[0] = 1; }) == SIGSEGV);
  CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(data); }) == 0);
  dlc::FaultReport report;
  arena.classify(reinterpret_cast<uintptr_t>(data + 4), true, false, &report);
  CHECK(std::string(report.finding_class) == "write-to-read-only");

  auto* shape = static_cast<uint8_t*>(arena.alloc(16, 8, DLC_ALLOC_SHAPE));
  arena.free(shape);
  CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(shape); }) == SIGSEGV);
  dlc::FaultReport freed;
  arena.classify(reinterpret_cast<uintptr_t>(shape), false, false, &freed);
  CHECK(std::string(freed.finding_class) == "use-after-delete");
  CHECK(std::string(freed.rule) == "LIFE-6");
}

TEST_CASE("guard: a device pointer faults on any host access", "[unit]") {
  dlc::GuardArena arena;
  auto* device = static_cast<volatile uint8_t*>(arena.device_poison(256));
  CHECK(signal_of([&] { (void)device[0]; }) == SIGSEGV);
  dlc::FaultReport report;
  arena.classify(reinterpret_cast<uintptr_t>(device + 8), false, false, &report);
  CHECK(std::string(report.finding_class) == "device-pointer-dereferenced");
  CHECK(std::string(report.rule) == "DEV-3");
}

TEST_CASE("guard: a NULL call and a wild pointer are told apart", "[unit]") {
  dlc::GuardArena arena;
  dlc::FaultReport null_call, wild;
  CHECK_FALSE(arena.classify(0, false, true, &null_call));
  CHECK(std::string(null_call.finding_class) == "null-deleter-called");
  CHECK_FALSE(arena.classify(0x1234, false, false, &wild));
  CHECK(std::string(wild.finding_class) == "wild-pointer");
}

TEST_CASE("guard: reset unmaps every block", "[unit]") {
  dlc::GuardArena arena;
  for (int i = 0; i < 100; ++i) REQUIRE(arena.alloc(100, 4, DLC_ALLOC_DATA) != nullptr);
  CHECK(arena.live_blocks() == 100);
  arena.reset();
  CHECK(arena.live_blocks() == 0);
}
