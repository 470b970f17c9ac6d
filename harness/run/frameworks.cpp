#include "frameworks.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "blame.h"
#include "dlc_config.h"
#include "hardening.h"
#include "profile.h"
#include "shell_quote.h"

namespace dlc {
namespace {

namespace fs = std::filesystem;

bool verdict_of(const std::string& text, Verdict* out) {
  for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::crash, Verdict::timeout, Verdict::skip}) {
    if (text == to_string(v)) {
      *out = v;
      return true;
    }
  }
  return false;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) fields.push_back(field);
  if (!line.empty() && line.back() == '\t') fields.emplace_back();
  return fields;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string env_root() {
  if (const char* dir = std::getenv("DLCONFORM_ENV_DIR")) return dir;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "/root") + "/.cache/dlconform/venvs";
}

// Where the pins files are: the source tree's envs/, or $DLCONFORM_ENVS_DIR (tools/dev latest).
std::string envs_dir() {
  const char* dir = std::getenv("DLCONFORM_ENVS_DIR");
  return dir != nullptr && *dir != '\0' ? dir : DLC_SOURCE_ENVS_DIR;
}

// How messages name a pins file: envs/NAME.txt, or its path when the pins are elsewhere.
std::string pins_label(const std::string& name) {
  const std::string dir = envs_dir();
  return dir == DLC_SOURCE_ENVS_DIR ? "envs/" + name + ".txt" : dir + "/" + name + ".txt";
}

bool is_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return ch == '_' || std::isalnum(static_cast<unsigned char>(ch));
  });
}

CaseResult unavailable(const std::string& env, const std::string& why) {
  CaseResult r;
  r.id = "framework/" + env + "/unavailable";
  r.scenario = "framework";
  r.producer = {env, "-"};
  r.consumer = {"-", "-"};
  r.tensor = "-";
  r.verdict = Verdict::skip;
  r.expected = Expectation::skip;
  r.detail = why;
  return r;
}

}  // namespace

bool parse_environment_file(std::string_view text,
                            std::vector<std::pair<std::string, std::string>>* out,
                            std::string* error) {
  out->clear();
  size_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos || !is_variable_name(line.substr(0, eq))) {
      *error = "line " + std::to_string(number) + ": expected VAR=VALUE but found '" +
               std::string(line.substr(0, 80)) + "'";
      return false;
    }
    out->emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return true;
}

std::string environment_prefix(const std::vector<std::pair<std::string, std::string>>& vars) {
  std::string prefix;
  for (const auto& [name, value] : vars) prefix += name + "=" + shell_quote(value) + " ";
  return prefix;
}

