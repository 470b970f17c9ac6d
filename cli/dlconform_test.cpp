// End-to-end tests of the dlconform command: the built-in matrix, external plugins, and every
// kind of bad input getting a one-line error and its own exit code.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "catch.hpp"
#include "shell_quote.h"

namespace {

struct Run {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);
  return value;
}

Run run(const std::string& args) {
  dlc::ShellOutput shell = dlc::run_shell(env("DLCONFORM") + " " + args);
  return Run{shell.status, std::move(shell.output)};
}

std::string temp_path(const std::string& name) {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/dlconform-test-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  return dir + "/" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Occurrences of `needle`; the JSON writer spaces its records exactly one way.
size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The cases of a JSON report that reached the consumer: every case but those a producer refused.
size_t cases_reached(const std::string& report) {
  return count(report, "\"id\": ") - count(report, "\"verdict\": \"skip\"");
}

std::string write_temp(const std::string& name, const std::string& content) {
  const std::string path = temp_path(name);
  std::ofstream(path) << content;
  return path;
}

size_t lines(const std::string& text) {
  size_t n = 0;
  for (char ch : text) n += ch == '\n';
  return n;
}

}  // namespace

TEST_CASE("matrix: the built-in matrix runs every case as expected", "[matrix]") {
  const std::string json = temp_path("full.json");
  const Run r = run("matrix --quiet --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  CHECK(count(report, "\"id\": ") > 10000);
  // Every planted bug of planted_bugs.tsv that the matrix plans is caught with its class and rule.
  CHECK(count(report, "\"scenario\": \"planted\"") ==
        static_cast<size_t>(std::stoi(env("PLANTED_MATRIX_ROWS"))));
  CHECK(count(report, "\"as_expected\": false") == 0);
  // The generated view catalogue runs by default.
  CHECK(count(report, "\"scenario\": \"views\"") > 1000);
  // Raw cells reproduce the RFC: the append-to-DLTensor layout breaks S0, A1 keeps it.
  CHECK(count(report, "\"scenario\": \"raw\"") > 100);
}

TEST_CASE("matrix: CUDA cases without a CUDA device are skipped, counted apart, with the reason",
          "[matrix]") {
  if (env("CUDA_PLUGINS") == "0") {
    DLC_SKIP("the CUDA mocks are not built (no nvcc, or -Dcuda=disabled): CUDA cases not tested");
  }
  const std::string json = temp_path("cuda.json");
  const Run r = run("matrix --filter cuda --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  const size_t cases = count(report, "\"id\": ");
  const size_t unavailable = count(report, "\"unavailable\": true");
  CHECK(cases > 1000);  // every header, scenario and memory kind, and the planted CUDA bugs
  CHECK(count(report, "\"scenario\": \"cuda\"") > 1000);
  if (unavailable == 0) {  // a machine with a CUDA device: every case ran
    CHECK(count(report, "\"as_expected\": false") == 0);
    return;
  }
  // Here: every case with a CUDA party is skipped, says why (the runtime's own words after "no
  // CUDA device"), and the summary counts these apart from the other skips.
  CHECK(count(report, "\"detail\": \"no CUDA device: ") == unavailable);
  CHECK(report.find("\"unavailable\": " + std::to_string(unavailable)) != std::string::npos);
  CHECK(r.out.find("skipped here: " + std::to_string(unavailable) +
                   " cases, a party cannot run on this machine: no CUDA device: ") !=
        std::string::npos);
  // Each planted CUDA bug is planned with its class, to be caught where a device is: seven of
  // them race a stream (three producers that make no stream or the wrong one wait, one for a
  // copy, one for a host copy; two consumers that pass none or -1).
  CHECK(count(report, "\"expected_class\": \"stream-not-synchronised\"") == 7);
  CHECK(count(report, "\"expected_class\": \"wrong-free-function\"") == 1);
  CHECK(count(report, "\"expected_class\": \"device-pointer-dereferenced\"") == 1);
}

TEST_CASE("matrix: the README's example adapter runs in the matrix", "[matrix]") {
  const Run r = run("matrix --no-builtin --plugin " + env("EXAMPLE_PLUGIN") + " --quiet");
  // A consumer alone has no producer to pair with: the filter finds nothing.
  CHECK(r.exit_code == 3);
  const Run full = run("matrix --plugin " + env("EXAMPLE_PLUGIN") +
                       " --filter '*example-consumer*' --json " + temp_path("example.json"));
  INFO(full.out);
  CHECK(full.exit_code == 0);
  CHECK(count(slurp(temp_path("example.json")), "example-consumer") > 100);
}

