#include "runner.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "alloc_track.h"
#include "availability.h"
#include "child.h"
#include "exchange.h"
#include "fault.h"
#include "hardening.h"
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
  // Followed by one RunCase and one CaseRecord per case.
};

// A case in the run's shared mapping: what the exchange needs, and the expectation (it decides
// whether the worker runs the case in a child of its own).
struct RunCase {
  CaseSpec spec;
  Expectation expected;
};

CaseDef def_of(const RunCase& r) {
  CaseDef c;
  static_cast<CaseSpec&>(c) = r.spec;
  c.result.expected = r.expected;
  return c;
}

// The shared mapping of a run: [Shared][RunCase x total][CaseRecord x total].
struct RunLayout {
  size_t specs_at = 0, records_at = 0, bytes = 0;
  explicit RunLayout(size_t total) {
    auto up = [](size_t n) { return (n + 63) & ~size_t{63}; };
    specs_at = up(sizeof(Shared));
    records_at = up(specs_at + sizeof(RunCase) * total);
    bytes = up(records_at + sizeof(CaseRecord) * total);
  }
};

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A worker and everything in its process group (the child running a case). The worker itself
// too, in case it is killed before its setpgid.
void kill_worker(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

// Publishes a case's record: the parent collects it, and counts it done.
void mark_done(CaseRecord& record, std::atomic<int64_t>& done) {
  record.done.store(1, std::memory_order_release);
  done.fetch_add(1);
}

// Whether this worker's output goes to its own log (never truncate anything else).
bool g_output_is_log = false;

// Worker-side state the fault handler reads.
CaseRecord* g_records = nullptr;
std::atomic<int64_t>* g_done = nullptr;
volatile int64_t g_current_case = -1;

bool owned_by_harness(const void* p) {
  return process_host().arena.facts(reinterpret_cast<uintptr_t>(p)).found;
}

// What a process must know before it forks workers (or the template that forks them): the
// plugins' code ranges, to attribute a fault, and the arena, to tell a foreign free.
void prepare_fault_attribution() {
  refresh_code_ranges();
  alloc_track::install_sanitizer_hooks();
  alloc_track::set_harness_memory_check(owned_by_harness);
}

// Async-signal-safe: judge the fault, write the case's record, exit.
void on_fault(int sig, siginfo_t* info, void* context) {
  const int64_t i = g_current_case;
  if (i >= 0 && g_records != nullptr) {
    FaultFacts facts;
    facts.signal = decode_signal(sig, info, context);
    facts.block = host_facts(process_host(), facts.signal.address);
    facts.raw = g_case_context.raw;
    facts.misaligned_data = g_case_context.misaligned;
    facts.case_rule = g_case_context.rule;
    facts.where = g_phase.where;
    facts.plugin = g_phase.plugin;
    facts.role = role_of(g_phase.party);
    Finding f;
    judge_fault(facts, &f);
    CaseRecord& r = g_records[i];
    r.verdict = Verdict::crash;
    r.cls = f.cls;
    r.rule = f.rule;
    r.role = f.role;
    SafeText(r.detail, sizeof r.detail).add(signal_name(sig)).add(": ").add(f.words);
    mark_done(r, *g_done);
  }
  _exit(86);
}

void install_fault_handlers() {
  route_fatal_signals(on_fault);
  terminate_without_what();
}

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
    f.role = role_of(static_cast<Party>(r->phase_party));  // whose code ran when it died
  }
  r->cls = f.cls;
  r->rule = f.rule;
  r->role = f.role;
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
  if (g_output_is_log && ftruncate(STDERR_FILENO, 0) == 0) lseek(STDERR_FILENO, 0, SEEK_SET);
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a hung case goes with its worker, however that ends
    start_device_runtime(participants, c);
    run_exchange(participants, c, &records[i]);
    mark_done(records[i], shared->done);
    _exit(0);
  }
  if (pid < 0) {  // no child to be had: the case runs here, as any other
    run_exchange(participants, c, &records[i]);
  } else {
    int status = 0;
    reap_child(pid, &status);
    if (records[i].done.load(std::memory_order_acquire) != 0) return;
    judge_dead_case(participants, c, shared->slots[slot].live, status, false, timeout_seconds,
                    log_path, &records[i]);
  }
  mark_done(records[i], shared->done);
}