std::vector<std::string> all_framework_envs() {
  std::vector<std::string> names = {"debian"};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(envs_dir(), ec)) {
    if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

FrameworkEnv resolve_framework_env(const std::string& name) {
  FrameworkEnv env;
  env.name = name;
  std::error_code ec;
  if (name == "debian") {
    // Debian's python3-numpy and python3-torch, in Debian's own interpreter.
    if (fs::exists("/usr/bin/python3", ec)) env.python = "/usr/bin/python3";
    else env.why = "Debian's /usr/bin/python3 is not installed (tools/dev installs it)";
    return env;
  }
  const std::string pins = envs_dir() + "/" + name + ".txt";
  if (!fs::exists(pins, ec)) {
    env.why = "no framework environment named " + name + " (expected " + pins_label(name) + ")";
    env.exists = false;
    return env;
  }
  const std::string dir = env_root() + "/" + name;
  const std::string python = dir + "/bin/python";
  if (!fs::exists(python, ec)) {
    env.why = "framework environment " + name + " is not installed in " + dir +
              ": run `tools/dev envs " + name + "`";
    return env;
  }
  if (read_file(dir + "/.dlconform-pins") != read_file(pins)) {
    env.why = "framework environment " + name + " in " + dir + " was made from other pins than " +
              pins_label(name) + ": run `tools/dev envs " + name + "`";
    return env;
  }
  // The variables its `# environment:` header line asks for, as tools/dev resolved them.
  const std::string vars = dir + "/.dlconform-environment";
  if (fs::exists(vars, ec)) {
    std::string why;
    if (!parse_environment_file(read_file(vars), &env.environment, &why)) {
      env.why = "framework environment " + name + ": " + vars + ": " + why +
                ": run `tools/dev envs " + name + "`";
      return env;
    }
  }
  env.python = python;
  return env;
}

bool parse_framework_record(const std::string& line, CaseResult* out) {
  const std::vector<std::string> f = split_tabs(line);
  if (f.size() != 12 || f[0].empty()) return false;
  CaseResult r;
  r.id = f[0];
  r.scenario = f[1];
  r.producer = {f[2], f[3]};
  r.consumer = {f[4], f[5]};
  r.tensor = f[6];
  if (!verdict_of(f[7], &r.verdict)) return false;
  // A framework that is not there is a skip, as expected; every other case must pass (its known
  // findings are suppressed with reasons, per environment).
  // A producer's refusal the rules call for (a legacy struct cannot say READ_ONLY) is not the
  // consumer's to answer for: it is a skip, as expected.
  // So is a case whose values nobody could read ("not judged: ..."): never a judged pass.
  const bool producer_refused = r.verdict == Verdict::skip &&
                                (f[11].rfind("producer refused", 0) == 0 ||
                                 f[11].rfind("n/a", 0) == 0 || f[11].rfind("not judged", 0) == 0);
  r.expected = producer_refused ||
                       (f[0].size() > 12 && f[0].compare(f[0].size() - 12, 12, "/unavailable") == 0)
                   ? Expectation::skip
                   : Expectation::pass;
  r.finding_class = f[8];
  r.rule_id = f[9];
  r.severity = f[10];
  r.detail = f[11];
  r.role = to_string(infer_role(r));
  mark_hardening(r);
  *out = std::move(r);
  return true;
}

bool check_framework_envs(const std::vector<std::string>& names, std::string* error) {
  for (const std::string& name : names) {
    if (name == "all" || resolve_framework_env(name).exists) continue;
    std::string known;
    for (const std::string& e : all_framework_envs()) known += (known.empty() ? "" : ", ") + e;
    *error = "--framework: expected a framework environment (" + known + ", all) but found '" +
             name + "'";
    return false;
  }
  return true;
}

namespace {

// Where the driver and the bridge are: the build tree, or the installed package or prefix.
bool find_driver(std::string* module_dir, std::string* script, std::string* error) {
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  *module_dir = DLC_BUILD_PYTHON_DIR;
  *script = std::string(DLC_SOURCE_PYTHON_DIR) + "/dlconform_frameworks.py";
  if (ec || self != fs::weakly_canonical(DLC_BUILD_CLI_PATH, ec)) {
    *module_dir = (self.parent_path().parent_path() / DLC_PYTHON_DIR_IN_PREFIX).string();
    *script = *module_dir + "/dlconform_frameworks.py";
  }
  bool has_bridge = false;
  // _dlconform.abi3.so (every interpreter from 3.9), or a wheel's build for one interpreter.
  for (const auto& entry : fs::directory_iterator(*module_dir, ec)) {
    const std::string file = entry.path().filename().string();
    has_bridge |= file.rfind("_dlconform", 0) == 0 && entry.path().extension() == ".so" &&
                  entry.is_regular_file(ec);
  }
  if (!has_bridge || !fs::exists(*script, ec)) {
    *error = "the Python bridge is not built (meson option python=enabled, and python3-dev) in " +
             *module_dir;
    return false;
  }
  return true;
}

// One run of the driver in one environment: its command, its pipe, and what it printed so far.
struct DriverRun {
  std::string label;     // names the run in errors: "--framework frameworks"
  std::string env_name;  // the driver's --env
  std::string python;
  std::string command;
  FILE* pipe = nullptr;
  pid_t pid = -1;  // the driver's own (its command runs by exec)
  std::string pending;  // the start of a line not ended yet
  std::vector<CaseResult> cases;
  RunInfo info;  // its parties and notes
  std::string bad, fatal;
  bool done = false;  // the driver has exited ...
  int exit_status = 0;  // ... with this status (waitpid's)
  std::string unavailable_why;  // the environment cannot run here: no driver, one note
  double cpu_seconds = 0;  // of the driver and every process it waited for
};

// The CPU time each environment's driver took last time, kept beside the environments. The
// longest start first: started in the order given, the `frameworks` environment (the longest by
// far) ran beside the short ones and `oneapi` began when it ended, alone on one core for its last
// 10 s. CPU time, not wall time: a driver started early waits, its output unread, while the mocks'
// cases run.
std::string driver_seconds_path() { return env_root() + "/.driver-cpu-seconds.tsv"; }

std::map<std::string, double> read_driver_seconds() {
  std::map<std::string, double> seconds;
  std::ifstream in(driver_seconds_path());
  std::string name;
  double value = 0;
  while (in >> name >> value) seconds[name] = value;
  return seconds;
}

// Best effort: a cache that cannot be written only costs the order next time.
void write_driver_seconds(const std::vector<DriverRun>& runs) {
  std::map<std::string, double> seconds = read_driver_seconds();
  for (const DriverRun& d : runs) {
    if (d.cpu_seconds > 0 && WIFEXITED(d.exit_status) && WEXITSTATUS(d.exit_status) == 0) {
      seconds[d.env_name] = d.cpu_seconds;
    }
  }
  const std::string path = driver_seconds_path();
  const std::string temporary = path + "." + std::to_string(getpid());
  {
    std::ofstream out(temporary);
    for (const auto& [name, value] : seconds) out << name << '\t' << value << '\n';
    if (!out) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) std::remove(temporary.c_str());
}

double children_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The order the runs start in: the longest last time first, one never timed before all.
std::vector<size_t> start_order(const std::vector<DriverRun>& runs) {
  const std::map<std::string, double> seconds = read_driver_seconds();
  auto last = [&](size_t i) {
    auto it = seconds.find(runs[i].env_name);
    return it == seconds.end() ? 1e30 : it->second;
  };
  std::vector<size_t> order(runs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return last(a) > last(b); });
  return order;
}

// The driver's command line in `python`; `variables` is what the environment needs set
// (environment_prefix), "" for none.
std::string driver_command(const std::string& env_name, const std::string& python,
                           const std::string& variables, const std::string& extra_args,
                           const std::string& module_dir, const std::string& script,
                           const std::string& producers_dir, double timeout) {
  // A sanitized bridge runs in an unsanitized interpreter with the runtimes preloaded; Python
  // and the frameworks keep memory until exit, and mismatch their own new[]/delete, which is
  // not ours to report. The preloaded allocator must fail as libc's does: a framework asked for
  // an impossible size (Paddle's 2**64 - 24 bytes for negative strides) gets NULL and raises
  // MemoryError, instead of the sanitizer aborting the process for it.
  std::string preload = DLC_SANITIZER_PRELOAD;
  if (!preload.empty()) {
    preload = "LD_PRELOAD=" + shell_quote(preload) +
              " ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_abort=0:"
              "allow_user_segv_handler=1:alloc_dealloc_mismatch=0:allocator_may_return_null=1 ";
  }
  // The user's PYTHONPATH stays behind the bridge's: a library under test may live there.
  const char* user_path = std::getenv("PYTHONPATH");
  const std::string python_path =
      module_dir + (user_path != nullptr && *user_path != '\0' ? ":" + std::string(user_path) : "");
  return preload + variables + "PYTHONPATH=" + shell_quote(python_path) +
         " PYTHONDONTWRITEBYTECODE=1 TF_CPP_MIN_LOG_LEVEL=3 " + shell_quote(python) + " " +
         shell_quote(script) + " --env " + shell_quote(env_name) + " --producers " +
         shell_quote(producers_dir) + " --timeout " + std::to_string(timeout) + extra_args;
}

// One line the driver printed: a case, a party, a note, or its fatal error.
void take_line(DriverRun& d, const std::string& line) {
  CaseResult r;
  if (line.rfind("case\t", 0) == 0 && parse_framework_record(line.substr(5), &r)) {
    d.cases.push_back(std::move(r));
  } else if (line.rfind("party\t", 0) == 0) {
    const std::vector<std::string> f = split_tabs(line.substr(6));
    if (f.size() == 3) d.info.parties.push_back(PartyInfo{f[0], f[1], f[2], d.python, false});
    else if (d.bad.empty()) d.bad = line.substr(0, 200);
  } else if (line.rfind("note\t", 0) == 0) {
    d.info.notes.push_back(line.substr(5));
  } else if (line.rfind("fatal\t", 0) == 0) {
    d.fatal = line.substr(6);
  } else if (d.bad.empty()) {
    d.bad = line.substr(0, 200);
  }
}

// Reads what the driver has printed; false once it has closed its output.
bool read_driver(DriverRun& d) {
  char buffer[65536];
  const ssize_t n = read(fileno(d.pipe), buffer, sizeof buffer);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  d.pending.append(buffer, static_cast<size_t>(n));
  size_t start = 0;
  for (size_t end; (end = d.pending.find('\n', start)) != std::string::npos; start = end + 1) {
    take_line(d, d.pending.substr(start, end - start));
  }
  d.pending.erase(0, start);
  return true;
}

// After the driver has exited: its verdict on the run, and its cases (sorted by id: workers
// finish in any order) appended to `out`.
bool finish_driver(DriverRun& d, const std::string& script,
                   std::vector<CaseResult>* out, RunInfo* info, std::string* error) {
  if (!d.unavailable_why.empty()) {
    out->push_back(unavailable(d.env_name, d.unavailable_why));
    info->notes.push_back(d.unavailable_why);
    return true;
  }
  if (!d.pending.empty()) take_line(d, d.pending);
  if (!d.fatal.empty()) {
    *error = d.label + ": " + d.fatal;
    return false;
  }
  if (!d.bad.empty()) {
    *error = d.label + ": expected records from " + script + " but found: " + d.bad;
    return false;
  }
  const int status = d.exit_status;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = d.label + ": " + script + " failed (exit " +
             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ", see above)";
    return false;
  }
  std::sort(d.cases.begin(), d.cases.end(),
            [](const CaseResult& a, const CaseResult& b) { return a.id < b.id; });
  const bool none = d.cases.empty();
  for (CaseResult& r : d.cases) out->push_back(std::move(r));
  for (PartyInfo& p : d.info.parties) info->parties.push_back(std::move(p));
  for (std::string& n : d.info.notes) info->notes.push_back(std::move(n));
  if (none) {
    const std::string why = d.label + " ran no case";
    out->push_back(unavailable(d.env_name, why));
    info->notes.push_back(why);
  }
  return true;
}

