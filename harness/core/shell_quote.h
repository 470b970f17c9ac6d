// One argument for /bin/sh: the layout probe runs compilers, the framework rows run Python.
#pragma once

#include <string>

namespace dlc {

// `text` in single quotes, each ' written as '\'' so that nothing in it is interpreted.
inline std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (char ch : text) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return quoted + "'";
}

}  // namespace dlc
