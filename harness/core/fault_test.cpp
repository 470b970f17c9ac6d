// Decoding a fatal signal: what the instruction was, whether it came from a call or a return.
#include "fault.h"
#include "abi.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <exception>

#include "catch.hpp"

namespace {

int g_pipe[2];

void on_fault(int sig, siginfo_t* info, void* context) {
  const dlc::SignalFacts f = dlc::decode_signal(sig, info, context);
  ssize_t ignored = write(g_pipe[1], &f, sizeof f);
  (void)ignored;
  _exit(0);
}

using dlc::SignalFacts;

// Runs `body` in a child whose SIGSEGV handler decodes the fault and sends the facts back.
template <class Body>
SignalFacts facts_of(Body body) {
  REQUIRE(pipe(g_pipe) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dlc::refresh_code_ranges();
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, nullptr);
    sigaction(SIGBUS, &action, nullptr);
    body();
    _exit(3);
  }
  close(g_pipe[1]);
  SignalFacts f{};
  const ssize_t n = read(g_pipe[0], &f, sizeof f);
  close(g_pipe[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(n == static_cast<ssize_t>(sizeof f));
  return f;
}

}  // namespace

TEST_CASE("fault: a read and a write of an inaccessible page", "[unit]") {
  void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(page != MAP_FAILED);
  const SignalFacts r = facts_of([&] { (void)*static_cast<volatile int*>(page); });
  CHECK(r.address == reinterpret_cast<uintptr_t>(page));
  CHECK_FALSE(r.is_write);
  CHECK_FALSE(r.is_exec);
  const SignalFacts w = facts_of([&] { *static_cast<volatile int*>(page) = 1; });
  CHECK(w.is_write);
  munmap(page, 4096);
}

static DLC_AS_FOREIGN_CODE void call_null_function() {
  void (*volatile null_function)() = nullptr;
  null_function();
}

TEST_CASE("fault: a call through NULL is a call, not a return into garbage", "[unit]") {
  const SignalFacts f = facts_of([] { call_null_function(); });
  CHECK(f.is_exec);
  CHECK(f.address == 0);
  CHECK(f.called_bad_pointer);
  CHECK_FALSE(f.returned_into_garbage);
}

#if defined(__x86_64__)
TEST_CASE("fault: an aligned vector load on misaligned data is recognised (LAY-9)", "[unit]") {
  alignas(16) static uint8_t buffer[64];
  const SignalFacts f = facts_of([] {
    const uint8_t* p = buffer + 1;
    // movdqa xmm0, [p]: requires 16-byte alignment.
    __asm__ volatile("movdqa (%0), %%xmm0" : : "r"(p) : "xmm0");
  });
  CHECK(f.general_protection);
  CHECK(f.aligned_vector_insn);
}

TEST_CASE("fault: a return into garbage is told from a bad call", "[unit]") {
  const SignalFacts f = facts_of([] {
    // What a stack overrun does to a return address: ret pops a value that is not code.
    __asm__ volatile("pushq $0x4242\n\tret" ::: "memory");
  });
  CHECK(f.is_exec);
  CHECK(f.address == 0x4242);
  CHECK(f.returned_into_garbage);
  CHECK_FALSE(f.called_bad_pointer);
}
#endif

namespace {

// An exception whose what() reports being called on the pipe: libtorch's c10::Error symbolises
// a backtrace there.
struct CostlyError : std::exception {
  const char* what() const noexcept override {
    (void)!write(g_pipe[1], "what", 4);
    return "costly";
  }
};

// As an exception that leaves a noexcept function does: terminate with it current.
[[noreturn]] void terminate_with_costly_error() {
  try {
    throw CostlyError();
  } catch (...) {
    std::terminate();
  }
}

}  // namespace

TEST_CASE("fault: terminate names the exception's type and aborts without its what()", "[unit]") {
  REQUIRE(pipe(g_pipe) == 0);
  int err[2];
  REQUIRE(pipe(err) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGABRT, SIG_DFL);  // the test framework's own handler would report, not die
    dup2(err[1], STDERR_FILENO);
    dlc::terminate_without_what();
    terminate_with_costly_error();
    _exit(0);
  }
  close(g_pipe[1]);
  close(err[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  char seen[256] = {};
  const ssize_t what_bytes = read(g_pipe[0], seen, sizeof seen);
  const ssize_t err_bytes = read(err[0], seen, sizeof seen - 1);
  close(g_pipe[0]);
  close(err[0]);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGABRT);
  CHECK(what_bytes == 0);
  REQUIRE(err_bytes > 0);
  CHECK(std::strstr(seen, "CostlyError") != nullptr);
}
