// Every command's options parsed into its typed request, and every bad option refused with the
// words the command prints.
#include "options.h"

#include <vector>

#include "catch.hpp"

namespace {

struct Argv {
  std::vector<std::string> words;
  std::vector<char*> pointers;
  explicit Argv(std::initializer_list<const char*> args) {
    words.emplace_back("cmd");
    for (const char* a : args) words.emplace_back(a);
    for (std::string& w : words) pointers.push_back(w.data());
  }
  int argc() { return static_cast<int>(pointers.size()); }
  char** argv() { return pointers.data(); }
};

}  // namespace

TEST_CASE("options: matrix options become a typed request", "[unit]") {
  Argv a{"--plugin", "x.so", "--filter", "S1/*", "--jobs", "3", "--timeout", "2.5", "--json",
         "r.json", "--framework", "numpy-2.0.2", "--warn-only", "--run-details", "--no-builtin"};
  dlc::cli::MatrixCommand m;
  const dlc::cli::Parsed p = dlc::cli::parse_matrix(a.argc(), a.argv(), &m);
  REQUIRE(p.status == dlc::cli::ParseStatus::ok);
  CHECK(m.run.plugins == std::vector<std::string>{"x.so"});
  CHECK(m.run.filter == "S1/*");
  CHECK(m.run.jobs == 3);
  CHECK(m.run.timeout_seconds == 2.5);
  CHECK(m.reports.at("json") == "r.json");
  CHECK(m.run.frameworks == std::vector<std::string>{"numpy-2.0.2"});
  CHECK(m.warn_only);
  CHECK(m.run.run_details);
  CHECK_FALSE(m.run.builtin);
}

TEST_CASE("options: every bad option gets one line naming it", "[unit]") {
  struct Row {
    std::initializer_list<const char*> args;
    const char* message;
  };
  const Row rows[] = {
      {{"--jobs", "0"}, "expected --jobs between 1 and 64 but found '0'"},
      {{"--jobs"}, "option --jobs needs a value"},
      {{"--timeout", "-1"}, "expected --timeout in seconds (0 to 86400) but found '-1'"},
      {{"--framework", "Not A Name"}, "expected --framework ENV"},
      {{"--bogus"}, "unknown option '--bogus'"},
  };
  for (const Row& row : rows) {
    Argv a(row.args);
    dlc::cli::MatrixCommand m;
    const dlc::cli::Parsed p = dlc::cli::parse_matrix(a.argc(), a.argv(), &m);
    INFO(p.message);
    CHECK(p.status == dlc::cli::ParseStatus::error);
    CHECK(p.message.rfind(row.message, 0) == 0);
  }
  Argv help{"--help"};
  dlc::cli::MatrixCommand m;
  CHECK(dlc::cli::parse_matrix(help.argc(), help.argv(), &m).status ==
        dlc::cli::ParseStatus::help);
}

TEST_CASE("options: layout and bench", "[unit]") {
  Argv a{"--header", "h.h", "--json", "l.json", "--cc", "clang", "--quiet"};
  dlc::cli::LayoutCommand l;
  REQUIRE(dlc::cli::parse_layout(a.argc(), a.argv(), &l).status == dlc::cli::ParseStatus::ok);
  CHECK(l.headers == std::vector<std::string>{"h.h"});
  CHECK(l.cc == "clang");
  CHECK(l.quiet);
  Argv b{"--repeats", "3", "--quarantine", "64", "--markdown", "b.md"};
  dlc::cli::BenchCommand c;
  REQUIRE(dlc::cli::parse_bench(b.argc(), b.argv(), &c).status == dlc::cli::ParseStatus::ok);
  CHECK(c.config.repeats == 3);
  CHECK(c.config.quarantine == 64);
  Argv bad{"--quarantine", "0"};
  CHECK(dlc::cli::parse_bench(bad.argc(), bad.argv(), &c).message ==
        "expected --quarantine between 1 and 4096 cases but found '0'");
}
