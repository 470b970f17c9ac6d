// Known bugs of the importer under test ($DLCONFORM_KNOWN) and what the fuzz targets do with an
// input that has one: run it in a forked child, or leave it out, so that the bug cannot end the
// fuzzing process (and a campaign's time does not go to restarting it). Defines fuzz_harness.hpp's
// count_input, known_bug_of and run_known. See fuzz/README.md, "Known bugs: going on past them".
#include "known_bugs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "abi.h"
#include "device_memory.hpp"
#include "judge.h"
#include "phase.h"
#include "sanitizer_build.h"
#include "suppressions.h"
#include "validate.h"

#if DLC_HAS_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

// Present only when libFuzzer is linked in.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));

namespace dlc_fuzz {
namespace {

dlc::Suppressions g_known;            // $DLCONFORM_KNOWN: the importer's known bugs
uint64_t g_known_seen[64] = {};       // how often each rule's known finding came up
std::string g_known_except;           // $DLCONFORM_KNOWN_EXCEPT: the rule a replay must show
// $DLCONFORM_KNOWN_VIA ("PARTY HOW"): a library whose importer the one under test is, or calls
// (the python-importer plugin finds NumPy's from_dlpack in array-api-strict's). Its known bugs
// are met under the importer's own name; they are routed as known, and named as that party's.
dlc::PartyRef g_known_via;
std::string g_known_via_how;

// Whether `rule` is known for `party`, unless it is the one a replay shows.
bool is_known_for(dlc::Rule rule, const dlc::PartyRef& party) {
  return rule != dlc::Rule::none && !party.name.empty() && g_known_except != dlc::id_of(rule) &&
         dlc::find_suppression(g_known, dlc::id_of(rule), dlc::Role::consumer, party) != nullptr;
}

}  // namespace

void say_known_once(dlc::Rule rule, const char* lead, const char* words) {
  if (g_known_seen[static_cast<size_t>(rule) % 64]++ != 0) return;
  if (!is_known_for(rule, under_test()) && is_known_for(rule, g_known_via)) {
    std::fprintf(stderr, "dlconform fuzz: known %s of %s, going on: reached through %s@%s (%s); "
                 "%s%s\n", dlc::id_of(rule), g_known_via.name.c_str(), under_test().name.c_str(),
                 under_test().header.c_str(), g_known_via_how.c_str(), lead, words);
    return;
  }
  std::fprintf(stderr, "dlconform fuzz: known %s of %s@%s, going on: %s%s\n", dlc::id_of(rule),
               under_test().name.c_str(), under_test().header.c_str(), lead, words);
}


void load_known_bugs() {
  const char* known = std::getenv("DLCONFORM_KNOWN");
  if (known == nullptr || *known == '\0') return;
  std::string error;
  if (!dlc::load_suppressions(known, &g_known, &error)) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: DLCONFORM_KNOWN: %s\n", error.c_str());
    std::exit(1);
  }
  // The replay of a filed finding: every known bug but the one it shows.
  if (const char* except = std::getenv("DLCONFORM_KNOWN_EXCEPT"); except != nullptr) {
    g_known_except = except;
    std::erase_if(g_known.entries, [&](const dlc::Suppression& s) { return s.rule == except; });
  }
  if (const char* via = std::getenv("DLCONFORM_KNOWN_VIA"); via != nullptr && *via != '\0') {
    const std::string text = via;
    const size_t space = text.find(' ');
    g_known_via = {text.substr(0, space), under_test().header};
    g_known_via_how = space == std::string::npos ? "" : text.substr(space + 1);
    if (g_known_via.name != under_test().name) {
      std::fprintf(stderr, "dlconform fuzz: known bugs of %s are routed for %s@%s too: %s\n",
                   g_known_via.name.c_str(), under_test().name.c_str(),
                   under_test().header.c_str(), g_known_via_how.c_str());
    } else {
      g_known_via = {};
    }
  }
}

// A known bug of the importer under test with this rule, or of the library its importer reaches
// ($DLCONFORM_KNOWN_VIA), unless it is the one a replay shows.
bool is_known(dlc::Rule rule) {
  return is_known_for(rule, under_test()) || is_known_for(rule, g_known_via);
}

