// The dlconform command line: one verb per job; each verb's options are parsed in options.cpp.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "exit_codes.h"
#include "options.h"

namespace {

constexpr const char* kUsage =
    "usage: dlconform <command> [options]\n"
    "commands:\n"
    "  matrix   run the conformance matrix and write the compatibility report\n"
    "  layout   compare DLPack headers: sizes, offsets, enums, layout and source breaks\n"
    "  bench    cases per second and fuzz-style exchanges per second (a benchmark, not a test)\n"
    "run 'dlconform <command> --help' for a command's options\n";

// The matrix forks a process for every worker and for every case expected to crash (1,232 of
// the main job's cases abort in libtorch), and each fork and exit copies and tears down the page
// tables of the process: two fifths of the matrix's CPU time. Two settings make those cheaper,
// with the same verdicts:
// - glibc's malloc backs its heap with transparent huge pages, one table entry per 2 MiB rather
//   than 512 (read by the loader, so the process runs itself again with it set);
// - the jemalloc bundled in Arrow's libarrow starts a background thread when it is loaded, and a
//   process with a thread cannot fork the worker template (runner.cpp), so every worker would be
//   forked from the parent, plan and results included.
// A value the user set is kept.
void prepare_forking_process(char** argv) {
  setenv("JE_ARROW_MALLOC_CONF", "background_thread:false", 0);
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  std::string now = tunables != nullptr ? tunables : "";
  if (now.find("glibc.malloc.hugetlb") != std::string::npos) return;
  now += (now.empty() ? "" : ":") + std::string("glibc.malloc.hugetlb=1");
  if (setenv("GLIBC_TUNABLES", now.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // on failure, the run goes on as it is
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? dlc::kExitUsage : dlc::kExitOk;
  }
  if (std::strcmp(argv[1], "matrix") == 0 || std::strcmp(argv[1], "bench") == 0) {
    prepare_forking_process(argv);
  }
  if (std::strcmp(argv[1], "matrix") == 0) return dlc::cli::matrix_main(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "bench") == 0) return dlc::cli::bench_main(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "layout") == 0) return dlc::cli::layout_main(argc - 1, argv + 1);
  std::fprintf(stderr, "dlconform: unknown command '%s'\n%s", argv[1], kUsage);
  return dlc::kExitUsage;
}
