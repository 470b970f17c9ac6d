#include "bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "exchange.h"
#include "runner.h"
#include "session.h"

namespace dlc {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string fixed(double v, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  return text;
}

}  // namespace

bool run_bench(const BenchConfig& config, BenchResult* out, std::string* error) {
  std::vector<Participant> participants;
  const WorkerTemplateStopper stop_template;
  if (!load_participants(true, {}, &participants, error) ||
      !create_plugin_states(participants, error) ||
      !start_worker_template(participants, error)) {
    return false;
  }
  if (config.quarantine != 0) process_host().arena.set_quarantine(config.quarantine);
  const std::vector<CaseDef> plan = plan_matrix(participants);
  // In-process runs cannot survive the expected crashes, so the isolation cost is measured on
  // the cases that must not crash; the full matrix is timed isolated only.
  std::vector<CaseDef> safe;
  for (const CaseDef& c : plan) {
    if (c.result.expected != Expectation::broken) safe.push_back(c);
  }
  int p = -1, c = -1;
  for (size_t i = 0; i < participants.size(); ++i) {
    if (participants[i].label == "versioned-producer@v1.3") p = static_cast<int>(i);
    if (participants[i].label == "versioned-consumer@v1.3") c = static_cast<int>(i);
  }
  if (p < 0 || c < 0) {
    *error = "the bare loop needs versioned-producer@v1.3 and versioned-consumer@v1.3";
    return false;
  }
  std::vector<double> full, isolated, in_process, bare;
  uint64_t syscalls = 0, syscall_cases = 0;
  for (int r = 0; r < config.repeats; ++r) {
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<CaseDef> cases = mode == 0 ? plan : safe;
      RunnerOptions options;
      options.jobs = mode == 2 ? 1 : config.jobs;
      options.isolate = mode != 2;
      const uint64_t before = process_host().arena.syscalls();
      const auto start = std::chrono::steady_clock::now();
      if (!run_cases(participants, cases, options, error)) return false;
      const double rate = static_cast<double>(cases.size()) / seconds_since(start);
      (mode == 0 ? full : mode == 1 ? isolated : in_process).push_back(rate);
      if (mode == 2) {
        syscalls += process_host().arena.syscalls() - before;
        syscall_cases += cases.size();
      }
    }
    // The floor: one producer and one consumer, guarded memory, no validation, no judge, no fork.
    const DLCPlugin& pt = *participants[p].plugin.table;
    const DLCPlugin& ct = *participants[c].plugin.table;
    DLCRequest request{};
    request.tensor = tensor_catalogue()[0].spec;
    request.copy = -1;
    request.has_max_version = 1;
    request.max_version = {1, 3};
    const int loops = 20000;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < loops; ++i) {
      process_host().reset();
      DLCHandoff h{};
      DLCObservation obs{};
      char message[256];
      if (pt.produce(participants[p].plugin.state, &request, &h, message, sizeof message) !=
          DLC_OK) {
        *error = std::string("the bare loop's producer failed: ") + message;
        return false;
      }
      ct.consume(participants[c].plugin.state, &h, &request, &obs, message, sizeof message);
      ct.release(participants[c].plugin.state);
    }
    bare.push_back(loops / seconds_since(start));
  }
  const double floor = median(bare);
  auto row = [&](const std::string& what, size_t n, const std::vector<double>& rates) {
    const double m = median(rates);
    out->rows.push_back(BenchRow{what, n, m, floor > 0 ? m / floor : 0});
  };
  row("full built-in matrix, isolated, " + std::to_string(config.jobs) + " workers", plan.size(),
      full);
  row("non-crashing cases, isolated, " + std::to_string(config.jobs) + " workers", safe.size(),
      isolated);
  row("non-crashing cases, in-process, 1 thread", safe.size(), in_process);
  row("bare produce/consume/release loop, 1 thread (the floor)", 0, bare);
  out->syscalls_per_case =
      syscall_cases > 0 ? static_cast<double>(syscalls) / static_cast<double>(syscall_cases) : 0;
  // What a longer quarantine costs: the full matrix, isolated, once per window.
  for (uint32_t window : {1u, 16u, 256u}) {
    process_host().arena.set_quarantine(window);
    std::vector<double> rates;
    for (int r = 0; r < std::max(1, config.repeats / 2); ++r) {
      std::vector<CaseDef> cases = plan;
      RunnerOptions options;
      options.jobs = config.jobs;
      const auto start = std::chrono::steady_clock::now();
      if (!run_cases(participants, cases, options, error)) return false;
      rates.push_back(static_cast<double>(cases.size()) / seconds_since(start));
    }
    out->quarantine_rates.emplace_back(window, median(rates));
  }
  process_host().arena.set_quarantine(config.quarantine != 0 ? config.quarantine
                                                              : GuardArena::kQuarantineCases);
  return true;
}

std::string bench_markdown(const BenchConfig& config, const BenchResult& result) {
  std::string o = "| run | cases | median per second | ratio to the bare loop |\n|---|--:|--:|--:|\n";
  for (const BenchRow& r : result.rows) {
    o += "| " + r.what + " | " + (r.cases ? std::to_string(r.cases) : std::string("-")) + " | " +
         fixed(r.median_per_second, 0) + " | " + fixed(r.ratio_to_bare, 2) + " |\n";
  }
  o += "\nMedians of " + std::to_string(config.repeats) +
       " repeats in one run. Guarded memory: " + fixed(result.syscalls_per_case, 1) +
       " system calls per in-process case (" +
       (process_host().arena.uses_guard_markers() ? "madvise guard markers"
                                                   : "mprotect") +
       ", and mmap only when an arena grows).\n";
  if (!result.quarantine_rates.empty()) {
    o += "\n| quarantine (cases a freed block stays inaccessible) | full matrix, cases/s |\n|--:|--:|\n";
    for (const auto& [window, rate] : result.quarantine_rates) {
      o += "| " + std::to_string(window) + " | " + fixed(rate, 0) + " |\n";
    }
  }
  return o;
}

}  // namespace dlc
