// `dlconform bench`: a benchmark, not a test. Prints the table and, with --markdown, writes it.
#include <cstdio>

#include "exit_codes.h"
#include "options.h"
#include "report.h"

namespace dlc::cli {

int bench_main(int argc, char** argv) noexcept {
  try {
    BenchCommand o;
    const Parsed parsed = parse_bench(argc, argv, &o);
    if (parsed.status == ParseStatus::help) {
      std::fputs(kBenchUsage, stdout);
      return kExitOk;
    }
    if (parsed.status == ParseStatus::error) {
      std::fprintf(stderr, "dlconform bench: %s\n%s", parsed.message.c_str(), kBenchUsage);
      return kExitUsage;
    }
    std::string error;
    if (!o.markdown.empty() && !write_file_atomic(o.markdown + ".probe", "", &error)) {
      std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
      return kExitHarnessError;
    }
    if (!o.markdown.empty()) std::remove((o.markdown + ".probe").c_str());
    BenchResult result;
    if (!run_bench(o.config, &result, &error)) {
      std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
      return kExitHarnessError;
    }
    const std::string table = bench_markdown(o.config, result);
    std::fputs(table.c_str(), stdout);
    if (!o.markdown.empty() && !write_file_atomic(o.markdown, table, &error)) {
      std::fprintf(stderr, "dlconform bench: %s\n", error.c_str());
      return kExitHarnessError;
    }
    return kExitOk;
  } catch (...) {
    std::fprintf(stderr, "dlconform bench: internal error\n");
    return kExitHarnessError;
  }
}

}  // namespace dlc::cli
