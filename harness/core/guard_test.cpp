#include "guard.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <vector>

#include "catch.hpp"
#include "sanitizer_build.h"
#if DLC_HAS_ASAN
#include <sanitizer/asan_interface.h>
#endif

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
  for (size_t size : {size_t{24}, size_t{4096}, size_t{5000}}) {
    auto* p = static_cast<volatile uint8_t*>(arena.alloc(size, 8, DLC_ALLOC_SHAPE));
    REQUIRE(p != nullptr);
    CHECK(signal_of([&] { (void)p[size - 1]; }) == 0);
    CHECK(signal_of([&] { (void)p[size]; }) == SIGSEGV);
  }
}

TEST_CASE("guard: facts about an address name the block, its state and offset", "[unit]") {
  dlc::GuardArena arena;
  auto* p = static_cast<uint8_t*>(arena.alloc(64, 8, DLC_ALLOC_STRUCT));
  arena.tag_struct(p, dlc::abi::StructKind::legacy);
  const dlc::BlockFacts f = arena.facts(reinterpret_cast<uintptr_t>(p + 72));
  REQUIRE(f.found);
  CHECK(f.kind == DLC_ALLOC_STRUCT);
  CHECK(f.struct_kind == dlc::abi::StructKind::legacy);
  CHECK(f.state == dlc::BlockState::live);
  CHECK(f.size == 64);
  CHECK(f.offset == 72);
  CHECK_FALSE(arena.facts(0x1234).found);
}

TEST_CASE("guard: freed, read-only and device blocks are attributed", "[unit]") {
  dlc::GuardArena arena;
  auto* data = static_cast<uint8_t*>(arena.alloc(256, 256, DLC_ALLOC_DATA));
  REQUIRE(arena.protect_read_only(data));
  CHECK(signal_of([&] { data[0] = 1; }) == SIGSEGV);
  CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(data); }) == 0);
  CHECK(arena.facts(reinterpret_cast<uintptr_t>(data + 4)).state == dlc::BlockState::read_only);

  auto* shape = static_cast<uint8_t*>(arena.alloc(16, 8, DLC_ALLOC_SHAPE));
  arena.free(shape);
  CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(shape); }) == SIGSEGV);
  CHECK(arena.facts(reinterpret_cast<uintptr_t>(shape)).state == dlc::BlockState::freed);

  auto* device = static_cast<volatile uint8_t*>(arena.device_poison(256));
  CHECK(signal_of([&] { (void)device[0]; }) == SIGSEGV);
  CHECK(arena.facts(reinterpret_cast<uintptr_t>(device + 8)).state ==
        dlc::BlockState::device_poison);

  auto* nothing = static_cast<volatile uint8_t*>(arena.no_storage(256));
  CHECK(signal_of([&] { (void)nothing[0]; }) == SIGSEGV);
  CHECK(arena.facts(reinterpret_cast<uintptr_t>(nothing)).state == dlc::BlockState::no_storage);
}

TEST_CASE("guard: a freed block stays inaccessible and attributed through the quarantine",
          "[unit]") {
  dlc::GuardArena arena;
  arena.set_quarantine(4);
  auto* p = static_cast<uint8_t*>(arena.alloc(32, 8, DLC_ALLOC_DATA));
  const uintptr_t address = reinterpret_cast<uintptr_t>(p);
  arena.reset();  // a block the case left live is freed at reset
  for (int c = 1; c < 4; ++c) {
    // Other cases allocate the same size; none gets the quarantined slot back.
    auto* q = static_cast<uint8_t*>(arena.alloc(32, 8, DLC_ALLOC_DATA));
    CHECK(q != p);
    const dlc::BlockFacts f = arena.facts(address);
    REQUIRE(f.found);
    CHECK(f.state == dlc::BlockState::freed);
    CHECK(f.cases_ago == static_cast<uint32_t>(c));
    CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(p); }) == SIGSEGV);
    arena.reset();
  }
  // After the window the slot is reused (first in, first out: a chunk's slots take turns), so
  // memory is bounded, and no mapping was made per case.
  std::set<uint8_t*> seen;
  const uint64_t syscalls = arena.syscalls();
  const int cases = 2000;
  for (int c = 0; c < cases; ++c) {
    seen.insert(static_cast<uint8_t*>(arena.alloc(32, 8, DLC_ALLOC_DATA)));
    arena.reset();
  }
  CHECK(seen.size() <= 256);  // one chunk of 2 MiB holds 256 slots of a page and its guard
  CHECK(arena.syscalls() - syscalls == 2 * cases);  // one call to open, one to close
}