TEST_CASE("matrix: a correct uncooperative producer and consumer have no unexpected case",
          "[matrix]") {
  // The README's example producer mallocs and frees in its deleter and knows nothing of the
  // host services: the deleter trampoline, the request checks and the allocation tracking must
  // all find it correct, against every built-in consumer; so must the example consumer.
  const std::string json = temp_path("external.json");
  const Run r = run("matrix --plugin " + env("EXAMPLE_PRODUCER") + " --plugin " +
                    env("EXAMPLE_PLUGIN") + " --filter '*example-*' --quiet --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  CHECK(count(report, "\"as_expected\": false") == 0);
  CHECK(count(report, "\"name\": \"example-producer\"") > 1000);
  CHECK(count(report, "\"name\": \"example-consumer\"") > 1000);
  // It was asked only for what its declared profile holds (n/a otherwise) ...
  CHECK(count(report, "n/a: outside the producer's profile") > 0);
  // ... and the report shows both profiles.
  CHECK(report.find("example-producer@v1.3") != std::string::npos);
  CHECK(report.find("(declared)") != std::string::npos);
  CHECK(report.find("(default)") != std::string::npos);
}

TEST_CASE("matrix: a correct exporter that chooses its own representations, with an honest "
          "profile file, has no unexpected case; one that overclaims is caught", "[matrix]") {
  // The example producer as a framework's exporter: it declines the NULL shape, NULL data, NULL
  // strides and byte_offset a request only wishes for (n/a: its profile does not declare them),
  // and lends immutable data to a legacy caller as a plain dltensor (INFO, FLAG-1).
  const std::string json = temp_path("declining.json");
  const Run r = run("matrix --plugin " + env("DECLINING_PRODUCER") + " --plugin " +
                    env("EXAMPLE_PLUGIN") + " --quiet --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  CHECK(count(report, "\"as_expected\": false") == 0);
  CHECK(count(report, "\"name\": \"declining-producer\"") > 1000);
  CHECK(count(report, "n/a: the request wished for a representation outside the producer") >= 4);
  CHECK(count(report, "\"finding_class\": \"read-only-exported-legacy\"") > 0);
  CHECK(report.find("(profile file)") != std::string::npos);
  // The same plugin whose profile file claims those representations: each refusal is a finding
  // of the case's rule.
  const std::string over = temp_path("overclaiming.json");
  const Run o = run("matrix --plugin " + env("OVERCLAIMING_PRODUCER") +
                    " --filter '*overclaiming*' --quiet --json " + over);
  CHECK((o.exit_code & 8) != 0);
  const std::string caught = slurp(over);
  for (const char* rule : {"LAY-4", "LAY-5", "LAY-6", "LAY-7"}) {
    INFO(rule);
    CHECK(caught.find("\"finding_class\": \"export-refused\", \"expected_class\": \"\", "
                      "\"expected_rule\": \"\", \"rule_id\": \"" + std::string(rule)) !=
          std::string::npos);
  }
}

TEST_CASE("matrix: the progress line counts what the summary counts, known findings apart",
          "[matrix]") {
  // The overclaiming producer's LAY-4 refusals are suppressed as known; the rest stay unexpected.
  const std::string known = write_temp(
      "progress-known.txt", "LAY-4 export-refused producer overclaiming-producer planted, for this test\n");
  const Run r = run("matrix --no-builtin --plugin " + env("OVERCLAIMING_PRODUCER") +
                    " --plugin " + env("EXAMPLE_PLUGIN") + " --suppressions " + known + " 2>&1");
  INFO(r.out);
  // The last progress line and the summary: "[matrix] N/N cases, U unexpected, K known, ..."
  // and "dlconform matrix: N cases ...: A as expected, K known, U unexpected (...)".
  size_t done = 0, total = 0, unexpected = 0, known_count = 0;
  size_t at = r.out.rfind("[matrix] ");
  REQUIRE(at != std::string::npos);
  REQUIRE(std::sscanf(r.out.c_str() + at, "[matrix] %zu/%zu cases, %zu unexpected, %zu known", &done,
                      &total, &unexpected, &known_count) == 4);
  size_t cases = 0, as_expected = 0, summary_known = 0, summary_unexpected = 0;
  at = r.out.find("cases in ");  // the summary line, after any notice about the file
  REQUIRE(at != std::string::npos);
  at = r.out.rfind("dlconform matrix: ", at);
  REQUIRE(at != std::string::npos);
  const std::string summary = r.out.substr(at);
  REQUIRE(std::sscanf(summary.c_str(), "dlconform matrix: %zu cases", &cases) == 1);
  const size_t colon = summary.find("): ");
  REQUIRE(colon != std::string::npos);
  REQUIRE(std::sscanf(summary.c_str() + colon, "): %zu as expected, %zu known, %zu unexpected",
                      &as_expected, &summary_known, &summary_unexpected) == 3);
  CHECK(done == total);
  CHECK(total == cases);
  CHECK(known_count > 0);
  CHECK(known_count == summary_known);
  CHECK(unexpected > 0);
  CHECK(unexpected == summary_unexpected);
}

