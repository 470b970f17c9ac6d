// Commands for /bin/sh: the layout probe runs compilers, the framework rows run Python, the
// end-to-end tests run dlconform.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace dlc {

// `text` in single quotes, each ' written as '\'' so that nothing in it is interpreted.
inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

struct ShellOutput {
  int status = -1;     // the exit status; -1 if it could not run or died of a signal
  std::string output;  // stdout and stderr together
};

// Runs `command` with /bin/sh and collects what it prints.
inline ShellOutput run_shell(const std::string& command) {
  ShellOutput r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace dlc