[[noreturn]] void worker_main(const std::vector<Participant>& participants, int64_t total,
                              const RunCase* specs, Shared* shared, CaseRecord* records,
                              int slot, const std::string& log_path, double timeout_seconds) {
  g_records = records;
  g_done = &shared->done;
  install_fault_handlers();
  WorkerSlot& my = shared->slots[slot];
  alloc_track::set_live_summary(&my.live);
  // A device runtime does not survive a fork, and a context per case costs the driver's
  // serialised context creation (about 0.14 s on an H200, so a ceiling of ~7 cases/s however many
  // workers): a worker keeps the runtime its first device case starts for the next ones.
  bool device_started = false;
  for (;;) {
    const int64_t i = shared->next.fetch_add(1);
    if (i >= total) break;
    my.live = alloc_track::Summary{};
    my.started_ns.store(now_ns());
    my.current.store(i);
    g_current_case = i;
    g_party_mirror = &records[i].phase_party;
    const CaseDef c = def_of(specs[i]);
    const bool broken = specs[i].expected == Expectation::broken;
    const bool device = specs[i].spec.isolated && specs[i].spec.unavailable_party < 0;
    if (broken && !device_started) {
      run_in_child(participants, c, i, records, shared, slot, log_path, timeout_seconds);
    } else if (device || broken) {
      // Here, in this worker's runtime. A broken case may spoil it (a sticky CUDA error), and
      // no child is forked from a process the runtime's threads share: the worker ends after
      // one, and the parent starts a fresh one for the cases left.
      if (broken && g_output_is_log && ftruncate(STDERR_FILENO, 0) == 0) {
        lseek(STDERR_FILENO, 0, SEEK_SET);
      }
      if (device && !device_started) start_device_runtime(participants, c);
      run_exchange(participants, c, &records[i]);
      mark_done(records[i], shared->done);
      device_started = device_started || device;
      if (broken) {
        g_current_case = -1;
        my.current.store(-1);
        _exit(0);
      }
    } else {
      run_exchange(participants, c, &records[i]);
      mark_done(records[i], shared->done);
    }
    g_current_case = -1;
    my.current.store(-1);
  }
  _exit(0);
}

// Starts a worker in the process that calls it (the parent, or the template): its own process
// group (a timeout kills it and the child it may be waiting for), its output to its log, and
// `alive_fd`, the write end of a pipe whose EOF tells the parent it is gone.
[[noreturn]] void become_worker(const std::vector<Participant>& participants, int64_t total,
                                void* mapping, int slot, const std::string& log_path,
                                double timeout_seconds) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // no worker outlives the process that started it
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (log >= 0) {
    dup2(log, 1);
    dup2(log, 2);
    close(log);
    g_output_is_log = true;
  }
  const RunLayout layout(static_cast<size_t>(total));
  char* base = static_cast<char*>(mapping);
  worker_main(participants, total, reinterpret_cast<const RunCase*>(base + layout.specs_at),
              reinterpret_cast<Shared*>(base), reinterpret_cast<CaseRecord*>(base + layout.records_at),
              slot, log_path, timeout_seconds);
}

// ---- The worker template ------------------------------------------------------------------
// A process forked once the plugins are loaded and before the plan is built: workers are forked
// from it, not from the parent. A fork copies the page tables of the process it copies, and the
// parent by then holds the plan and the results (about 18 MB for the built-in matrix, against
// under 1 MB here); a worker, and each child it forks for a case expected to crash, pays for
// that on every fork and exit. The parent asks over a socket; the run's shared mapping and each
// worker's pipe travel as file descriptors.

struct TemplateRequest {
  enum Kind : int { begin_run, spawn, reap, end_run } kind = begin_run;
  int slot = 0;
  int64_t total = 0;
  pid_t pid = 0;
  double timeout_seconds = 0;
  char log_path[512] = {};
};
struct TemplateReply {
  int ok = 0;
  pid_t pid = -1;
  int status = 0;
  int error = 0;
};

struct WorkerTemplate {
  pid_t pid = -1;
  int socket = -1;
} g_template;