TEST_CASE("matrix: committed reports diff cleanly: no time, no paths, same bytes", "[matrix]") {
  const std::string args = "matrix --filter 'planted/*' --quiet";
  std::string first[2], second[2];
  for (std::string* out : {first, second}) {
    const std::string json = temp_path("same.json"), md = temp_path("same.md");
    const Run r = run(args + " --json " + json + " --markdown " + md);
    REQUIRE(r.exit_code == 0);
    out[0] = slurp(json);
    out[1] = slurp(md);
  }
  CHECK(first[0] == second[0]);
  CHECK(first[1] == second[1]);
  CHECK(first[0].find("/work") == std::string::npos);
  CHECK(first[0].find("started_at") == std::string::npos);
  const std::string detailed = temp_path("details.json");
  REQUIRE(run(args + " --run-details --json " + detailed).exit_code == 0);
  CHECK(slurp(detailed).find("started_at") != std::string::npos);
}

TEST_CASE("matrix: a plugin that crashes still leaves a complete report", "[matrix]") {
  const std::string json = temp_path("crash.json");
  const Run r = run("matrix --plugin " + env("CRASH_PLUGIN") +
                    " --filter '*crash-consumer*' --quiet --json " + json);
  // Its crashes on valid tensors are MUST findings (8); on tensors no conformant producer makes,
  // hardening findings (16).
  CHECK(r.exit_code == (8 | 16));
  const std::string report = slurp(json);
  // Every case that reached the consumer crashed; the rest were refused by their producer.
  const size_t reached = cases_reached(report);
  CHECK(reached > 50);
  CHECK(count(report, "\"verdict\": \"crash\"") == reached);
  CHECK(count(report, "\"finding_class\": \"wild-pointer\"") == reached);
  CHECK(count(report, "SIGSEGV: read of address 0x10 outside every tensor buffer") == reached);
}

TEST_CASE("matrix: a plugin that hangs becomes a timeout verdict", "[matrix]") {
  const std::string json = temp_path("hang.json");
  const Run r = run("matrix --plugin " + env("HANG_PLUGIN") +
                    " --filter 'S1/*hang-consumer*' --timeout 0.3 --quiet --json " + json);
  CHECK(r.exit_code == 8);
  const std::string report = slurp(json);
  CHECK(cases_reached(report) >= 1);
  CHECK(count(report, "\"verdict\": \"timeout\"") == cases_reached(report));
}