TEST_CASE("guard: the blocks a deleter frees are closed together when it returns", "[unit]") {
  dlc::GuardArena arena;
  arena.alloc(48, 8, DLC_ALLOC_DATA);
  arena.reset();  // the first free maps the quarantine's ring
  // The parts of one tensor, as a producer allocates them: adjacent slots of one chunk.
  uint8_t* parts[4];
  for (auto*& p : parts) p = static_cast<uint8_t*>(arena.alloc(48, 8, DLC_ALLOC_DATA));
  const uint64_t before = arena.syscalls();
  {
    dlc::GuardArena::Batch batch(arena);
    for (auto* p : parts) arena.free(p);
    CHECK(arena.syscalls() == before);  // deferred
  }
  CHECK(arena.syscalls() == before + 1);  // one run of adjacent slots: one call
  for (auto* p : parts) {
    CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(p); }) == SIGSEGV);
    CHECK(arena.facts(reinterpret_cast<uintptr_t>(p)).state == dlc::BlockState::freed);
  }
  // The guard pages between them are still guards after the run is reopened slot by slot.
  arena.set_quarantine(1);
  arena.reset();
  auto* a = static_cast<uint8_t*>(arena.alloc(4096, 8, DLC_ALLOC_DATA));
  REQUIRE(a != nullptr);
  a[4095] = 1;
  CHECK(signal_of([&] { (void)*static_cast<volatile uint8_t*>(a + 4096); }) == SIGSEGV);
}

TEST_CASE("guard: reset frees every block", "[unit]") {
  dlc::GuardArena arena;
  for (int i = 0; i < 100; ++i) REQUIRE(arena.alloc(100, 4, DLC_ALLOC_DATA) != nullptr);
  CHECK(arena.live_blocks() == 100);
  arena.reset();
  CHECK(arena.live_blocks() == 0);
}

// The Python bridge's workers never reset: a worker that had freed every block it was given
// failed its 4097th allocation, whichever worker the scheduler had sent the most cases to.
TEST_CASE("guard: only live blocks count against the limit when nothing resets", "[unit]") {
  dlc::GuardArena arena;
  for (size_t i = 0; i < dlc::GuardArena::kMaxLiveBlocks + 100; ++i) {
    void* p = arena.alloc(64, 8, DLC_ALLOC_DATA);
    REQUIRE(p != nullptr);
    arena.free(p);
  }
  CHECK(arena.live_blocks() == 0);
  CHECK_FALSE(arena.nearly_full());
  std::vector<void*> kept;
  while (void* p = arena.alloc(64, 8, DLC_ALLOC_DATA)) kept.push_back(p);
  CHECK(kept.size() == dlc::GuardArena::kMaxLiveBlocks);
  CHECK(arena.nearly_full());
  arena.free(kept.back());
  CHECK(arena.alloc(64, 8, DLC_ALLOC_DATA) != nullptr);
}

TEST_CASE("guard: the slack before a struct is poisoned, not zero", "[unit]") {
  dlc::GuardArena arena;
  auto* p = static_cast<uint8_t*>(arena.alloc(64, 8, DLC_ALLOC_STRUCT));
  CHECK(p[-8] == 0xA5);
}

#if DLC_HAS_ASAN
TEST_CASE("guard: shadow guards poison what pages would protect, with no system call", "[unit]") {
  dlc::GuardArena arena;
  REQUIRE(arena.use_shadow_guards());
  auto poisoned = [](const void* p) { return __asan_address_is_poisoned(p) != 0; };
  auto* struct_block = static_cast<uint8_t*>(arena.alloc(80, 8, DLC_ALLOC_STRUCT));
  auto* data = static_cast<uint8_t*>(arena.alloc(100, 1, DLC_ALLOC_DATA));
  CHECK(!poisoned(data));
  CHECK(!poisoned(data + 99));
  CHECK(poisoned(data + 100));  // the guard page after the block
  CHECK(!poisoned(struct_block - 8));  // the slack before a struct reads as garbage, as with pages
  CHECK(struct_block[-8] == 0xA5);
  {
    dlc::GuardArena::Batch batch(arena);
    arena.free(data);
  }
  CHECK(poisoned(data));  // freed: a touch after the delete is reported
  CHECK(arena.facts(reinterpret_cast<uintptr_t>(data)).state == dlc::BlockState::freed);
  const uint64_t after_setup = arena.syscalls();  // the chunks and the quarantine's ring
  for (int c = 0; c < 100; ++c) {
    arena.alloc(64, 8, DLC_ALLOC_SHAPE);
    arena.reset();
  }
  CHECK(arena.syscalls() == after_setup);  // no mapping, no madvise per block or case
  // Read-only data is still write-protected by its page: ASan does not watch writes apart.
  auto* ro = static_cast<uint8_t*>(arena.alloc(64, 1, DLC_ALLOC_DATA));
  REQUIRE(arena.protect_read_only(ro));
  CHECK(signal_of([&] { *static_cast<volatile uint8_t*>(ro) = 1; }) == SIGSEGV);
  arena.reset();
}
#else
TEST_CASE("guard: shadow guards poison what pages would protect, with no system call", "[unit]") {
  dlc::GuardArena arena;
  CHECK(!arena.use_shadow_guards());
  WARN("skipped: shadow guards need an ASan build (the test builds of tools/dev test have one)");
}
#endif