// How many environments' drivers run at once: their start (interpreter, framework imports,
// probes) is serial work on one core each, so two at a time halve it on a 2-core machine; more
// would multiply the memory (each holds its frameworks, 1 to 2 GB). $DLCONFORM_ENVS_AT_ONCE
// (1 to 8) sets another number: 1 for a machine short of memory, or to measure the difference.
// 0 (and `error`) when it says something else.
size_t environments_at_once(std::string* error) {
  const char* text = std::getenv("DLCONFORM_ENVS_AT_ONCE");
  if (text == nullptr || *text == '\0') return 2;
  char* end = nullptr;
  const long n = std::strtol(text, &end, 10);
  if (*end != '\0' || n < 1 || n > 8) {
    *error = std::string("DLCONFORM_ENVS_AT_ONCE: expected a number of environments from 1 to "
                         "8 but found '") + text + "'";
    return 0;
  }
  return static_cast<size_t>(n);
}

}  // namespace

// Runs `command` under /bin/sh with its standard output into the returned stream, as popen does,
// and keeps its pid: the shell execs `env`, which execs the driver, so that a run that fails
// before the drivers end can stop them (DriverPool's destructor) instead of waiting for them.
FILE* spawn_reading(const std::string& command, pid_t* pid) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return nullptr;
  const std::string exec_command = "exec env " + command;
  std::fflush(nullptr);  // no buffered output of ours written twice by the child
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    return nullptr;
  }
  if (child == 0) {
    dup2(fds[1], STDOUT_FILENO);  // the copy is not close-on-exec
    execl("/bin/sh", "sh", "-c", exec_command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  FILE* stream = fdopen(fds[0], "r");
  if (stream == nullptr) {
    close(fds[0]);
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    return nullptr;
  }
  *pid = child;
  return stream;
}

// Closes a spawned driver's stream and reaps it: its wait status, or -1.
int close_spawned(FILE* stream, pid_t pid) {
  std::fclose(stream);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return status;
}

// Every driver of a run and where it stands. The drivers start environments_at_once() at a time,
// the longest last time first (start_drivers); their records are collected in the order of
// `runs`, whatever order they finish in (collect_drivers).
struct DriverPool {
  std::vector<DriverRun> runs;
  std::string script;
  std::vector<size_t> order;  // of starting, into `runs`
  size_t at_once = 0;
  size_t next = 0;       // into `order`: the next to start
  size_t collected = 0;  // into `runs`: those before it are in `out`
  std::vector<size_t> running;
  bool keep_seconds = false;  // this run's times are kept for the next run's order
  ~DriverPool() {
    for (size_t i : running) {  // a failed start or a failed run: the others are stopped
      if (runs[i].pipe == nullptr) continue;
      kill(runs[i].pid, SIGKILL);  // its workers leave when their command pipes close
      close_spawned(runs[i].pipe, runs[i].pid);
    }
  }
};

namespace {

// Starts drivers until environments_at_once() run (or none is left to start).
bool start_drivers(DriverPool& pool, std::string* error) {
  while (pool.next < pool.runs.size() && pool.running.size() < pool.at_once) {
    DriverRun& d = pool.runs[pool.order[pool.next]];
    if (d.done) {  // nothing to run (unavailable here)
      ++pool.next;
      continue;
    }
    d.pipe = spawn_reading(d.command, &d.pid);
    if (d.pipe == nullptr) {
      *error = d.label + ": cannot run " + d.command;
      return false;
    }
    pool.running.push_back(pool.order[pool.next++]);
  }
  return true;
}

// Runs every driver of the pool to its end and collects its records; `done` is called for each
// run, in the order of `runs`, once its cases are in `out`.
bool collect_drivers(DriverPool& pool, std::vector<CaseResult>* out, RunInfo* info,
                     std::string* error, const std::function<void(const std::string&)>& done) {
  std::vector<DriverRun>& runs = pool.runs;
  while (pool.collected < runs.size()) {
    if (!start_drivers(pool, error)) return false;
    std::vector<pollfd> fds;
    for (size_t i : pool.running) fds.push_back(pollfd{fileno(runs[i].pipe), POLLIN, 0});
    if (!fds.empty() && poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) {
      *error = std::string("--framework: poll: ") + std::strerror(errno);
      return false;
    }
    for (size_t k = fds.size(); k-- > 0;) {
      if (fds[k].revents == 0) continue;
      DriverRun& d = runs[pool.running[k]];
      if (read_driver(d)) continue;
      // What this reaps (the driver, and through it its workers) is all this run's: its CPU
      // time is the difference.
      const double before = children_cpu_seconds();
      d.exit_status = close_spawned(d.pipe, d.pid);
      d.cpu_seconds = children_cpu_seconds() - before;
      d.pipe = nullptr;
      d.done = true;
      pool.running.erase(pool.running.begin() + static_cast<std::ptrdiff_t>(k));
    }
    // The records wait until every run before them is in: the order stays `runs`'.
    for (; pool.collected < runs.size() && runs[pool.collected].done; ++pool.collected) {
      DriverRun& c = runs[pool.collected];
      if (!finish_driver(c, pool.script, out, info, error)) return false;
      if (done) done(c.env_name);
    }
  }
  if (pool.keep_seconds) write_driver_seconds(runs);
  return true;
}

// A pool of `runs`, ready to start.
bool make_pool(std::vector<DriverRun> runs, const std::string& script, bool keep_seconds,
               DriverPool* pool, std::string* error) {
  pool->at_once = environments_at_once(error);
  if (pool->at_once == 0) return false;
  pool->runs = std::move(runs);
  pool->script = script;
  pool->order = start_order(pool->runs);
  pool->keep_seconds = keep_seconds;
  return true;
}

// The driver's --filter: the cases it leaves out never run.
std::string filter_argument(const std::string& filter) {
  return filter.empty() ? std::string() : " --filter " + shell_quote(filter);
}

}  // namespace

FrameworkRows::FrameworkRows() = default;
FrameworkRows::~FrameworkRows() = default;

bool FrameworkRows::start(const std::vector<std::string>& requested,
                          const std::string& producers_dir, double timeout,
                          const std::string& filter, std::string* error) {
  std::string module_dir, script;
  if (!find_driver(&module_dir, &script, error)) {
    *error = "--framework: " + *error;
    return false;
  }
  std::vector<std::string> envs;
  for (const std::string& name : requested) {
    if (name == "all") {
      const std::vector<std::string> every = all_framework_envs();
      envs.insert(envs.end(), every.begin(), every.end());
    } else {
      envs.push_back(name);
    }
  }
  if (!check_framework_envs(envs, error)) return false;
  std::vector<DriverRun> runs(envs.size());
  for (size_t i = 0; i < envs.size(); ++i) {
    const FrameworkEnv env = resolve_framework_env(envs[i]);
    DriverRun& d = runs[i];
    d.label = "--framework " + envs[i];
    d.env_name = envs[i];
    d.python = env.python;
    if (env.python.empty()) {
      d.unavailable_why = env.why;
      d.done = true;
    } else {
      d.command = driver_command(envs[i], env.python, environment_prefix(env.environment),
                                 filter_argument(filter), module_dir, script, producers_dir,
                                 timeout);
    }
  }
  pool_ = std::make_unique<DriverPool>();
  // A filtered run's times say nothing of the whole run's.
  return make_pool(std::move(runs), script, filter.empty(), pool_.get(), error) &&
         start_drivers(*pool_, error);
}

bool FrameworkRows::finish(std::vector<CaseResult>* out, RunInfo* info, std::string* error,
                           const std::function<void(const std::string&)>& env_done) {
  if (pool_ == nullptr) return true;
  const bool ok = collect_drivers(*pool_, out, info, error, env_done);
  pool_.reset();
  return ok;
}

bool run_framework_cases(const std::vector<std::string>& requested,
                         const std::string& producers_dir, double timeout,
                         const std::string& filter,
                         std::vector<CaseResult>* out, RunInfo* info, std::string* error,
                         const std::function<void(const std::string&)>& env_done) {
  FrameworkRows rows;
  return rows.start(requested, producers_dir, timeout, filter, error) &&
         rows.finish(out, info, error, env_done);
}

bool check_library_run(LibraryRun* run, std::string* error) {
  if (run->modules.empty() && run->adapters.empty()) return true;
  if (run->python.empty()) {
    const char* from_env = std::getenv("DLCONFORM_PYTHON");
    run->python = from_env != nullptr && *from_env != '\0' ? from_env : "python3";
  }
  // The interpreter: CPython 3.9 or later (the bridge is built for the limited API of 3.9).
  const std::string probe =
      shell_quote(run->python) +
      " -c 'import platform, sys; print(platform.python_implementation(), "
      "sys.version_info[0], sys.version_info[1])' 2>&1";
  FILE* pipe = popen(probe.c_str(), "r");
  char text[256] = {};
  const bool read = pipe != nullptr && std::fgets(text, sizeof text, pipe) != nullptr;
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  char implementation[64] = {};
  int major = 0, minor = 0;
  std::string seen = read ? text : "no answer";
  while (!seen.empty() && (seen.back() == '\n' || seen.back() == '\r')) seen.pop_back();
  if (!read || status != 0 ||
      std::sscanf(text, "%63s %d %d", implementation, &major, &minor) != 3 ||
      std::string(implementation) != "CPython" || major < 3 || (major == 3 && minor < 9)) {
    *error = "--python " + run->python + ": expected CPython 3.9 or later but found " +
             (status != 0 && read ? "an error: " + seen : seen);
    return false;
  }
  for (const std::string& spec : run->modules) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) continue;
    Profile profile;
    if (!load_profile_file(spec.substr(eq + 1), &profile, error)) {
      *error = "--module " + spec.substr(0, eq) + ": " + *error;
      return false;
    }
  }
  std::error_code ec;
  for (const std::string& path : run->adapters) {
    if (!fs::is_regular_file(path, ec)) {
      *error = "--adapter: expected a Python file but found no file " + path;
      return false;
    }
  }
  return true;
}

