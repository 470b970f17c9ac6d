#include "frameworks.h"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "dlc_config.h"
#include "shell_quote.h"

namespace dlc {
namespace {

bool verdict_of(const std::string& text, Verdict* out) {
  for (Verdict v : {Verdict::pass, Verdict::fail, Verdict::crash, Verdict::timeout, Verdict::skip}) {
    if (text == to_string(v)) {
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace

bool parse_framework_record(const std::string& line, CaseResult* out) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) fields.push_back(field);
  if (fields.size() == 10) fields.emplace_back();  // an empty detail
  if (fields.size() != 11 || fields[0].empty()) return false;
  CaseResult r;
  r.id = fields[0];
  r.scenario = fields[1];
  r.producer = {fields[2], fields[3]};
  r.consumer = {fields[4], fields[5]};
  r.tensor = fields[6];
  if (!verdict_of(fields[7], &r.verdict)) return false;
  // A framework that is not installed is a skip, as expected; every other case must pass.
  r.expected = r.verdict == Verdict::skip ? Expectation::skip : Expectation::pass;
  r.finding_class = fields[8];
  r.rule_id = fields[9];
  r.detail = fields[10];
  *out = std::move(r);
  return true;
}

bool run_framework_cases(const std::vector<std::string>& frameworks,
                         const std::string& producers_dir, double timeout,
                         std::vector<CaseResult>* out, RunInfo* info, std::string* error) {
  (void)info;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  // The build tree, or an installed PREFIX/<libdir>/dlconform/python.
  std::string module_dir = DLC_BUILD_PYTHON_DIR;
  std::string script = std::string(DLC_SOURCE_PYTHON_DIR) + "/dlconform_frameworks.py";
  if (ec || self != fs::weakly_canonical(DLC_BUILD_CLI_PATH, ec)) {
    module_dir = (self.parent_path().parent_path() / DLC_PYTHON_DIR_IN_PREFIX).string();
    script = module_dir + "/dlconform_frameworks.py";
  }
  bool has_bridge = false;
  for (const auto& entry : fs::directory_iterator(module_dir, ec)) {
    has_bridge |= entry.path().filename().string().rfind("_dlconform", 0) == 0;
  }
  if (!has_bridge || !fs::exists(script, ec)) {
    *error = "--framework: the Python bridge is not built (meson option python=enabled, and "
             "python3-dev) in " + module_dir;
    return false;
  }
  const char* python = std::getenv("DLCONFORM_PYTHON");
  // A sanitized bridge runs in an unsanitized interpreter with the runtimes preloaded; Python
  // and the frameworks keep memory until exit, which is not ours to report.
  std::string preload = DLC_SANITIZER_PRELOAD;
  if (!preload.empty()) {
    preload = "LD_PRELOAD=" + shell_quote(preload) +
              " ASAN_OPTIONS=detect_leaks=0:handle_segv=0:handle_abort=0 ";
  }
  std::string command = preload + "PYTHONPATH=" + shell_quote(module_dir) + " " +
                        shell_quote(python != nullptr ? python : DLC_PYTHON_INTERPRETER) + " " +
                        shell_quote(script) + " --producers " + shell_quote(producers_dir) +
                        " --timeout " + std::to_string(timeout);
  for (const std::string& f : frameworks) command += " --framework " + shell_quote(f);
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *error = "--framework: cannot run " + command;
    return false;
  }
  std::string line;
  char buffer[4096];
  bool malformed = false;
  std::string bad;
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    line += buffer;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
    CaseResult r;
    if (parse_framework_record(line, &r)) {
      out->push_back(std::move(r));
    } else if (!malformed) {
      malformed = true;
      bad = line.substr(0, 200);
    }
    line.clear();
  }
  const int status = pclose(pipe);
  if (malformed) {
    *error = "--framework: expected case records from " + script + " but found: " + bad;
    return false;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *error = "--framework: " + script + " failed (exit " +
             std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ", see above)";
    return false;
  }
  return true;
}

}  // namespace dlc