TEST_CASE("matrix: bad input gets one line and its own exit code", "[matrix]") {
  struct Bad {
    std::string args;
    int exit_code;
    std::string says;
  };
  const Bad cases[] = {
      {"matrix --plugin /nonexistent/plugin.so", 1, "/nonexistent/plugin.so: no such plugin file"},
      {"matrix --plugin " + env("NO_ENTRY_PLUGIN"), 1,
       "expected exported symbol dlconform_plugin_entry"},
      {"matrix --plugin " + env("WRONG_ABI_PLUGIN"), 1,
       "expected plugin ABI version 1 to 3 but found 999"},
      {"matrix --plugin " + env("NULL_SLOTS_PLUGIN"), 1, "expected a consume slot"},
      {"matrix --frobnicate", 3, "unknown option '--frobnicate'"},
      {"matrix --json", 3, "option --json needs a value"},
      {"matrix --jobs 0", 3, "expected --jobs between 1 and 64 but found '0'"},
      {"matrix --filter no-such-case-anywhere", 3, "matches none of the"},
      {"matrix --filter 'asks/*' --filter 'immutable/*'", 3,
       "expected one --filter pattern but found 'asks/*' and 'immutable/*'"},
      {"matrix --json /proc/no/such/dir/report.json", 1, "cannot write report"},
      {"frobnicate", 3, "unknown command 'frobnicate'"},
      {"matrix --framework 'Not An Env'", 3, "expected --framework ENV"},
      // A typo in a CI file must not pass unseen: nothing runs, exit 1.
      {"matrix --framework nosuch", 1,
       "--framework: expected a framework environment (debian, "},
      {"matrix --suppressions " + write_temp("bad-rule.txt", "life3 my-consumer why\n"), 1,
       "bad-rule.txt:1: expected a rule id such as LIFE-3 (or *) but found 'life3'"},
      {"matrix --suppressions " + write_temp("no-reason.txt", "# ok\nLIFE-3 my-consumer\n"), 1,
       "no-reason.txt:2: expected a reason or an upstream link"},
      {"matrix --suppressions /nonexistent/known.txt", 1,
       "cannot read suppression file /nonexistent/known.txt"},
      {"matrix --plugin " + env("EXAMPLE_PLUGIN") + " --timeout 0", 3,
       "expected --timeout in seconds"},
      {"layout --header " + write_temp("broken.h", "#error this header is broken\n") +
           " --json " + temp_path("layout.json"),
       1, "broken.h: does not compile as C"},
      {"bench --repeats 0", 3, "expected --repeats between 1 and 64 but found '0'"},
  };
  for (const Bad& bad : cases) {
    const Run r = run(bad.args);
    INFO(bad.args << "\n" << r.out);
    CHECK(r.exit_code == bad.exit_code);
    CHECK(r.out.find(bad.says) != std::string::npos);
    CHECK(r.out.find("dlconform") == 0);
    // One line of error (usage text may follow for flag errors).
    CHECK(lines(r.out.substr(0, r.out.find("usage:"))) == 1);
  }
}

TEST_CASE("matrix: an entry hides its class only, and one that meets another class says so",
          "[matrix]") {
  // The overclaiming producer refuses tensors inside its profile (export-refused, the
  // producer's): an entry naming another class of the same rule and party hides nothing.
  const std::string known = write_temp(
      "class-known.txt", "LAY-4 producer-violation producer overclaiming-producer not this class\n"
                         "LAY-6 export-refused consumer overclaiming-producer not this role\n");
  const std::string json = temp_path("class.json");
  const Run r = run("matrix --no-builtin --plugin " + env("OVERCLAIMING_PRODUCER") +
                    " --plugin " + env("EXAMPLE_PLUGIN") + " --suppressions " + known +
                    " --quiet --json " + json + " 2>&1");
  INFO(r.out);
  CHECK(r.exit_code != 0);
  CHECK(r.out.find(known + ":1: error: LAY-4 producer-violation producer overclaiming-producer "
                   "also meets findings of classes it does not name, which stay unexpected: "
                   "export-refused producer (") != std::string::npos);
  CHECK(r.out.find(known + ":2: error") == std::string::npos);  // another role: no match at all
  const std::string report = slurp(json);
  CHECK(count(report, "\"known\": true") == 0);
  CHECK(report.find("\"unnamed_classes\": {\"export-refused producer\": ") != std::string::npos);
}