namespace {

// In a child: the write end of the pipe its finding goes through, and the known rule that sent
// the input there (the rule a crash or a sanitizer's report is then named under).
int g_child_pipe = -1;
dlc::Rule g_child_known_rule = dlc::Rule::none;
constexpr int kChildFoundStatus = 86;  // the child's finding is in the pipe
constexpr unsigned kChildSeconds = 5;  // below libFuzzer's -timeout, so the parent never times out

// A child's finding, whole in one write (below PIPE_BUF, so it is atomic).
struct ChildFinding {
  dlc::FindingClass cls;
  dlc::Rule rule;
  char words[sizeof(dlc::Finding::words)];
};
static_assert(sizeof(ChildFinding) <= PIPE_BUF);

// What became of the inputs with a known bug, printed at exit and added to
// $DLCONFORM_FUZZ_STATS (tools/fuzz-campaign sums them over a campaign's processes).
struct KnownCounts {
  uint64_t inputs = 0;            // every input this process was given
  uint64_t children = 0;          // known-bug inputs run in a forked child
  uint64_t children_stopped = 0;  // ... whose child a known bug stopped (a crash, a sanitizer)
  uint64_t left_out = 0;          // known-bug inputs not handed to the importer at all
} g_counts;
// $DLCONFORM_KNOWN_CHILDREN: the most of the time children may take; by default a tenth under
// libFuzzer, and no limit in a replay, where each input matters.
double g_child_share = 0.1;
uint64_t g_child_ns = 0;
uint64_t g_first_input_ns = 0;

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

}  // namespace

bool in_child() { return g_child_pipe >= 0; }
dlc::Rule child_known_rule() { return g_child_known_rule; }

// In a child: hand the finding to the parent, which judges it, and end here, before libFuzzer's
// crash file or a sanitizer's exit can follow.
void child_stop(const dlc::Finding& f) {
  ChildFinding out{};
  out.cls = f.cls;
  out.rule = f.rule;
  std::memcpy(out.words, f.words, sizeof out.words);
  ssize_t ignored = write(g_child_pipe, &out, sizeof out);
  (void)ignored;
  _exit(kChildFoundStatus);
}

namespace {

void print_known_counts() {
  const KnownCounts& c = g_counts;
  if (c.children + c.left_out == 0 && g_known.entries.empty()) return;
  char line[400];
  std::snprintf(line, sizeof line,
                "dlconform fuzz: inputs with a known bug of %s@%s: %llu of %llu; %llu run in a "
                "child (%llu stopped there by the known bug), %llu left out\n",
                under_test().name.c_str(), under_test().header.c_str(),
                static_cast<unsigned long long>(c.children + c.left_out),
                static_cast<unsigned long long>(c.inputs),
                static_cast<unsigned long long>(c.children),
                static_cast<unsigned long long>(c.children_stopped),
                static_cast<unsigned long long>(c.left_out));
  write_stderr(line);
  if (const char* path = std::getenv("DLCONFORM_FUZZ_STATS"); path != nullptr && *path != '\0') {
    const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    // "inputs=N children=N stopped=N left_out=N known=LAY-8:12,LAY-1:3": the known bugs met.
    std::string stats = "inputs=" + std::to_string(c.inputs) +
                        " children=" + std::to_string(c.children) +
                        " stopped=" + std::to_string(c.children_stopped) +
                        " left_out=" + std::to_string(c.left_out) + " known=";
    for (const dlc::RuleInfo& rule : dlc::all_rules()) {
      if (const uint64_t seen = g_known_seen[static_cast<size_t>(rule.rule) % 64]; seen != 0) {
        stats += std::string(rule.id) + ":" + std::to_string(seen) + ",";
      }
    }
    stats += "\n";
    ssize_t ignored = write(fd, stats.data(), stats.size());  // one O_APPEND write: whole lines
    (void)ignored;
    close(fd);
  }
}

}  // namespace

void count_input() {
  if (g_counts.inputs++ != 0) return;
  g_first_input_ns = now_ns();
  g_child_share = LLVMFuzzerMutate != nullptr ? 0.1 : 1.0;
  // A forked child cannot use its parent's CUDA context: with device memory, known bugs are
  // left out.
  if (device_memory_on()) g_child_share = 0;
  if (const char* share = std::getenv("DLCONFORM_KNOWN_CHILDREN")) {
    char* end = nullptr;
    const double value = std::strtod(share, &end);
    if (end == share || *end != '\0' || !(value >= 0 && value <= 1)) {
      std::fprintf(stderr,
                   "dlconform fuzz: cannot start: DLCONFORM_KNOWN_CHILDREN: expected a share of "
                   "the time from 0 to 1 but found %s\n", share);
      std::exit(1);
    }
    g_child_share = value;
  }
  std::atexit(print_known_counts);
}

