// dlconform consumer plugin "python-importer": a Python library's DLPack importer, in the Python
// of the library's own environment, for the fuzz targets (docs/fuzzing.md, "Python importers").
//
// This file links no libpython. Its entry point asks the environment's interpreter
// (DLCONFORM_PYTHON, default the Python this build was configured with) for its libpython, its
// prefix and its sys.path, loads that libpython with RTLD_GLOBAL, then loads the body
// (python_importer_body.cpp, built against the stable ABI, beside this file), which starts the
// interpreter and the library, and returns the body's table. So one build fuzzes NumPy in
// Debian's Python 3.11 and JAX in a Python 3.12 virtual environment alike. A failure at any step
// yields a table whose create() names it in one line.
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "adapter_support.hpp"
#include "dlconform/plugin.h"
#include "python_protocol.h"

extern char** environ;

#ifndef DLC_DEFAULT_PYTHON
#define DLC_DEFAULT_PYTHON "python3"
#endif
#ifndef DLC_PYTHON_IMPORTER_SOURCES
#define DLC_PYTHON_IMPORTER_SOURCES ""
#endif

namespace {

std::string g_error;
void* g_body = nullptr;  // the body's handle, once loaded

int failed_create(const DLCHost*, void**, char* err, size_t err_len) noexcept {
  if (err != nullptr && err_len > 0) std::snprintf(err, err_len, "%s", g_error.c_str());
  return DLC_ERR_INTERNAL;
}

int refuse(void*, DLCHandoff*, const DLCRequest*, DLCObservation*, char* err,
           size_t err_len) noexcept {
  return failed_create(nullptr, nullptr, err, err_len);
}

const DLCPlugin kFailed = {
    {DLCONFORM_PLUGIN_ABI_VERSION, sizeof(DLCPlugin), nullptr},
    "python-importer",
    "a Python library's importer (it could not start)",
    DLC_ROLE_CONSUMER,
    {1, 3},
    1,
    {1, 3},
    nullptr,
    failed_create, nullptr, nullptr, refuse, nullptr, nullptr,  // create destroy produce consume release profile
    nullptr, nullptr,  // available ask
};

const DLCPlugin* fail(const std::string& why) {
  g_error = "python-importer: " + why;
  return &kFailed;
}

// What the interpreter prints about itself: its version, its libpython, its base prefix, then
// its sys.path, one line each.
constexpr const char* kAskScript =
    "import os, sys, sysconfig\n"
    "v = sysconfig.get_config_var\n"
    "lib = os.path.join(v('LIBDIR') or '', v('LDLIBRARY') or '')\n"
    "print('%d.%d' % sys.version_info[:2])\n"
    "print(lib if v('Py_ENABLE_SHARED') else '')\n"
    "print(sys.base_prefix)\n"
    "print('\\n'.join(p for p in sys.path if p))\n";

// Runs `python -c kAskScript`; false with the reason when it does not answer.
bool ask_interpreter(const std::string& python, std::string* out, std::string* why) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    *why = "pipe() failed";
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  char* argv[] = {const_cast<char*>(python.c_str()), const_cast<char*>("-I"),
                  const_cast<char*>("-c"), const_cast<char*>(kAskScript), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, python.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    *why = "expected a Python interpreter at " + python + " but found none (" +
           std::strerror(spawned) + ")";
    return false;
  }
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0) out->append(buffer, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = "expected " + python + " to describe itself but it failed";
    return false;
  }
  return true;
}

std::string next_line(std::string* text) {
  const size_t end = text->find('\n');
  std::string line = text->substr(0, end);
  text->erase(0, end == std::string::npos ? text->size() : end + 1);
  return line;
}

const DLCPlugin* load() {
  const char* chosen = std::getenv("DLCONFORM_PYTHON");
  const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : DLC_DEFAULT_PYTHON;
  std::string answer, why;
  if (!ask_interpreter(python, &answer, &why)) return fail(why);
  const std::string version = next_line(&answer);
  const std::string library = next_line(&answer);
  const std::string home = next_line(&answer);
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2 || major != 3 || minor < 10) {
    return fail("expected Python 3.10 or newer at " + python + " but found " + version);
  }
  if (library.empty()) {
    return fail("expected a Python built with --enable-shared at " + python +
                " but found one without libpython");
  }
  if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* e = dlerror();
    return fail("cannot load " + library + ": " + (e != nullptr ? e : "dlopen failed"));
  }
  // The interpreter finds its standard library under its own prefix, not where PATH leads.
  setenv("PYTHONHOME", home.c_str(), 1);
  unsetenv("PYTHONPATH");
  const std::string body = dlc_adapter::plugin_folder() + "/python-importer-body.so";
  void* handle = dlopen(body.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = dlerror();
    return fail("cannot load " + body + ": " + (e != nullptr ? e : "dlopen failed"));
  }
  g_body = handle;
  using BodyFn = const DLCPlugin* (*)(const char*, const char*);
  auto entry = reinterpret_cast<BodyFn>(dlsym(handle, "dlc_python_importer_body"));
  if (entry == nullptr) return fail(body + " lacks dlc_python_importer_body");
  // The folders of the Python half: DLCONFORM_PYTHON_SOURCES (colon-separated), else the
  // source tree this build came from.
  const char* given = std::getenv("DLCONFORM_PYTHON_SOURCES");
  std::string sources = given != nullptr ? given : DLC_PYTHON_IMPORTER_SOURCES;
  for (char& c : sources) c = c == ':' ? '\n' : c;
  return entry(answer.c_str(), sources.c_str());
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const DLCPlugin* dlconform_plugin_entry(void) {
  static const DLCPlugin* table = load();
  return table;
}

// The protocol extension (python_protocol.h) of the body, or NULL when the body did not load.
extern "C" __attribute__((visibility("default"))) const DLCPythonProtocol*
dlc_python_importer_protocol(void) {
  dlconform_plugin_entry();
  if (g_body == nullptr) return nullptr;
  auto body = reinterpret_cast<DLCPythonProtocolFn>(dlsym(g_body, "dlc_python_importer_protocol_body"));
  return body != nullptr ? body() : nullptr;
}
