#include "options.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace dlc::cli {

const char* const kMatrixUsage =
    "usage: dlconform matrix [--plugin SO]... [--no-builtin] [--filter PATTERN] [--jobs N]\n"
    "                        [--timeout SECONDS] [--json F] [--junit F] [--markdown F] [--html F]\n"
    "                        [--framework ENV]... [--frameworks-markdown F]\n"
    "                        [--module NAME[=PROFILE]]... [--adapter FILE.py]... [--python PATH]\n"
    "                        [--suppressions F]... [--warn-only]\n"
    "                        [--no-isolation] [--list] [--run-details] [--quiet | --verbose]\n";
const char* const kLayoutUsage =
    "usage: dlconform layout [--header PATH]... [--json FILE] [--markdown FILE] [--cc CC] "
    "[--cxx CXX] [--run-details] [--quiet]\n";
const char* const kBenchUsage =
    "usage: dlconform bench [--repeats N] [--jobs N] [--quarantine CASES] [--markdown FILE]\n";

namespace {

Parsed error(std::string message) { return Parsed{ParseStatus::error, std::move(message)}; }

bool parse_long(const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || value < min || value > max) return false;
  *out = value;
  return true;
}

// Walks argv: `valued` options take the next word. Calls on(option, value) for each; an option
// it does not know ends the parse with "unknown option".
template <class On>
Parsed walk(int argc, char** argv, std::initializer_list<const char*> valued, On on) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return Parsed{ParseStatus::help, ""};
    bool takes_value = false;
    for (const char* v : valued) takes_value |= arg == v;
    std::string value;
    if (takes_value) {
      if (i + 1 >= argc) return error("option " + arg + " needs a value");
      value = argv[++i];
    }
    Parsed p = on(arg, value);
    if (p.status != ParseStatus::ok) return p;
  }
  return Parsed{};
}

// NAME[=PROFILE]: NAME a dotted Python identifier.
bool valid_module(const std::string& spec) {
  const std::string name = spec.substr(0, spec.find('='));
  if (name.empty() || spec.size() == name.size() + 1) return false;
  bool start = true;
  for (char ch : name) {
    const bool letter = std::isalpha(static_cast<unsigned char>(ch)) || ch == '_';
    if (ch == '.') {
      if (start) return false;
      start = true;
    } else if (letter || (!start && std::isdigit(static_cast<unsigned char>(ch)))) {
      start = false;
    } else {
      return false;
    }
  }
  return !start;
}

int default_jobs() {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return static_cast<int>(std::max(1L, std::min(cores, 16L)));
}

}  // namespace