bool send_with_fd(int socket, const void* data, size_t size, int fd) {
  iovec iov{const_cast<void*>(data), size};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  ssize_t n;
  while ((n = sendmsg(socket, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  return n == static_cast<ssize_t>(size);
}

// The message's size, 0 at the end of the stream, -1 on an error; `fd` gets a passed descriptor.
ssize_t receive_with_fd(int socket, void* data, size_t size, int* fd) {
  iovec iov{data, size};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = recvmsg(socket, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (fd != nullptr) *fd = -1;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); n > 0 && c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && fd != nullptr) {
      std::memcpy(fd, CMSG_DATA(c), sizeof *fd);
    }
  }
  return n;
}

// The anonymous memory the plugins' libraries filled when they loaded (allocator arenas, BLAS
// buffers) in huge pages: a worker's fork then copies one entry per 2 MB instead of 512 (forks
// were a third of the mocks' CPU time; this saves a fifth of it). Only regions at least half
// resident and under 1 GB, so that no sparse one (a sanitizer's shadow) grows into huge pages.
void collapse_dense_anonymous_memory() {
  constexpr int kCollapse = 25;  // MADV_COLLAPSE (Linux 6.1), which older headers lack
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  uintptr_t start = 0, end = 0;
  bool anonymous = false;
  std::vector<std::pair<uintptr_t, uintptr_t>> dense;
  while (std::getline(smaps, line)) {
    unsigned long a = 0, b = 0;
    char perms[8] = {};
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx %7s %*s %*s %*s%n", &a, &b, perms, &consumed) == 3) {
      start = a;
      end = b;
      const std::string rest = line.substr(static_cast<size_t>(consumed));
      const size_t name = rest.find_first_not_of(' ');
      anonymous = std::string(perms) == "rw-p" &&
                  (name == std::string::npos || rest.compare(name, 6, "[heap]") == 0);
      continue;
    }
    unsigned long rss_kb = 0;
    if (anonymous && std::sscanf(line.c_str(), "Rss: %lu kB", &rss_kb) == 1) {
      const uintptr_t size = end - start;
      if (size <= (uintptr_t{1} << 30) && rss_kb * 1024 * 2 >= size) dense.emplace_back(start, end);
      anonymous = false;
    }
  }
  for (auto [a, b] : dense) {
    a = (a + kHuge - 1) & ~(kHuge - 1);
    b &= ~(kHuge - 1);
    if (b > a) madvise(reinterpret_cast<void*>(a), b - a, kCollapse);  // best effort
  }
}

[[noreturn]] void template_main(const std::vector<Participant>& participants, int socket,
                                pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);
  collapse_dense_anonymous_memory();
  // A child a worker forked for a case, left behind when a timeout kills the worker's group,
  // comes back here to be reaped.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  void* mapping = nullptr;
  size_t mapping_bytes = 0;
  int64_t total = 0;
  for (;;) {
    TemplateRequest r;
    int fd = -1;
    const ssize_t n = receive_with_fd(socket, &r, sizeof r, &fd);
    if (n <= 0) _exit(0);  // the parent is done (or gone)
    TemplateReply reply;
    switch (r.kind) {
      case TemplateRequest::begin_run: {
        if (mapping != nullptr) munmap(mapping, mapping_bytes);
        total = r.total;
        mapping_bytes = RunLayout(static_cast<size_t>(total)).bytes;
        mapping = mmap(nullptr, mapping_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (mapping == MAP_FAILED) {
          mapping = nullptr;
          reply.error = errno;
        }
        reply.ok = mapping != nullptr;
        break;
      }
      case TemplateRequest::spawn: {
        if (mapping == nullptr || fd < 0) {
          reply.error = EINVAL;
          break;
        }
        const pid_t pid = fork();
        if (pid == 0) {
          close(socket);
          become_worker(participants, total, mapping, r.slot, r.log_path, r.timeout_seconds);
        }
        reply.ok = pid > 0;
        reply.pid = pid;
        reply.error = pid < 0 ? errno : 0;
        break;
      }
      case TemplateRequest::reap: {
        int status = 0;
        reply.ok = reap_child(r.pid, &status);
        reply.status = status;
        break;
      }
      case TemplateRequest::end_run:
        if (mapping != nullptr) munmap(mapping, mapping_bytes);
        mapping = nullptr;
        while (waitpid(-1, nullptr, WNOHANG) > 0) {
        }
        reply.ok = 1;
        break;
    }
    if (fd >= 0) close(fd);
    if (!send_with_fd(socket, &reply, sizeof reply, -1)) _exit(0);
  }
}

