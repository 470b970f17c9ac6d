// `dlconform bench`: what crash isolation and judging cost. Runs the full built-in matrix with
// isolation (forked workers), the same cases in-process, and a bare produce/consume/release loop
// with no judge, each several times, and prints medians and ratios from one run.
#include "bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "exchange.h"
#include "matrix.h"
#include "runner.h"

namespace dlc {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int find(const std::vector<Participant>& ps, const std::string& label) {
  for (size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].label == label) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

int bench_main(int argc, char** argv) noexcept {
  try {
    int repeats = 5;
    int jobs = 2;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if ((arg == "--repeats" || arg == "--jobs") && i + 1 < argc) {
        const int value = std::atoi(argv[++i]);
        if (value < 1 || value > 64) {
          std::fprintf(stderr, "dlconform bench: expected %s between 1 and 64 but found '%s'\n",
                       arg.c_str(), argv[i]);
          return kExitUsage | kExitHarnessError;
        }
        (arg == "--repeats" ? repeats : jobs) = value;
      } else {
        std::fprintf(stderr,
                     "dlconform bench: unknown option '%s'\nusage: dlconform bench "
                     "[--repeats N] [--jobs N]\n",
                     arg.c_str());
        return kExitUsage | kExitHarnessError;
      }
    }
    std::vector<Participant> participants;
    std::string error;
    if (!load_builtin_participants(&participants, &error) ||
        !create_plugin_states(participants, &error)) {
      std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
      return kExitHarnessError;
    }
    const std::vector<CaseDef> plan = plan_matrix(participants);
    // In-process runs cannot survive the expected crashes, so the isolation cost is measured on
    // the cases that must not crash; the full matrix is timed isolated only.
    std::vector<CaseDef> safe;
    for (const CaseDef& c : plan) {
      if (c.result.expected != Expectation::broken) safe.push_back(c);
    }

    std::vector<double> full, isolated, in_process, bare;
    for (int r = 0; r < repeats; ++r) {
      {
        std::vector<CaseDef> cases = plan;
        RunnerOptions options;
        options.jobs = jobs;
        const auto start = std::chrono::steady_clock::now();
        if (!run_cases(participants, cases, options, &error)) {
          std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
          return kExitHarnessError;
        }
        full.push_back(cases.size() / seconds_since(start));
      }
      for (bool isolate : {true, false}) {
        std::vector<CaseDef> cases = safe;
        RunnerOptions options;
        options.jobs = isolate ? jobs : 1;
        options.isolate = isolate;
        const auto start = std::chrono::steady_clock::now();
        if (!run_cases(participants, cases, options, &error)) {
          std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
          return kExitHarnessError;
        }
        (isolate ? isolated : in_process).push_back(cases.size() / seconds_since(start));
      }
      // The floor: one producer and one consumer, no validation, no judge, no fork.
      const int p = find(participants, "versioned-producer@v1.3");
      const int c = find(participants, "versioned-consumer@v1.3");
      if (p < 0 || c < 0) return kExitHarnessError;
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
          return kExitHarnessError;
        }
        ct.consume(participants[c].plugin.state, &h, &request, &obs, message, sizeof message);
        ct.release(participants[c].plugin.state);
      }
      bare.push_back(loops / seconds_since(start));
    }
    const double all = median(full), iso = median(isolated), inp = median(in_process),
                 floor = median(bare);
    std::printf("dlconform bench: medians of %d repeats\n", repeats);
    std::printf("  full matrix (%zu cases), isolated, %d workers:   %9.0f cases/s\n", plan.size(),
                jobs, all);
    std::printf("  non-crashing cases (%zu), isolated, %d workers:  %9.0f cases/s\n", safe.size(),
                jobs, iso);
    std::printf("  non-crashing cases (%zu), in-process, 1 thread: %9.0f cases/s\n", safe.size(),
                inp);
    std::printf("  bare produce/consume/release loop, 1 thread:  %9.0f exchanges/s\n", floor);
    std::printf("  in-process / isolated: %.2fx; bare loop / judged in-process case: %.1fx\n",
                inp / iso, floor / inp);
    return kExitOk;
  } catch (...) {
    std::fprintf(stderr, "dlconform bench: internal error\n");
    return kExitHarnessError;
  }
}

}  // namespace dlc
