// The runner's isolation: workers forked from the template, and the child a worker forks for a
// case expected to be broken. (Declared in cli/meson.build, where the test plugins are built.)
#include "runner.h"

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "catch.hpp"
#include "exchange.h"
#include "session.h"

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  REQUIRE(value != nullptr);
  return value;
}

// The cases the plan makes for the example producer and `consumer`, each marked as expected to
// be broken, so that its worker runs it in a child of its own.
std::vector<dlc::CaseDef> broken_cases(const std::vector<dlc::Participant>& participants,
                                       const std::string& consumer, size_t count) {
  std::vector<dlc::CaseDef> cases;
  for (dlc::CaseDef& c : dlc::plan_matrix(participants)) {
    if (c.consumer < 0 || participants[c.consumer].plugin.path != consumer || c.raw) continue;
    c.result.expected = dlc::Expectation::broken;
    cases.push_back(c);
    if (cases.size() == count) break;
  }
  return cases;
}

// Runs `count` cases of the example producer and `consumer` (a path), each marked as expected to
// be broken, as the matrix command runs them: the template started before the plan, then
// stopped. Returns the cases with their results, and the seconds run_cases took.
std::vector<dlc::CaseDef> run_broken(const std::string& consumer, size_t count,
                                     const dlc::RunnerOptions& options, double* seconds) {
  std::vector<dlc::Participant> participants;
  std::string error;
  INFO(error);
  REQUIRE(dlc::load_participants(false, {env("EXAMPLE_PRODUCER"), consumer}, &participants,
                                 &error));
  REQUIRE(dlc::create_plugin_states(participants, &error));
  std::vector<dlc::CaseDef> cases;
  {
    const dlc::WorkerTemplateStopper stop_template;  // also when a REQUIRE below fails
    REQUIRE(dlc::start_worker_template(participants, &error));
    cases = broken_cases(participants, consumer, count);
    REQUIRE(cases.size() == count);
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(dlc::run_cases(participants, cases, options, &error));
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // The template and every process it forked are gone.
  CHECK(waitpid(-1, nullptr, WNOHANG) == -1);
  CHECK(errno == ECHILD);
  return cases;
}

}  // namespace

TEST_CASE("runner: a case expected to crash is judged in a child of its worker", "[matrix]") {
  dlc::RunnerOptions options;
  options.jobs = 1;
  double seconds = 0;
  for (const dlc::CaseDef& c : run_broken(env("CRASH_PLUGIN"), 6, options, &seconds)) {
    INFO(c.result.id);
    CHECK(c.result.verdict == dlc::Verdict::crash);
    CHECK(c.result.finding_class == "wild-pointer");
  }
}

TEST_CASE("runner: a child that hangs is killed with its worker at the timeout", "[matrix]") {
  dlc::RunnerOptions options;
  options.jobs = 2;
  options.case_timeout_seconds = 0.3;
  double seconds = 0;
  for (const dlc::CaseDef& c : run_broken(env("HANG_PLUGIN"), 3, options, &seconds)) {
    INFO(c.result.id);
    CHECK(c.result.verdict == dlc::Verdict::timeout);
  }
  CHECK(seconds < 10);  // three timeouts of 0.3 s on two workers, and their restarts
}

// Device cases (a party of real device memory) run in their worker, which keeps the runtime
// the first one starts; a case expected to break then runs there too, and the worker ends after
// it: the parent starts another for the cases left. Marked by hand here (no GPU), in the order
// device, broken device, device, broken host, device, on one worker.
TEST_CASE("runner: device cases run in their worker; a broken one there ends it, none is lost",
          "[matrix]") {
  std::vector<dlc::Participant> participants;
  std::string error;
  INFO(error);
  REQUIRE(dlc::load_participants(false, {env("EXAMPLE_PRODUCER"), env("EXAMPLE_PLUGIN"),
                                         env("CRASH_PLUGIN")}, &participants, &error));
  REQUIRE(dlc::create_plugin_states(participants, &error));
  std::vector<dlc::CaseDef> good, crashing;
  for (const dlc::CaseDef& c : dlc::plan_matrix(participants)) {
    if (c.consumer < 0 || c.raw || c.result.expected != dlc::Expectation::pass) continue;
    const std::string& path = participants[c.consumer].plugin.path;
    if (path == env("EXAMPLE_PLUGIN") && good.size() < 3) good.push_back(c);
    if (path == env("CRASH_PLUGIN") && crashing.size() < 2) crashing.push_back(c);
  }
  REQUIRE(good.size() == 3);
  REQUIRE(crashing.size() == 2);
  for (dlc::CaseDef& c : crashing) c.result.expected = dlc::Expectation::broken;
  std::vector<dlc::CaseDef> cases = {good[0], crashing[0], good[1], crashing[1], good[2]};
  for (size_t i : {0, 1, 2, 4}) cases[i].isolated = true;  // crashing[1] stays a host case
  dlc::RunnerOptions options;
  options.jobs = 1;
  {
    const dlc::WorkerTemplateStopper stop_template;
    REQUIRE(dlc::start_worker_template(participants, &error));
    REQUIRE(dlc::run_cases(participants, cases, options, &error));
  }
  for (size_t i : {0, 2, 4}) {
    INFO(cases[i].result.id << ": " << cases[i].result.detail);
    CHECK(cases[i].result.verdict == dlc::Verdict::pass);
  }
  for (size_t i : {1, 3}) {
    INFO(cases[i].result.id);
    CHECK(cases[i].result.verdict == dlc::Verdict::crash);
    CHECK(cases[i].result.finding_class == "wild-pointer");
  }
  CHECK(waitpid(-1, nullptr, WNOHANG) == -1);
}