bool other_threads_running() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8) > 1;
  }
  return true;  // unknown: assume the worst
}

// One request and its reply; false if the template is gone (it is then stopped for good).
bool ask_template(const TemplateRequest& request, int fd, TemplateReply* reply) {
  if (g_template.socket < 0) return false;
  if (send_with_fd(g_template.socket, &request, sizeof request, fd) &&
      receive_with_fd(g_template.socket, reply, sizeof *reply, nullptr) ==
          static_cast<ssize_t>(sizeof *reply)) {
    return true;
  }
  stop_worker_template();
  return false;
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
  int shared_fd = -1;
  bool via_template = false;  // the workers are the template's children
  std::string dir;
  std::vector<Worker> workers;
  ~RunResources() {
    for (Worker& w : workers) {
      if (w.pid > 0) {
        kill_worker(w.pid);
        reap(w.pid);
      }
      if (w.fd >= 0) close(w.fd);
      if (!w.log_path.empty()) unlink(w.log_path.c_str());
    }
    if (via_template) {
      TemplateRequest r;
      r.kind = TemplateRequest::end_run;
      TemplateReply reply;
      (void)ask_template(r, -1, &reply);
    }
    if (!dir.empty()) rmdir(dir.c_str());
    if (shared != nullptr) munmap(shared, shared_bytes);
    if (shared_fd >= 0) close(shared_fd);
  }
  // Waits for a worker that exited or was killed: its exit status.
  int reap(pid_t pid) const {
    int status = 0;
    if (via_template) {
      TemplateRequest r;
      r.kind = TemplateRequest::reap;
      r.pid = pid;
      TemplateReply reply;
      if (ask_template(r, -1, &reply)) status = reply.status;
    } else {
      reap_child(pid, &status);
    }
    return status;
  }
};

}  // namespace

