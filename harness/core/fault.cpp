#include "fault.h"

#include <cxxabi.h>

#include <fcntl.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

namespace dlc {
namespace {

struct Range {
  uintptr_t begin, end;
};
Range g_code[512];
int g_code_count = 0;

bool in_code(uintptr_t address) noexcept {
  for (int i = 0; i < g_code_count; ++i) {
    if (address >= g_code[i].begin && address < g_code[i].end) return true;
  }
  return false;
}

// Legacy SSE and AVX instructions whose memory operand must be aligned: movaps/movapd (0F 28/29),
// movdqa (66 0F 6F/7F), movntps/movntpd (0F 2B), movntdq (66 0F E7), movntdqa (66 0F 38 2A), and
// any other legacy (non-VEX) SSE instruction with a 128-bit memory operand, unless it is one of
// the explicitly unaligned moves (movups/movupd 0F 10/11, movdqu F3 0F 6F/7F, lddqu F2 0F F0).
bool aligned_vector(const uint8_t* b, size_t n) noexcept {
  size_t i = 0;
  bool p66 = false, pf3 = false, pf2 = false;
  while (i < n) {
    const uint8_t c = b[i];
    if (c == 0x66) {
      p66 = true;
    } else if (c == 0xF3) {
      pf3 = true;
    } else if (c == 0xF2) {
      pf2 = true;
    } else if (c == 0x2E || c == 0x3E || c == 0x26 || c == 0x64 || c == 0x65 || c == 0x36 ||
               c == 0xF0 || c == 0x67 || (c >= 0x40 && c <= 0x4F)) {
      // segment, lock, address-size prefixes and REX
    } else {
      break;
    }
    ++i;
  }
  if (i + 1 >= n) return false;
  if (b[i] == 0xC5 || b[i] == 0xC4) {
    // VEX: vmovaps/vmovapd (28/29) and vmovdqa (66: 6F/7F) require alignment; others do not.
    const bool three = b[i] == 0xC4;
    if (i + (three ? 3 : 2) >= n) return false;
    const uint8_t pp = (three ? b[i + 2] : b[i + 1]) & 3;
    const uint8_t map = three ? (b[i + 1] & 0x1F) : 1;
    const uint8_t op = b[i + (three ? 3 : 2)];
    if (map != 1) return false;
    return op == 0x28 || op == 0x29 || ((op == 0x6F || op == 0x7F) && pp == 1) || op == 0x2B ||
           (op == 0xE7 && pp == 1);
  }
  if (b[i] != 0x0F) return false;
  const uint8_t op = b[i + 1];
  if (op == 0x38 && i + 2 < n) return p66 && b[i + 2] == 0x2A;
  if (op == 0x28 || op == 0x29 || op == 0x2B) return true;
  if (op == 0x6F || op == 0x7F) return p66 && !pf3;
  if (op == 0xE7) return p66;
  if (op == 0x10 || op == 0x11 || (op == 0xF0 && pf2)) return false;
  // Packed arithmetic with a memory operand (ModRM mod != 3) requires alignment.
  const bool packed = (op >= 0x50 && op <= 0x7F) || op >= 0xD0;
  if (!packed || i + 2 >= n || pf3 || pf2) return false;
  return (b[i + 2] >> 6) != 3 && (p66 || (op >= 0x51 && op <= 0x5F));
}

}  // namespace

bool safe_read(uintptr_t address, void* out, size_t n) noexcept {
  iovec local{out, n};
  iovec remote{reinterpret_cast<void*>(address), n};
  return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

void refresh_code_ranges() noexcept {
  const int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  g_code_count = 0;
  char buffer[8192];
  char line[512];
  size_t used = 0;
  ssize_t n;
  while ((n = read(fd, buffer, sizeof buffer)) > 0) {
    for (ssize_t k = 0; k < n; ++k) {
      if (buffer[k] != '\n') {
        if (used + 1 < sizeof line) line[used++] = buffer[k];
        continue;
      }
      line[used] = '\0';
      used = 0;
      unsigned long begin = 0, end = 0;
      char perms[5] = {};
      if (std::sscanf(line, "%lx-%lx %4s", &begin, &end, perms) == 3 && perms[2] == 'x' &&
          g_code_count < static_cast<int>(sizeof g_code / sizeof g_code[0])) {
        g_code[g_code_count++] = Range{begin, end};
      }
    }
  }
  close(fd);
}

SignalFacts decode_signal(int sig, const siginfo_t* info, const void* context) noexcept {
  SignalFacts f;
  f.signal = sig;
  f.code = info != nullptr ? info->si_code : 0;
  f.address = info != nullptr ? reinterpret_cast<uintptr_t>(info->si_addr) : 0;
#if defined(__x86_64__)
  if (context != nullptr && (sig == SIGSEGV || sig == SIGBUS)) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    const greg_t err = uc->uc_mcontext.gregs[REG_ERR];
    f.ip = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    const uintptr_t sp = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
    f.is_write = (err & 2) != 0;
    f.is_exec = (err & 16) != 0 || (f.ip == f.address && f.address != 0) ||
                (f.address == 0 && f.ip == 0);
    f.general_protection = sig == SIGSEGV && f.code == SI_KERNEL;
    if (f.is_exec) {
      uint64_t top = 0, below = 0;
      const bool have_top = safe_read(sp, &top, sizeof top);
      const bool have_below = safe_read(sp - 8, &below, sizeof below);
      // ret leaves the value it popped just below the stack pointer; a call leaves a return
      // address into code on top. NULL is read as a call: stale zeros are common below sp.
      f.returned_into_garbage = have_below && below == f.ip && f.ip != 0 && !in_code(f.ip);
      f.called_bad_pointer = !f.returned_into_garbage && have_top && in_code(top);
    } else {
      uint8_t insn[15] = {};
      size_t got = 0;
      while (got < sizeof insn && safe_read(f.ip + got, insn + got, 1)) ++got;
      f.aligned_vector_insn = aligned_vector(insn, got);
    }
  }
#else
  (void)context;
#endif
  return f;
}

const char* signal_name(int sig) noexcept {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal";
  }
}

void route_fatal_signals(void (*handler)(int, siginfo_t*, void*), int count) noexcept {
  static char alt_stack[64 * 1024];
  stack_t stack{};
  stack.ss_sp = alt_stack;
  stack.ss_size = sizeof alt_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
  for (int k = 0; k < count && k < 6; ++k) sigaction(signals[k], &action, nullptr);
}

namespace {

[[noreturn]] void terminate_naming_type() {
  const char* prefix = "terminate called after throwing an instance of ";
  const std::type_info* type = abi::__cxa_current_exception_type();
  const char* name = type != nullptr ? type->name() : "(no exception)";
  const struct iovec parts[] = {{const_cast<char*>(prefix), std::strlen(prefix)},
                                {const_cast<char*>(name), std::strlen(name)},
                                {const_cast<char*>("\n"), 1}};
  (void)!writev(STDERR_FILENO, parts, 3);
  std::abort();
}

}  // namespace

void terminate_without_what() noexcept { std::set_terminate(terminate_naming_type); }

}  // namespace dlc