TEST_CASE("matrix: suppressed findings are known, and --warn-only never fails", "[matrix]") {
  const std::string filter = " --filter '*crash-consumer*' --quiet";
  const std::string json = temp_path("known.json");
  const std::string known = write_temp(
      "known.txt", "# rule  party           reason\n"
                   "*       crash-consumer  test plugin that crashes on purpose\n"
                   "XAPI-1  versioned-producer  a stale entry: that party ran, never so\n"
                   "LIFE-3  nobody          not in this run: not stale\n"
                   "LIFE-5  versioned-producer  fuzz evidence only [fuzz: x/seeds/y.bin]\n");
  const Run r = run("matrix --plugin " + env("CRASH_PLUGIN") + filter + " --suppressions " +
                    known + " --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  const size_t reached = cases_reached(report);
  CHECK(reached > 50);
  CHECK(count(report, "\"known\": true") == reached);
  CHECK(r.out.find("known.txt:3: stale suppression: XAPI-1 versioned-producer matched no case") !=
        std::string::npos);
  CHECK(r.out.find("nobody matched") == std::string::npos);
  CHECK(r.out.find("known.txt:5") == std::string::npos);
  // The old form (rule and party only) still loads, with a warning that names what it matched,
  // and the report lists the entry with its classes and cases.
  CHECK(r.out.find("known.txt:2: warning: * crash-consumer is in the old form (rule and party "
                   "only); it matched ") != std::string::npos);
  CHECK(report.find("\"where\": \"" + known + ":2\", \"entry\": \"* crash-consumer\", "
                    "\"form\": \"old\"") != std::string::npos);

  const Run warn = run("matrix --plugin " + env("CRASH_PLUGIN") +
                       " --filter '*crash-consumer*' --warn-only");
  INFO(warn.out);
  CHECK(warn.exit_code == 0);
  CHECK(warn.out.find("UNEXPECTED") != std::string::npos);
  CHECK(warn.out.find("[--warn-only]") != std::string::npos);
}

TEST_CASE("fuzz replay: a malformed or unreadable corpus file gets one line", "[matrix]") {
  const std::string replay = env("FUZZ_REPLAY");
  const std::string oversized = write_temp("oversized.bin", std::string(5000, 'x'));
  struct Bad {
    std::string path, says;
  };
  for (const Bad& bad : {Bad{oversized, "malformed corpus file " + oversized +
                                            ": expected at most 1066 bytes but found 5000"},
                         Bad{"/nonexistent/seed.bin", "/nonexistent/seed.bin: no such file"}}) {
    const std::string command = replay + " " + bad.path + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    const int status = pclose(pipe);
    INFO(out);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    CHECK(out.find(bad.says) != std::string::npos);
    CHECK(lines(out) == 1);
  }
}

TEST_CASE("matrix: Debian's NumPy and PyTorch in every role, known bugs suppressed",
          "[frameworks-debian]") {
  if (env("PYTHON_BRIDGE").empty()) {
    DLC_SKIP("the Python bridge is not built (meson option python): framework rows not tested");
  }
  const std::string json = temp_path("frameworks.json");
  const std::string args = "matrix --no-builtin --framework debian --quiet";
  const Run r = run(args + " --suppressions " + env("SUPPRESSIONS_DIR") + "/env-debian.txt" +
                    " --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  if (report.find("framework/debian/unavailable") != std::string::npos) {
    DLC_SKIP("Debian's python3-numpy and python3-torch are not installed (tools/dev installs them)");
  }
  // numpy -> dlconform's consumer, dlconform's producers -> numpy, the same for torch, and
  // framework to framework in both directions.
  CHECK(count(report, "\"id\": \"framework/debian/numpy@") > 10);
  CHECK(count(report, "\"id\": \"framework/debian/torch@") > 10);
  CHECK(count(report, "/numpy@1.") > 100);
  CHECK(count(report, "/torch@1.") > 100);
  CHECK(count(report, "\"id\": \"pairs/debian/numpy@1.24.2/torch@") > 5);
  CHECK(count(report, "\"id\": \"pairs/debian/torch@1.13.0a0/numpy@") > 5);
  // Seventeen asks (five max_versions and a malformed one, two copies, dl_device for its own
  // device and for CUDA, four of them together, three streams), __dlpack_device__ of a 2x2, a
  // 0-d, a size-0 and a transposed array and of an import, a capsule dropped during an
  // exception, its deleter called on a thread without the GIL, to_dlpack handed no tensor,
  // where the names of its capsules lie, those of __dlpack__ and of to_dlpack, and copy=None's
  // reuse (n/a for torch 1.13: the old signature).
  CHECK(count(report, "\"id\": \"negotiation/debian/torch@") == 28);
  // The known torch 1.13 bugs are found, and only they are suppressed.
  CHECK(count(report, "\"known\": true") >= 10);
  CHECK(count(report, "\"as_expected\": false") == count(report, "\"known\": true"));
  CHECK(count(report, "Storage size calculation overflowed") >= 4);
  // Without the suppression file the same findings fail the run.
  const Run strict = run(args + " --filter '*torch*i16_128_byte_offset*'");
  CHECK(strict.exit_code == 8);
}

// One test per framework environment of envs/ (FRAMEWORK_ENV): every framework it installs is in
// the report in its roles, and every finding is one its suppression file lists with a reproducer.
TEST_CASE("matrix: a framework environment of envs/, known bugs suppressed", "[frameworks-env]") {
  const std::string name = env("FRAMEWORK_ENV");
  if (env("PYTHON_BRIDGE").empty()) {
    DLC_SKIP("the Python bridge is not built (meson option python): framework rows not tested");
  }
  const std::string json = temp_path("env.json");
  const Run r = run("matrix --no-builtin --quiet --framework " + name + " --suppressions " +
                    env("SUPPRESSIONS_DIR") + "/env-" + name + ".txt --json " + json);
  INFO(r.out);
  const std::string report = slurp(json);
  if (report.find("framework/" + name + "/unavailable") != std::string::npos) {
    DLC_SKIP("framework environment " + name + " is not installed (tools/dev envs " + name + ")");
  }
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("stale suppression") == std::string::npos);
  CHECK(count(report, "\"id\": \"framework/") > 100);
  // A device framework's dl_device asks are the devices scenario's (dlconform_devices.py).
  CHECK(count(report, "\"id\": \"negotiation/") + count(report, "\"id\": \"devices/") >= 10);
  CHECK(count(report, "\"id\": \"pairs/") > 10);
  CHECK(count(report, "\"as_expected\": false") == count(report, "\"known\": true"));
  // No framework the environment installs is missing: that would be a note saying why.
  CHECK(report.find("but cannot") == std::string::npos);
}

