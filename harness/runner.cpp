#include "runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "exchange.h"

namespace dlc {
namespace {

constexpr int kMaxJobs = 64;
constexpr char kSep = '\x1f';

struct Shared {
  std::atomic<int64_t> next;
  struct Slot {
    std::atomic<int64_t> current;
    std::atomic<int64_t> started_ns;
  } slots[kMaxJobs];
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Worker-side state the fault handler reads.
int g_result_fd = -1;
volatile int64_t g_current_case = -1;
char g_alt_stack[64 * 1024];

const char* signal_name(int sig) {
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
    default:
      return "signal";
  }
}

// Async-signal-safe: classify the fault, write one crash record, exit.
void on_fault(int sig, siginfo_t* info, void* context) {
  char line[600];
  SafeText out{line, sizeof line};
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  bool is_write = false;
  bool is_exec = false;
#if defined(__x86_64__)
  if (context != nullptr && (sig == SIGSEGV || sig == SIGBUS)) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    const greg_t err = uc->uc_mcontext.gregs[REG_ERR];
    is_write = (err & 2) != 0;
    is_exec = (err & 16) != 0 || static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]) == address;
  }
#else
  (void)context;
#endif
  FaultReport report;
  const char* finding_class = "crash";
  const char* rule = "";
  if (sig == SIGSEGV || sig == SIGBUS) {
    process_host().arena.classify(address, is_write, is_exec, &report);
    finding_class = report.finding_class;
    rule = report.rule;
  }
  out.add("C").add(static_cast<int64_t>(g_current_case));
  line[out.length++] = kSep;
  out.add(finding_class);
  line[out.length++] = kSep;
  out.add(rule);
  line[out.length++] = kSep;
  out.add(signal_name(sig)).add(": ");
  if (sig == SIGSEGV || sig == SIGBUS) {
    out.add(report.detail);
  } else {
    out.add("the consumer or producer aborted");
  }
  out.add("\n");
  ssize_t ignored = write(g_result_fd, line, out.length);
  (void)ignored;
  _exit(86);
}

void install_fault_handlers() {
  stack_t stack{};
  stack.ss_sp = g_alt_stack;
  stack.ss_size = sizeof g_alt_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP})
    sigaction(sig, &action, nullptr);
}

std::string clean(std::string s) {
  for (char& ch : s) {
    if (ch == '\n' || ch == '\r' || ch == kSep) ch = ' ';
  }
  if (s.size() > 1500) s.resize(1500);
  return s;
}

[[noreturn]] void worker_main(const std::vector<Participant>& participants,
                              std::vector<CaseDef>& cases, Shared* shared, int slot, int fd) {
  g_result_fd = fd;
  install_fault_handlers();
  auto& my = shared->slots[slot];
  const int64_t total = static_cast<int64_t>(cases.size());
  for (;;) {
    const int64_t i = shared->next.fetch_add(1);
    if (i >= total) break;
    my.started_ns.store(now_ns());
    my.current.store(i);
    g_current_case = i;
    const int64_t start = now_ns();
    run_exchange(participants, cases[i]);
    const CaseResult& r = cases[i].result;
    std::string line = "R" + std::to_string(i) + kSep + to_string(r.verdict) + kSep +
                       clean(r.finding_class) + kSep + clean(r.rule_id) + kSep + clean(r.detail) +
                       kSep + std::to_string((now_ns() - start) / 1000) + "\n";
    size_t written = 0;
    while (written < line.size()) {
      const ssize_t n = write(fd, line.data() + written, line.size() - written);
      if (n <= 0) _exit(87);
      written += static_cast<size_t>(n);
    }
    g_current_case = -1;
    my.current.store(-1);
  }
  _exit(0);
}

Verdict parse_verdict(const std::string& s) {
  if (s == "pass") return Verdict::pass;
  if (s == "fail") return Verdict::fail;
  if (s == "crash") return Verdict::crash;
  if (s == "timeout") return Verdict::timeout;
  return Verdict::skip;
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> parts;
  std::string part;
  for (char ch : line) {
    if (ch == kSep) {
      parts.push_back(part);
      part.clear();
    } else {
      part += ch;
    }
  }
  parts.push_back(part);
  return parts;
}

