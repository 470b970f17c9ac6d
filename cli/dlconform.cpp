// The dlconform command line: one verb per job; each verb's options are parsed in options.cpp.
#include <cstdio>
#include <cstring>

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? dlc::kExitUsage : dlc::kExitOk;
  }
  if (std::strcmp(argv[1], "matrix") == 0) return dlc::cli::matrix_main(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "bench") == 0) return dlc::cli::bench_main(argc - 1, argv + 1);
  if (std::strcmp(argv[1], "layout") == 0) return dlc::cli::layout_main(argc - 1, argv + 1);
  std::fprintf(stderr, "dlconform: unknown command '%s'\n%s", argv[1], kUsage);
  return dlc::kExitUsage;
}