Parsed parse_matrix(int argc, char** argv, MatrixCommand* o) {
  o->run.jobs = default_jobs();
  const Parsed parsed = walk(argc, argv,
              {"--plugin", "--filter", "--jobs", "--timeout", "--json", "--junit", "--markdown",
               "--html", "--suppressions", "--framework", "--frameworks-markdown", "--module",
               "--adapter", "--python"},
              [&](const std::string& arg, const std::string& v) -> Parsed {
                if (arg == "--plugin") {
                  o->run.plugins.push_back(v);
                } else if (arg == "--suppressions") {
                  o->suppressions.push_back(v);
                } else if (arg == "--framework") {
                  if (v.empty() || v.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") !=
                                       std::string::npos) {
                    return error("expected --framework ENV (a framework environment such as "
                                 "frameworks, mxnet, numpy-2.0.2, debian) but found '" + v + "'");
                  }
                  o->run.frameworks.push_back(v);
                } else if (arg == "--module") {
                  if (!valid_module(v)) {
                    return error("expected --module NAME[=PROFILE] (an importable module name "
                                 "such as mylib or pkg.sub) but found '" + v + "'");
                  }
                  o->run.modules.push_back(v);
                } else if (arg == "--adapter") {
                  o->run.adapters.push_back(v);
                } else if (arg == "--python") {
                  o->run.python = v;
                } else if (arg == "--filter") {
                  if (!o->run.filter.empty()) {  // one pattern: a second must not silently win
                    return error("expected one --filter pattern but found '" + o->run.filter +
                                 "' and '" + v + "'");
                  }
                  o->run.filter = v;
                } else if (arg == "--jobs") {
                  long jobs = 0;
                  if (!parse_long(v, 1, 64, &jobs)) {
                    return error("expected --jobs between 1 and 64 but found '" + v + "'");
                  }
                  o->run.jobs = static_cast<int>(jobs);
                } else if (arg == "--timeout") {
                  char* end = nullptr;
                  const double t = std::strtod(v.c_str(), &end);
                  if (end == v.c_str() || *end != '\0' || !(t > 0) || t > 86400) {
                    return error("expected --timeout in seconds (0 to 86400) but found '" + v + "'");
                  }
                  o->run.timeout_seconds = t;
                } else if (arg == "--json" || arg == "--junit" || arg == "--markdown" ||
                           arg == "--html" || arg == "--frameworks-markdown") {
                  o->reports[arg.substr(2)] = v;
                } else if (arg == "--no-builtin") {
                  o->run.builtin = false;
                } else if (arg == "--no-isolation") {
                  o->run.isolate = false;
                } else if (arg == "--list") {
                  o->list = true;
                } else if (arg == "--warn-only") {
                  o->warn_only = true;
                } else if (arg == "--run-details") {
                  o->run.run_details = true;
                } else if (arg == "--quiet") {
                  o->quiet = true;
                } else if (arg == "--verbose") {
                  o->verbose = true;
                } else {
                  return error("unknown option '" + arg + "'");
                }
                return Parsed{};
              });
  // As array-api-tests' ARRAY_API_TESTS_MODULE: the library under test from the environment
  // (names separated by commas or blanks) when the command line names none.
  if (parsed.status == ParseStatus::ok && o->run.modules.empty()) {
    if (const char* from_env = std::getenv("DLCONFORM_MODULE")) {
      std::string names = from_env;
      for (char& ch : names) ch = ch == ',' ? ' ' : ch;
      size_t at = 0;
      while ((at = names.find_first_not_of(' ', at)) != std::string::npos) {
        const size_t end = std::min(names.find(' ', at), names.size());
        const std::string name = names.substr(at, end - at);
        if (!valid_module(name)) {
          return error("expected DLCONFORM_MODULE to name importable modules (mylib, pkg.sub) "
                       "but found '" + name + "'");
        }
        o->run.modules.push_back(name);
        at = end;
      }
    }
  }
  return parsed;
}

Parsed parse_layout(int argc, char** argv, LayoutCommand* o) {
  const char* env_cc = std::getenv("CC");
  const char* env_cxx = std::getenv("CXX");
  o->cc = env_cc != nullptr ? env_cc : "cc";
  o->cxx = env_cxx != nullptr ? env_cxx : "c++";
  return walk(argc, argv, {"--header", "--json", "--markdown", "--cc", "--cxx"},
              [&](const std::string& arg, const std::string& v) -> Parsed {
                if (arg == "--header") {
                  o->headers.push_back(v);
                } else if (arg == "--json") {
                  o->json = v;
                } else if (arg == "--markdown") {
                  o->markdown = v;
                } else if (arg == "--cc") {
                  o->cc = v;
                } else if (arg == "--cxx") {
                  o->cxx = v;
                } else if (arg == "--quiet") {
                  o->quiet = true;
                } else if (arg == "--run-details") {
                  o->run_details = true;
                } else {
                  return error("unknown option '" + arg + "'");
                }
                return Parsed{};
              });
}

Parsed parse_bench(int argc, char** argv, BenchCommand* o) {
  return walk(argc, argv, {"--repeats", "--jobs", "--quarantine", "--markdown"},
              [&](const std::string& arg, const std::string& v) -> Parsed {
                long value = 0;
                if (arg == "--markdown") {
                  o->markdown = v;
                } else if (arg == "--repeats" || arg == "--jobs") {
                  if (!parse_long(v, 1, 64, &value)) {
                    return error("expected " + arg + " between 1 and 64 but found '" + v + "'");
                  }
                  (arg == "--repeats" ? o->config.repeats : o->config.jobs) = static_cast<int>(value);
                } else if (arg == "--quarantine") {
                  if (!parse_long(v, 1, 4096, &value)) {
                    return error("expected --quarantine between 1 and 4096 cases but found '" + v + "'");
                  }
                  o->config.quarantine = static_cast<uint32_t>(value);
                } else {
                  return error("unknown option '" + arg + "'");
                }
                return Parsed{};
              });
}

}  // namespace dlc::cli