bool run_library_cases(const LibraryRun& run, const std::string& producers_dir, double timeout,
                       const std::string& filter,
                       std::vector<CaseResult>* out, RunInfo* info, std::string* error) {
  std::string module_dir, script;
  if (!find_driver(&module_dir, &script, error)) {
    *error = "--module: " + *error;
    return false;
  }
  std::error_code ec;
  std::string args;
  for (const std::string& spec : run.modules) {
    const size_t eq = spec.find('=');
    args += " --module " + shell_quote(eq == std::string::npos
                                           ? spec
                                           : spec.substr(0, eq) + "=" +
                                                 fs::absolute(spec.substr(eq + 1), ec).string());
  }
  for (const std::string& path : run.adapters) {
    args += " --adapter " + shell_quote(fs::absolute(path, ec).string());
  }
  args += filter_argument(filter);
  std::vector<DriverRun> runs(1);
  runs[0].label = run.adapters.empty() ? "--module" : "--adapter";
  runs[0].env_name = "module";
  runs[0].python = run.python;
  runs[0].command = driver_command("module", run.python, "", args, module_dir, script,
                                   producers_dir, timeout);
  DriverPool pool;
  return make_pool(std::move(runs), script, false, &pool, error) &&
         collect_drivers(pool, out, info, error, nullptr);
}

}  // namespace dlc
