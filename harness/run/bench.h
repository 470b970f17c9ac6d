// `dlconform bench`: what isolation, judging and guarded memory cost. Times the full built-in
// matrix with crash isolation, the non-crashing cases isolated and in-process, and a bare
// produce/consume/release loop with no judge, each `repeats` times in one run; medians and
// ratios from that one run (these machines are shared and noisy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlc {

struct BenchConfig {
  int repeats = 5;
  int jobs = 2;
  uint32_t quarantine = 0;  // 0: the arena's default; else cases a freed block stays quarantined
};

struct BenchRow {
  std::string what;
  size_t cases = 0;
  double median_per_second = 0;
  double ratio_to_bare = 0;  // this rate / the bare loop's
};

struct BenchResult {
  std::vector<BenchRow> rows;
  double syscalls_per_case = 0;   // guarded memory's mmap/mprotect/munmap per in-process case
  std::vector<std::pair<uint32_t, double>> quarantine_rates;  // window -> full matrix cases/s
};

[[nodiscard]] bool run_bench(const BenchConfig& config, BenchResult* out, std::string* error);

// The result as a Markdown table (for reports/bench.md and the terminal).
std::string bench_markdown(const BenchConfig& config, const BenchResult& result);

}  // namespace dlc