namespace {

// Whether the next input with a known bug goes to a child: while children have taken less than
// their share of the time.
bool child_has_time() {
  if (g_child_share >= 1) return true;
  if (g_child_share <= 0) return false;
  const double elapsed = static_cast<double>(now_ns() - g_first_input_ns);
  return static_cast<double>(g_child_ns) < g_child_share * elapsed;
}

// In the child: at most kChildMemory more address space than the parent held. A known bug that
// allocates for an invalid tensor (NumPy's fresh array of 2^32 elements for NULL data) then meets
// a failed allocation, not libFuzzer's malloc limit, whose hook would write an oom- file from the
// child as if the parent had stopped.
constexpr uint64_t kChildMemory = uint64_t{2} << 30;

void limit_child_memory() {
  const int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char text[128] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return;
  const uint64_t pages = std::strtoull(text, nullptr, 10);  // the first field: the whole VM
  const uint64_t held = pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return;
  const rlim_t wanted = static_cast<rlim_t>(held + kChildMemory);
  if (limit.rlim_max != RLIM_INFINITY && wanted > limit.rlim_max) return;
  limit.rlim_cur = wanted;
  setrlimit(RLIMIT_AS, &limit);
}

// In the child: its findings go to the parent, its own words nowhere (a sanitizer's report on
// a known bug would fill a campaign's log), a hang ends it, and the sanitizers' death callback is
// ours rather than libFuzzer's (which would write a crash file).
void become_child(int pipe_fd, dlc::Rule known) {
  g_child_pipe = pipe_fd;
  g_child_known_rule = known;
  set_input_rule(known);  // a crash is named under the known rule
  if (LLVMFuzzerMutate != nullptr) {
    const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
  }
  signal(SIGALRM, SIG_DFL);
  alarm(kChildSeconds);
  limit_child_memory();
#if DLC_HAS_SANITIZER
  __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

// Reads the child's finding; false when it sent none (it ran through, or died without words).
bool read_child_finding(int fd, dlc::Finding* f) {
  ChildFinding in{};
  size_t got = 0;
  while (got < sizeof in) {
    const ssize_t n = read(fd, reinterpret_cast<char*>(&in) + got, sizeof in - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (got != sizeof in) return false;
  f->cls = in.cls;
  f->rule = in.rule;
  std::memcpy(f->words, in.words, sizeof f->words);
  f->words[sizeof f->words - 1] = '\0';
  return true;
}

}  // namespace

dlc::Rule known_bug_of(const dlc::LoadedPlugin& consumer, const Built& built, bool* valid) {
  if (valid != nullptr) *valid = false;
  if (under_test().name != consumer.table->name) return dlc::Rule::none;  // no string copy
  const dlc::abi::StructKind kind = dlc::abi::struct_kind_of_name(built.handoff.name);
  dlc::Rule edges[kMaxEdges];
  const int n = current_input() != nullptr ? valid_edges(*current_input(), edges) : 0;
  dlc::ValidateOptions options;
  options.words = false;  // the rules route the input; a finding's words come from the judge
  options.consumer_version = consumer.table->dlpack_version;
  // An ndim above a consumer's own limit breaks no DLPack rule; the validator must go on to the
  // rules the input does break (a NULL shape at ndim 40, which NumPy reads).
  options.max_ndim = static_cast<int32_t>(kMaxBackedNdim);
  // A versioned struct is built, and read, as 1.x code reads it, whatever a 0.x consumer's own
  // version says (its major 0 would make a struct of major 0 look like its own).
  if (kind == dlc::abi::StructKind::versioned && options.consumer_version.major < 1) {
    options.consumer_version = {1, 0};
  }
  dlc::ValidateResult verdict;
  {
    dlc::ScopedPhase phase("validate()", "reference-validator", dlc::Party::harness);
    dlc::validate(built.handoff, options, &verdict);
  }
  if (valid != nullptr) *valid = verdict.first_consumer_must() == nullptr;
  // $DLCONFORM_SAY_RULES: the rules the input breaks and the edge cases it exercises, for
  // tools/fuzz-campaign, which makes the first of them known to a campaign after a new crash.
  static const bool say_rules = std::getenv("DLCONFORM_SAY_RULES") != nullptr;
  if (say_rules && current_input() != nullptr) {
    // A rule that binds producers only (DEV-2) comes last: a consumer may take such a tensor.
    std::string line = "dlconform fuzz: input rules: breaks";
    for (const bool producers_only : {false, true}) {
      for (int i = 0; i < verdict.count; ++i) {
        const dlc::Rule rule = verdict.violations[i].rule;
        if (verdict.violations[i].weight() == dlc::Severity::must &&
            dlc::info(rule).producers_only == producers_only) {
          line += std::string(" ") + dlc::id_of(rule);
        }
      }
    }
    line += "; exercises";
    for (int i = 0; i < n; ++i) line += std::string(" ") + dlc::id_of(edges[i]);
    line += "\n";
    write_stderr(line.c_str());
  }
  // A crash on an invalid tensor is named under the first MUST rule it breaks that binds
  // consumers too (torch's abort on an overflowing storage size is LAY-10's), not under the edge
  // case rule_exercised() guessed. A CPU device_id other than 0 (DEV-2, the producer's rule) is
  // no cause: torch's abort on negative strides stays LAY-8's with one.
  dlc::Rule broken[kMaxEdges];
  int broken_count = 0;
  for (int i = 0; i < verdict.count; ++i) {
    const dlc::Rule rule = verdict.violations[i].rule;
    if (verdict.violations[i].weight() == dlc::Severity::must &&
        !dlc::info(rule).producers_only) {
      if (broken_count == 0) set_input_rule(rule);
      if (broken_count < kMaxEdges) broken[broken_count++] = rule;
    }
  }
  set_input_broken(broken, broken_count);
  if (g_known.entries.empty()) return dlc::Rule::none;
  // A legacy struct to a consumer of DLPack 1.0+ that is known to refuse one (VER-4, Arrow).
  if (kind == dlc::abi::StructKind::legacy && consumer.table->dlpack_version.major >= 1 &&
      is_known(dlc::Rule::VER_4)) {
    return dlc::Rule::VER_4;
  }
  // An invalid tensor: any of its MUST violations that the importer is known to accept (one it
  // also has would surface mixed with the known bug's effects). The replayed finding's own rule
  // never counts, so that its replay reaches the importer in this process. A violation of a rule
  // that binds producers only leaves the tensor one a consumer may take: its edge cases count.
  bool invalid = false;
  for (int i = 0; i < verdict.count; ++i) {
    const dlc::Violation& v = verdict.violations[i];
    if (v.weight() != dlc::Severity::must) continue;
    if (g_known_except == dlc::id_of(v.rule)) return dlc::Rule::none;
    invalid = invalid || !dlc::info(v.rule).producers_only;
    if (is_known(v.rule)) return v.rule;
  }
  if (invalid) return dlc::Rule::none;
  // A valid one (for a consumer): a known bug on a valid edge case it exercises; never on plain
  // layouts.
  for (int i = 0; i < n; ++i) {
    if (g_known_except == dlc::id_of(edges[i])) return dlc::Rule::none;
  }
  for (int i = 0; i < n; ++i) {
    if (is_known(edges[i])) return edges[i];
  }
  return dlc::Rule::none;
}

void run_known(const dlc::LoadedPlugin& consumer, Built& built, dlc::Rule known) {
  say_known_once(known, "", "inputs that have it run in a child, or are left out");
  int fds[2] = {-1, -1};
  if (!child_has_time() || pipe2(fds, O_CLOEXEC) != 0) {
    ++g_counts.left_out;
    return;
  }
  const uint64_t started = now_ns();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    ++g_counts.left_out;
    return;
  }
  if (pid == 0) {
    close(fds[0]);
    become_child(fds[1], known);
    (void)run_consumer(consumer, built);
    _exit(0);
  }
  close(fds[1]);
  dlc::Finding f;
  const bool said = read_child_finding(fds[0], &f);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_child_ns += now_ns() - started;
  ++g_counts.children;
  if (!said) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;  // ran through
    // Died without words (killed, or an exit of the importer's own): named as the matrix names
    // a worker's death, under the known rule.
    const bool timed_out = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
    dlc::judge_death(WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                     WIFEXITED(status) ? WEXITSTATUS(status) : 0, timed_out, kChildSeconds, "",
                     known, &f);
  }
  if (is_known(f.rule)) {
    ++g_counts.children_stopped;
    return;
  }
  // A finding the known bug does not explain: this process stops on it, as if it ran here.
  dlc::SafeText(f.words + std::strlen(f.words), sizeof f.words - std::strlen(f.words))
      .add(" (in a child: the input also has the known bug ").add(dlc::id_of(known)).add(')');
  print_finding(f);
  print_reproducer();
  std::abort();
}

void import_one(const dlc::LoadedPlugin& consumer, const uint8_t* data, size_t size,
                bool versioned) {
  install_fault_handler();
  count_input();
  const TensorInput in = decode(data, size);
  set_current_input(&in, versioned);
  const uint32_t own_major = std::max(consumer.table->dlpack_version.major, 1u);
  Built built = build_tensor(in, versioned, versioned ? own_major : 0, true);
  if (!built.skipped) {
    bool valid = false;
    const dlc::Rule known = known_bug_of(consumer, built, &valid);
    if (known != dlc::Rule::none) {
      run_known(consumer, built, known);
    } else {
      const Outcome out = run_consumer(consumer, built);
      if (valid) note_device_refusal(consumer, in, out);
    }
  }
  set_current_input(nullptr, versioned);
}

}  // namespace dlc_fuzz
