// The command line: every command's options parsed into a typed request for the run API
// (run/session.h, run/bench.h, layout/layout.h). Parsing never exits and never prints; the
// commands print the one line a bad option gets, with the usage, and exit with kExitUsage.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench.h"
#include "session.h"

namespace dlc::cli {

enum class ParseStatus { ok, help, error };

struct Parsed {
  ParseStatus status = ParseStatus::ok;
  std::string message;  // for error: "expected --jobs between 1 and 64 but found '0'"
};

struct MatrixCommand {
  MatrixConfig run;
  std::map<std::string, std::string> reports;  // "json", "junit", "markdown", "html" -> path
  std::vector<std::string> suppressions;       // suppression files, every one applies
  bool warn_only = false;
  bool list = false;
  bool quiet = false;
  bool verbose = false;
};
extern const char* const kMatrixUsage;
Parsed parse_matrix(int argc, char** argv, MatrixCommand* out);

struct LayoutCommand {
  std::vector<std::string> headers;
  std::string json, markdown;
  std::string cc, cxx;
  bool quiet = false;
  bool run_details = false;
};
extern const char* const kLayoutUsage;
Parsed parse_layout(int argc, char** argv, LayoutCommand* out);

struct BenchCommand {
  BenchConfig config;
  std::string markdown;  // the benchmark table, written there too
};
extern const char* const kBenchUsage;
Parsed parse_bench(int argc, char** argv, BenchCommand* out);

int matrix_main(int argc, char** argv) noexcept;
int layout_main(int argc, char** argv) noexcept;
int bench_main(int argc, char** argv) noexcept;

}  // namespace dlc::cli