bool run_cases(const std::vector<Participant>& participants, std::vector<CaseDef>& cases,
               const RunnerOptions& options, std::string* error) {
  const size_t total = cases.size();
  RunProgress counts{"matrix", 0, total, 0, 0};  // `done`: the cases collected
  std::vector<bool> collected(total, false);
  auto progress = [&](size_t done) {
    if (!options.progress) return;
    RunProgress now = counts;
    now.done = done;
    options.progress(now);
  };
  prepare_fault_attribution();
  auto collect = [&](size_t i, const CaseRecord& record) {
    if (collected[i]) return;
    collected[i] = true;
    to_result(record, &cases[i].result);
    mark_hardening(cases[i].result);
    counts.tally(cases[i].result, options.known);
  };
  if (!options.isolate) {
    std::vector<CaseRecord> records(total);
    for (size_t i = 0; i < total; ++i) {
      run_exchange(participants, cases[i], &records[i]);
      collect(i, records[i]);
      progress(counts.done);
    }
    return true;
  }

  RunResources res;
  const RunLayout layout(total);
  res.shared_bytes = layout.bytes;
  res.shared_fd = memfd_create("dlconform-run", MFD_CLOEXEC);
  if (res.shared_fd < 0 || ftruncate(res.shared_fd, static_cast<off_t>(layout.bytes)) != 0) {
    *error = std::string("cannot create the run's shared memory: ") + std::strerror(errno);
    return false;
  }
  void* mapping = mmap(nullptr, layout.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, res.shared_fd, 0);
  if (mapping == MAP_FAILED) {
    *error = std::string("cannot map shared memory: ") + std::strerror(errno);
    return false;
  }
  res.shared = new (mapping) Shared{};
  char* base = static_cast<char*>(mapping);
  auto* specs = reinterpret_cast<RunCase*>(base + layout.specs_at);
  auto* records = reinterpret_cast<CaseRecord*>(base + layout.records_at);
  for (size_t i = 0; i < total; ++i) {
    new (&specs[i]) RunCase{cases[i], cases[i].result.expected};
    new (&records[i]) CaseRecord{};
  }
  Shared* shared = res.shared;
  const int jobs = std::max(1, std::min(options.jobs, kMaxJobs));

  char dir_template[] = "/tmp/dlconform-run-XXXXXX";
  if (const char* dir = mkdtemp(dir_template)) res.dir = dir;
  res.workers.resize(jobs);
  int spawn_failures = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  if (g_template.socket >= 0) {
    TemplateRequest r;
    r.kind = TemplateRequest::begin_run;
    r.total = static_cast<int64_t>(total);
    TemplateReply reply;
    res.via_template = ask_template(r, res.shared_fd, &reply) && reply.ok;
  }
  if (!res.via_template) malloc_trim(0);  // what the plan's building freed is not copied
  auto spawn = [&](int slot) -> bool {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    Worker& w = res.workers[slot];
    if (w.log_path.empty()) {
      w.log_path = (res.dir.empty() ? std::string("/tmp") : res.dir) + "/worker" +
                   std::to_string(slot) + ".log";
    }
    w.killed_for_timeout = false;
    shared->slots[slot].current.store(-1);
    pid_t pid = -1;
    if (res.via_template) {
      TemplateRequest r;
      r.kind = TemplateRequest::spawn;
      r.slot = slot;
      r.timeout_seconds = options.case_timeout_seconds;
      std::snprintf(r.log_path, sizeof r.log_path, "%s", w.log_path.c_str());
      TemplateReply reply;
      if (ask_template(r, fds[1], &reply) && reply.ok) pid = reply.pid;
      if (pid < 0) errno = reply.error != 0 ? reply.error : ECHILD;
    } else {
      pid = fork();
      if (pid == 0) {
        close(fds[0]);
        become_worker(participants, static_cast<int64_t>(total), mapping, slot, w.log_path,
                      options.case_timeout_seconds);
      }
    }
    close(fds[1]);
    if (pid < 0) {
      close(fds[0]);
      return false;
    }
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
      const int status = res.reap(w.pid);
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
        kill_worker(w.pid);
      }
    }
    if (options.progress && (now - last_progress > 50'000'000 || alive == 0)) {
      last_progress = now;
      // Completions beyond the scan point count as done for the progress line.
      const size_t done = static_cast<size_t>(shared->done.load());
      progress(std::max(done, counts.done));
    }
  }
  for (size_t i = 0; i < total; ++i) {
    if (!collected[i] && records[i].done.load() != 0) collect(i, records[i]);
  }
  progress(counts.done);
  // Anything never reported (cannot normally happen) is a harness failure, not a silent pass.
  for (size_t i = 0; i < total; ++i) {
    if (!collected[i]) {
      *error = "case " + cases[i].result.id + " produced no result";
      return false;
    }
  }
  return true;
}

bool start_worker_template(const std::vector<Participant>& participants, std::string* error) {
  if (g_template.socket >= 0) return true;
  // A fork copies only the calling thread. A plugin that started threads (a framework's pool)
  // may have one inside the allocator right now, and its lock would stay taken in the template
  // and in every worker forked from it. Such a process keeps forking its workers itself, later,
  // once its threads are idle.
  if (other_threads_running()) return true;
  // Built here once, not in every worker.
  (void)tensor_catalogue();
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    *error = std::string("cannot start the worker template: ") + std::strerror(errno);
    return false;
  }
  // What the template needs of this process, set once: faults are attributed to plugins by
  // their code ranges, and foreign frees checked against the arena.
  prepare_fault_attribution();
  const pid_t parent = getpid();
  const pid_t pid = fork_with_channel(sockets);
  if (pid < 0) {
    *error = std::string("cannot start the worker template: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) template_main(participants, sockets[1], parent);
  g_template = WorkerTemplate{pid, sockets[0]};
  return true;
}

void stop_worker_template() {
  if (g_template.socket < 0) return;
  close(g_template.socket);  // the template exits at the end of its stream
  int status = 0;
  reap_child(g_template.pid, &status);
  g_template = WorkerTemplate{};
}

}  // namespace dlc
