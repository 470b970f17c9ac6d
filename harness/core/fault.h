// What a SIGSEGV, SIGBUS or other fatal signal says about the fault, decoded from the signal
// context: the address, whether it was a write or an instruction fetch, and, for the cases a
// plain address cannot tell apart, a look at the faulting instruction and the stack. One decoder
// for the matrix's workers and the fuzz targets; async-signal-safe.
#pragma once

#include <signal.h>

#include <cstdint>

namespace dlc {

struct SignalFacts {
  int signal = 0;
  int code = 0;  // si_code
  uintptr_t address = 0;
  uintptr_t ip = 0;
  bool is_write = false;
  bool is_exec = false;  // an instruction fetch: a call or a return to a non-code address
  // A general-protection fault: the kernel reports no address (an aligned vector access on
  // misaligned data, or a non-canonical pointer).
  bool general_protection = false;
  // The faulting instruction is an SSE/AVX access that requires 16- or 32-byte alignment.
  bool aligned_vector_insn = false;
  // The fetch came from a `ret` into a non-code address (the word below the stack pointer is
  // the address jumped to): the return address was overwritten, as by a stack overrun.
  bool returned_into_garbage = false;
  // The fetch came from a `call`: the stack holds a return address into code.
  bool called_bad_pointer = false;
};

SignalFacts decode_signal(int sig, const siginfo_t* info, const void* ucontext) noexcept;

// Records the executable mappings of the process (not async-signal-safe: call after loading
// plugins and before the first exchange), so that the decoder can tell code addresses.
void refresh_code_ranges() noexcept;

// Reads `n` bytes at `address` without faulting; false if they are not all readable.
bool safe_read(uintptr_t address, void* out, size_t n) noexcept;

const char* signal_name(int sig) noexcept;

// Routes SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP (or the first `count` of them) to
// `handler` on an alternate stack of this process (the fault may be a stack overflow).
void route_fatal_signals(void (*handler)(int, siginfo_t*, void*), int count = 6) noexcept;

// Makes std::terminate name the exception's type and abort without calling its what(). libtorch's
// c10::Error symbolises its backtrace in what() (dladdr over libtorch's symbols, about 3 ms), and
// 1,232 of the main job's cases end there (a c10::Error out of a noexcept function); their
// verdict is the SIGABRT that follows, and a worker's log is thrown away.
void terminate_without_what() noexcept;

}  // namespace dlc