TEST_CASE("matrix: PyTorch's C++ at::fromDLPack as a plugin, its known bugs suppressed",
          "[libtorch-debian]") {
  if (env("LIBTORCH_ADAPTER").empty()) {
    DLC_SKIP("libtorch-dev not found (meson option libtorch): the libtorch adapter is not tested");
  }
  const std::string json = temp_path("libtorch.json");
  const std::string plugin = "matrix --plugin " + env("LIBTORCH_ADAPTER");
  const std::string args = plugin + " --filter '*libtorch*'";
  const Run r = run(args + " --quiet --suppressions " + env("SUPPRESSIONS_DIR") +
                    "/libtorch-debian.txt --json " + json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  CHECK(count(report, "\"id\": ") > 500);
  CHECK(count(report, "\"known\": true") > 10);
  CHECK(count(report, "\"as_expected\": false") == count(report, "\"known\": true"));
  // Without suppressions: torch 1.13 aborts on negative strides, and that fails the run.
  const Run strict = run(plugin + " --quiet --filter 'edge/legacy-producer@v0.6/*negative_stride'");
  CHECK(strict.exit_code == 8);
  CHECK(strict.out.find("crash") != std::string::npos);
}

// One test per adapter built against a framework environment's wheel (ADAPTER_PLUGIN): the real
// importer or exporter in the matrix, every finding one suppressions/adapters.txt lists.
TEST_CASE("matrix: a real importer or exporter as a plugin, known bugs suppressed", "[adapter]") {
  const std::string plugin = env("ADAPTER_PLUGIN");
  const std::string name = env("ADAPTER_NAME");
  const std::string json = temp_path("adapter.json");
  const std::string args = "matrix --quiet --plugin " + plugin + " --filter '*" + name + "@*'";
  const Run r = run(args + " --suppressions " + env("SUPPRESSIONS_DIR") + "/adapters.txt --json " +
                    json);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  const std::string report = slurp(json);
  CHECK(count(report, "\"id\": ") > 500);
  CHECK(count(report, "\"as_expected\": false") == count(report, "\"known\": true"));
  // Debian's libtorch and a wheel's cannot share a process: one line says so, nothing crashes.
  if (name.rfind("torch-", 0) == 0 && !env("LIBTORCH_ADAPTER").empty()) {
    const Run both = run("matrix --quiet --plugin " + env("LIBTORCH_ADAPTER") + " --plugin " + plugin);
    INFO(both.out);
    CHECK(both.exit_code == 1);
    CHECK(both.out.find("cannot share a process") != std::string::npos);
    CHECK(lines(both.out) == 1);
  }
  // Every case the file cites for this party as its evidence ([case: ID]) is in the run.
  std::istringstream entries(slurp(env("SUPPRESSIONS_DIR") + "/adapters.txt"));
  for (std::string line; std::getline(entries, line);) {
    std::istringstream words(line);
    std::string rule, party;
    words >> rule >> party;
    const size_t at = line.find("[case: ");
    if (party != name || at == std::string::npos) continue;
    const std::string id = line.substr(at + 7, line.find(']', at) - at - 7);
    INFO("suppressions/adapters.txt cites " << id);
    CHECK(report.find("\"id\": \"" + id + "\"") != std::string::npos);
  }
}