// The sanitizer's or the runtime's own words, from the dead worker's stderr.
std::string stderr_summary(const std::string& path) {
  std::ifstream in(path);
  std::string line, best, last;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line.find("ERROR:") != std::string::npos || line.find("SUMMARY:") != std::string::npos ||
        line.find("runtime error") != std::string::npos) {
      if (best.empty() || line.find("SUMMARY:") != std::string::npos) best = line;
    }
    last = line;
  }
  return clean(best.empty() ? last : best);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  std::string stderr_path;
  bool killed_for_timeout = false;
  int64_t timed_out_case = -1;
};

}  // namespace

bool run_cases(const std::vector<Participant>& participants, std::vector<CaseDef>& cases,
               const RunnerOptions& options, std::string* error) {
  const size_t total = cases.size();
  size_t done = 0, unexpected = 0;
  std::vector<bool> finished(total, false);
  auto finish = [&](size_t i) {
    if (finished[i]) return;
    finished[i] = true;
    ++done;
    if (!cases[i].result.as_expected()) ++unexpected;
    if (options.progress) options.progress(done, total, unexpected);
  };
  if (!options.isolate) {
    for (size_t i = 0; i < total; ++i) {
      const int64_t start = now_ns();
      run_exchange(participants, cases[i]);
      cases[i].result.seconds = static_cast<double>(now_ns() - start) / 1e9;
      finish(i);
    }
    return true;
  }

  auto* shared = static_cast<Shared*>(
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  if (shared == MAP_FAILED) {
    *error = std::string("cannot map shared memory: ") + std::strerror(errno);
    return false;
  }
  new (shared) Shared{};
  const int jobs = std::max(1, std::min(options.jobs, kMaxJobs));
  for (auto& slot : shared->slots) slot.current.store(-1);

  char dir_template[] = "/tmp/dlconform-run-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  std::vector<Worker> workers(jobs);
  int spawn_failures = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  auto spawn = [&](int slot) -> bool {
    int fds[2];
    if (pipe(fds) != 0) return false;
    Worker& w = workers[slot];
    w = Worker{};
    w.stderr_path = std::string(dir ? dir : "/tmp") + "/worker" + std::to_string(slot) + ".log";
    shared->slots[slot].current.store(-1);
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    if (pid == 0) {
      close(fds[0]);
      const int log = open(w.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
        close(log);
      }
      worker_main(participants, cases, shared, slot, fds[1]);
    }
    close(fds[1]);
    w.pid = pid;
    w.fd = fds[0];
    return true;
  };
  for (int s = 0; s < jobs; ++s) {
    if (!spawn(s)) {
      *error = std::string("cannot start a worker process: ") + std::strerror(errno);
      return false;
    }
  }

  auto handle_line = [&](const std::string& line) {
    const std::vector<std::string> f = split(line.substr(1));
    if (f.empty()) return;
    const size_t i = std::strtoull(f[0].c_str(), nullptr, 10);
    if (i >= total) return;
    CaseResult& r = cases[i].result;
    if (line[0] == 'R' && f.size() >= 6) {
      r.verdict = parse_verdict(f[1]);
      r.finding_class = f[2];
      r.rule_id = f[3];
      r.detail = f[4];
      r.seconds = std::strtod(f[5].c_str(), nullptr) / 1e6;
    } else if (line[0] == 'C' && f.size() >= 4) {
      r.verdict = Verdict::crash;
      r.finding_class = f[1];
      r.rule_id = f[2];
      r.detail = f[3];
      if (r.rule_id.empty() && cases[i].raw) {
        // A raw reader that faults outside every buffer followed a field of a layout it does not
        // share with the producer (LAY-2 legacy, LAY-3 versioned).
        r.rule_id = "LAY-3";
        r.detail = "the reader misread a foreign struct layout: " + r.detail;
      }
      // A crash the fault handler could not attribute breaks the rule the tensor exercises
      // (LAY-8: never crash on negative strides, LAY-10: refuse overflowing shapes...).
      if (r.rule_id.empty()) r.rule_id = tensor_catalogue()[cases[i].tensor].rule;
    }
    finish(i);
  };

  int alive = jobs;
  while (alive > 0) {
    std::vector<pollfd> fds;
    std::vector<int> slots;
    for (int s = 0; s < jobs; ++s) {
      if (workers[s].fd >= 0) {
        fds.push_back(pollfd{workers[s].fd, POLLIN, 0});
        slots.push_back(s);
      }
    }
    const int ready = poll(fds.data(), fds.size(), 50);
    if (ready < 0 && errno != EINTR) {
      *error = std::string("poll failed: ") + std::strerror(errno);
      return false;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
      Worker& w = workers[slots[k]];
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      char chunk[65536];
      const ssize_t n = read(w.fd, chunk, sizeof chunk);
      if (n > 0) {
        w.buffer.append(chunk, static_cast<size_t>(n));
        size_t newline;
        while ((newline = w.buffer.find('\n')) != std::string::npos) {
          handle_line(w.buffer.substr(0, newline));
          w.buffer.erase(0, newline + 1);
        }
        continue;
      }
      // EOF: the worker finished or died.
      close(w.fd);
      w.fd = -1;
      int status = 0;
      waitpid(w.pid, &status, 0);
      const int slot = slots[k];
      const int64_t current = shared->slots[slot].current.load();
      if (current >= 0 && !finished[current]) {
        CaseResult& r = cases[current].result;
        if (w.killed_for_timeout) {
          r.verdict = Verdict::timeout;
          r.finding_class = "timeout";
          r.detail = "still running after " + std::to_string(options.case_timeout_seconds) +
                     " s; the worker was killed";
        } else {
          r.verdict = Verdict::crash;
          r.finding_class = "crash";
          std::string how = WIFSIGNALED(status)
                                ? std::string("killed by ") + signal_name(WTERMSIG(status))
                                : "exited with status " + std::to_string(WEXITSTATUS(status));
          const std::string said = stderr_summary(w.stderr_path);
          if (said.find("Sanitizer") != std::string::npos ||
              said.find("runtime error") != std::string::npos) {
            r.finding_class = "sanitizer-report";
          }
          r.detail = "worker " + how + (said.empty() ? "" : ": " + said);
          r.rule_id = tensor_catalogue()[cases[current].tensor].rule;
        }
        finish(static_cast<size_t>(current));
      }
      --alive;
      if (shared->next.load() < static_cast<int64_t>(total)) {
        if (spawn(slot)) {
          ++alive;
        } else if (++spawn_failures > 10) {
          *error = std::string("cannot restart a worker process: ") + std::strerror(errno);
          return false;
        }
      }
    }
    // Timeouts.
    const int64_t now = now_ns();
    for (int s = 0; s < jobs; ++s) {
      Worker& w = workers[s];
      if (w.fd < 0 || w.killed_for_timeout) continue;
      const int64_t current = shared->slots[s].current.load();
      if (current < 0) continue;
      const double elapsed = static_cast<double>(now - shared->slots[s].started_ns.load()) / 1e9;
      if (elapsed > options.case_timeout_seconds) {
        w.killed_for_timeout = true;
        kill(w.pid, SIGKILL);
      }
    }
  }
  for (Worker& w : workers) unlink(w.stderr_path.c_str());
  if (dir != nullptr) rmdir(dir);
  munmap(shared, sizeof(Shared));
  // Anything never reported (cannot normally happen) is a harness failure, not a silent pass.
  for (size_t i = 0; i < total; ++i) {
    if (!finished[i]) {
      *error = "case " + cases[i].result.id + " produced no result";
      return false;
    }
  }
  return true;
}

}  // namespace dlc
