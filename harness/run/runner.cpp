#include "runner.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "alloc_track.h"
#include "exchange.h"
#include "fault.h"
#include "judge.h"
#include "phase.h"

namespace dlc {
namespace {

constexpr int kMaxJobs = 64;

struct WorkerSlot {
  std::atomic<int64_t> current{-1};
  std::atomic<int64_t> started_ns{0};
  alloc_track::Summary live;  // foreign frees seen in the current case, as they happen
};

struct Shared {
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  WorkerSlot slots[kMaxJobs];
  // Followed by one CaseRecord per case.
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Worker-side state the fault handler reads.
CaseRecord* g_records = nullptr;
std::atomic<int64_t>* g_done = nullptr;
volatile int64_t g_current_case = -1;

bool owned_by_harness(const void* p) {
  return process_host().arena.facts(reinterpret_cast<uintptr_t>(p)).found;
}

// Async-signal-safe: judge the fault, write the case's record, exit.
void on_fault(int sig, siginfo_t* info, void* context) {
  const int64_t i = g_current_case;
  if (i >= 0 && g_records != nullptr) {
    FaultFacts facts;
    facts.signal = decode_signal(sig, info, context);
    facts.block = process_host().arena.facts(facts.signal.address);
    facts.raw = g_case_context.raw;
    facts.misaligned_data = g_case_context.misaligned;
    facts.case_rule = g_case_context.rule;
    facts.where = g_phase.where;
    facts.plugin = g_phase.plugin;
    Finding f;
    judge_fault(facts, &f);
    CaseRecord& r = g_records[i];
    r.verdict = Verdict::crash;
    r.cls = f.cls;
    r.rule = f.rule;
    SafeText(r.detail, sizeof r.detail).add(signal_name(sig)).add(": ").add(f.words);
    r.done.store(1, std::memory_order_release);
    g_done->fetch_add(1);
  }
  _exit(86);
}

void install_fault_handlers() { route_fatal_signals(on_fault); }

// The sanitizer's or the runtime's own words, from the dead worker's output.
std::string last_words(const std::string& path) {
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
  std::string s = best.empty() ? last : best;
  for (char& ch : s) {
    if (ch == '\n' || ch == '\r') ch = ' ';
  }
  if (s.size() > 300) s.resize(300);
  return s;
}

// The finding for a case whose process died before it wrote one: a foreign free the worker
// recorded first (the owner's second free of a block, under a sanitizer), or the death itself:
// its signal or exit status, and the sanitizer's or runtime's last words in the log.
void judge_dead_case(const std::vector<Participant>& participants, const CaseDef& c,
                     const alloc_track::Summary& live, int status, bool killed_for_timeout,
                     double timeout_seconds, const std::string& log_path, CaseRecord* r) {
  Finding f;
  if (live.consumer_foreign_frees > 0) {
    OwnershipFacts of;
    of.consumer_foreign_frees = live.consumer_foreign_frees;
    of.consumer_foreign_bytes = live.consumer_foreign_bytes;
    of.consumer_free_site = live.free_site;
    of.consumer_label = participants[c.consumer >= 0 ? c.consumer : c.producer].label.c_str();
    judge_ownership(of, &f);
    r->verdict = Verdict::crash;
  } else {
    const std::string words = last_words(log_path);
    judge_death(WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                WIFEXITED(status) ? WEXITSTATUS(status) : 0, killed_for_timeout, timeout_seconds,
                words.c_str(), tensor_catalogue()[c.tensor].rule, &f);
    r->verdict = killed_for_timeout ? Verdict::timeout : Verdict::crash;
  }
  r->cls = f.cls;
  r->rule = f.rule;
  SafeText(r->detail, sizeof r->detail).add(f.words);
}

// A case expected to be broken (a raw layout mismatch, a planted bug) usually crashes, so the
// worker runs it in a child of its own: the crash costs that one fork, from a warm worker, and
// the worker goes on. Its log starts afresh, so that the child's last words are its own.
void run_in_child(const std::vector<Participant>& participants, const CaseDef& c, int64_t i,
                  CaseRecord* records, Shared* shared, int slot, const std::string& log_path,
                  double timeout_seconds) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (ftruncate(STDERR_FILENO, 0) == 0) lseek(STDERR_FILENO, 0, SEEK_SET);
  const pid_t pid = fork();
  if (pid == 0) {
    run_exchange(participants, c, &records[i]);
    records[i].done.store(1, std::memory_order_release);
    shared->done.fetch_add(1);
    _exit(0);
  }
  if (pid < 0) {  // no child to be had: the case runs here, as any other
    run_exchange(participants, c, &records[i]);
  } else {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (records[i].done.load(std::memory_order_acquire) != 0) return;
    judge_dead_case(participants, c, shared->slots[slot].live, status, false, timeout_seconds,
                    log_path, &records[i]);
  }
  records[i].done.store(1, std::memory_order_release);
  shared->done.fetch_add(1);
}

[[noreturn]] void worker_main(const std::vector<Participant>& participants,
                              const std::vector<CaseDef>& cases, Shared* shared,
                              CaseRecord* records, int slot, const std::string& log_path,
                              double timeout_seconds) {
  g_records = records;
  g_done = &shared->done;
  install_fault_handlers();
  WorkerSlot& my = shared->slots[slot];
  alloc_track::set_live_summary(&my.live);
  const int64_t total = static_cast<int64_t>(cases.size());
  for (;;) {
    const int64_t i = shared->next.fetch_add(1);
    if (i >= total) break;
    my.live = alloc_track::Summary{};
    my.started_ns.store(now_ns());
    my.current.store(i);
    g_current_case = i;
    if (cases[i].result.expected == Expectation::broken) {
      run_in_child(participants, cases[i], i, records, shared, slot, log_path, timeout_seconds);
    } else {
      run_exchange(participants, cases[i], &records[i]);
      records[i].done.store(1, std::memory_order_release);
      shared->done.fetch_add(1);
    }
    g_current_case = -1;
    my.current.store(-1);
  }
  _exit(0);
}

struct Worker {
  pid_t pid = -1;
  int fd = -1;  // the read end of a pipe the worker holds open: EOF when it exits or dies
  std::string log_path;
  bool killed_for_timeout = false;
};

// Everything the parent holds while workers run, released on every path out.
struct RunResources {
  Shared* shared = nullptr;
  size_t shared_bytes = 0;
  std::string dir;
  std::vector<Worker> workers;
  ~RunResources() {
    for (Worker& w : workers) {
      if (w.pid > 0) {
        kill(-w.pid, SIGKILL);
        kill(w.pid, SIGKILL);
        int status = 0;
        waitpid(w.pid, &status, 0);
      }
      if (w.fd >= 0) close(w.fd);
      if (!w.log_path.empty()) unlink(w.log_path.c_str());
    }
    if (!dir.empty()) rmdir(dir.c_str());
    if (shared != nullptr) munmap(shared, shared_bytes);
  }
};

}  // namespace

bool run_cases(const std::vector<Participant>& participants, std::vector<CaseDef>& cases,
               const RunnerOptions& options, std::string* error) {
  const size_t total = cases.size();
  size_t reported = 0, unexpected = 0;
  std::vector<bool> collected(total, false);
  refresh_code_ranges();
  alloc_track::install_sanitizer_hooks();
  alloc_track::set_harness_memory_check(owned_by_harness);
  auto collect = [&](size_t i, const CaseRecord& record) {
    if (collected[i]) return;
    collected[i] = true;
    to_result(record, &cases[i].result);
    ++reported;
    if (!cases[i].result.as_expected()) ++unexpected;
  };
  if (!options.isolate) {
    std::vector<CaseRecord> records(total);
    for (size_t i = 0; i < total; ++i) {
      run_exchange(participants, cases[i], &records[i]);
      collect(i, records[i]);
      if (options.progress) options.progress(reported, total, unexpected);
    }
    return true;
  }

  // Every worker, and every child a worker forks for a case expected to crash, copies the page
  // tables of this process's memory: what the plan's building freed goes back first.
  malloc_trim(0);
  RunResources res;
  res.shared_bytes = sizeof(Shared) + sizeof(CaseRecord) * total;
  void* mapping = mmap(nullptr, res.shared_bytes, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) {
    *error = std::string("cannot map shared memory: ") + std::strerror(errno);
    return false;
  }
  res.shared = new (mapping) Shared{};
  auto* records = reinterpret_cast<CaseRecord*>(static_cast<char*>(mapping) + sizeof(Shared));
  for (size_t i = 0; i < total; ++i) new (&records[i]) CaseRecord{};
  Shared* shared = res.shared;
  const int jobs = std::max(1, std::min(options.jobs, kMaxJobs));

  char dir_template[] = "/tmp/dlconform-run-XXXXXX";
  if (const char* dir = mkdtemp(dir_template)) res.dir = dir;
  res.workers.resize(jobs);
  int spawn_failures = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  auto spawn = [&](int slot) -> bool {
    int fds[2];
    if (pipe(fds) != 0) return false;
    Worker& w = res.workers[slot];
    if (w.log_path.empty()) {
      w.log_path = (res.dir.empty() ? std::string("/tmp") : res.dir) + "/worker" +
                   std::to_string(slot) + ".log";
    }
    w.killed_for_timeout = false;
    shared->slots[slot].current.store(-1);
    const pid_t pid = fork();
    if (pid < 0) {
      close(fds[0]);
      close(fds[1]);
      return false;
    }
    if (pid == 0) {
      // Its own process group: a timeout kills the worker and the child it may be waiting for.
      setpgid(0, 0);
      close(fds[0]);
      const int log = open(w.log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (log >= 0) {
        dup2(log, 1);
        dup2(log, 2);
        close(log);
      }
      worker_main(participants, cases, shared, records, slot, w.log_path,
                  options.case_timeout_seconds);
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

  size_t scanned = 0;  // records below this index are collected
  auto scan = [&] {
    while (scanned < total && records[scanned].done.load(std::memory_order_acquire) != 0) {
      collect(scanned, records[scanned]);
      ++scanned;
    }
    // Out-of-order completions are collected when the scan reaches them, or below.
  };
  int alive = jobs;
  int64_t last_progress = 0;
  while (alive > 0) {
    std::vector<pollfd> fds;
    std::vector<int> slots;
    for (int s = 0; s < jobs; ++s) {
      if (res.workers[s].fd >= 0) {
        fds.push_back(pollfd{res.workers[s].fd, POLLIN, 0});
        slots.push_back(s);
      }
    }
    const int ready = poll(fds.data(), fds.size(), 20);
    if (ready < 0 && errno != EINTR) {
      *error = std::string("poll failed: ") + std::strerror(errno);
      return false;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Worker& w = res.workers[slots[k]];
      char sink[64];
      if (read(w.fd, sink, sizeof sink) > 0) continue;  // workers write nothing; EOF means exit
      close(w.fd);
      w.fd = -1;
      int status = 0;
      waitpid(w.pid, &status, 0);
      w.pid = -1;
      const int slot = slots[k];
      const int64_t current = shared->slots[slot].current.load();
      if (current >= 0 && records[current].done.load() == 0) {
        CaseRecord& r = records[current];
        judge_dead_case(participants, cases[current], shared->slots[slot].live, status,
                        w.killed_for_timeout, options.case_timeout_seconds, w.log_path, &r);
        r.done.store(1);
        collect(static_cast<size_t>(current), r);
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
    scan();
    // Timeouts.
    const int64_t now = now_ns();
    for (int s = 0; s < jobs; ++s) {
      Worker& w = res.workers[s];
      if (w.fd < 0 || w.killed_for_timeout) continue;
      const int64_t current = shared->slots[s].current.load();
      if (current < 0) continue;
      const double elapsed = static_cast<double>(now - shared->slots[s].started_ns.load()) / 1e9;
      if (elapsed > options.case_timeout_seconds) {
        w.killed_for_timeout = true;
        kill(-w.pid, SIGKILL);  // the worker's group: it and a child running the case
        kill(w.pid, SIGKILL);
      }
    }
    if (options.progress && (now - last_progress > 50'000'000 || alive == 0)) {
      last_progress = now;
      // Completions beyond the scan point count as done for the progress line.
      const size_t done = static_cast<size_t>(shared->done.load());
      options.progress(std::max(done, reported), total, unexpected);
    }
  }
  for (size_t i = 0; i < total; ++i) {
    if (!collected[i] && records[i].done.load() != 0) collect(i, records[i]);
  }
  if (options.progress) options.progress(reported, total, unexpected);
  // Anything never reported (cannot normally happen) is a harness failure, not a silent pass.
  for (size_t i = 0; i < total; ++i) {
    if (!collected[i]) {
      *error = "case " + cases[i].result.id + " produced no result";
      return false;
    }
  }
  return true;
}

}  // namespace dlc
