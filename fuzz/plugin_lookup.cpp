// The fuzz targets' plugin lookup (fuzz_harness.hpp): where a built-in plugin is found (the
// build, an OSS-Fuzz $OUT, an install prefix), loading one or saying in one line why it cannot
// start, which guards its reads get, and the label findings give it.
#include "fuzz_harness.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "dlc_fuzz_config.h"

namespace dlc_fuzz {
namespace {

std::string exe_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

std::vector<std::string> plugin_search_path() {
  std::vector<std::string> dirs;
  if (const char* dir = std::getenv("DLCONFORM_PLUGIN_DIR")) dirs.push_back(dir);
  dirs.push_back(exe_dir() + "/dlconform-plugins");  // an OSS-Fuzz $OUT
  std::error_code ec;
  const auto self = std::filesystem::canonical("/proc/self/exe", ec);
  const auto built_dir = std::filesystem::weakly_canonical(DLC_FUZZ_BUILD_DIR, ec);
  if (!ec && self.parent_path() == built_dir) {
    dirs.push_back(DLC_FUZZ_CONSUMERS_DIR);
    dirs.push_back(std::string(DLC_FUZZ_CONSUMERS_DIR) + "/zoo");
    dirs.push_back(DLC_FUZZ_PRODUCERS_DIR);
  } else {
    // Installed as PREFIX/libexec/dlconform/<target>: the plugins of the same PREFIX first.
    const std::string prefix = self.parent_path().parent_path().parent_path().string();
    for (const std::string& dir :
         {prefix + "/" + DLC_FUZZ_PLUGIN_DIR_IN_PREFIX, std::string(DLC_FUZZ_INSTALLED_PLUGIN_DIR)}) {
      dirs.push_back(dir);
      dirs.push_back(dir + "/zoo");
    }
  }
  return dirs;
}

std::string builtin_plugin_path(const std::string& name) {
  const std::string file = "dlc-" + name + ".so";
  std::error_code ec;
  for (const std::string& dir : plugin_search_path()) {
    if (std::filesystem::exists(dir + "/" + file, ec)) return dir + "/" + file;
  }
  std::string looked;
  for (const std::string& dir : plugin_search_path()) looked += (looked.empty() ? "" : ", ") + dir;
  std::fprintf(stderr, "dlconform fuzz: cannot start: no built-in plugin named %s (looked for %s in %s)\n",
               name.c_str(), file.c_str(), looked.c_str());
  std::exit(1);
}

dlc::LoadedPlugin load_or_exit(const std::string& path, uint32_t role) {
  dlc::LoadResult r = dlc::load_plugin(path);
  if (r.error != dlc::LoadError::none) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n", r.message.c_str());
    std::exit(1);
  }
  if ((r.plugin.table->roles & role) == 0) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s: expected a %s plugin but found none\n",
                 path.c_str(), role == DLC_ROLE_CONSUMER ? "consumer" : "producer");
    std::exit(1);
  }
  announce_under_test(role == DLC_ROLE_CONSUMER ? "consumer" : "producer", r.plugin);
  char error[256] = {};
  if (r.plugin.table->create != nullptr &&
      r.plugin.table->create(&host().table, &r.plugin.state, error, sizeof error) != DLC_OK) {
    std::fprintf(stderr, "dlconform fuzz: cannot start: %s: create() failed: %s\n", path.c_str(),
                 error);
    std::exit(1);
  }
  return r.plugin;
}

std::string adapter_beside_executable() {
  std::error_code ec;
  const std::string adapter = exe_dir() + "/dlconform-plugins/dlc-adapter.so";
  return std::filesystem::exists(adapter, ec) ? adapter : std::string();
}

void choose_guards(bool every_reader_instrumented) {
  const char* wanted = std::getenv("DLCONFORM_GUARDS");
  if (wanted != nullptr && std::strcmp(wanted, "pages") != 0 && std::strcmp(wanted, "auto") != 0) {
    std::fprintf(stderr,
                 "dlconform fuzz: cannot start: DLCONFORM_GUARDS: expected pages or auto but "
                 "found %s\n", wanted);
    std::exit(1);
  }
  if (every_reader_instrumented && (wanted == nullptr || std::strcmp(wanted, "auto") == 0)) {
    host().arena.use_shadow_guards();
  }
}

dlc::LoadedPlugin load_consumer_under_test(const char* default_name) {
  if (const char* path = std::getenv("DLCONFORM_PLUGIN")) {
    choose_guards(false);  // a plugin of unknown build: pages
    return load_or_exit(path, DLC_ROLE_CONSUMER);
  }
  const char* name = std::getenv("DLCONFORM_CONSUMER");
  if (name == nullptr) {
    // OSS-Fuzz and ClusterFuzzLite pass no environment: a framework's adapter shipped as
    // $OUT/dlconform-plugins/dlc-adapter.so (tools/oss-fuzz-build.sh) is the default there.
    const std::string adapter = adapter_beside_executable();
    if (!adapter.empty()) {
      choose_guards(false);
      return load_or_exit(adapter, DLC_ROLE_CONSUMER);
    }
  }
  // A built-in consumer is compiled with this target's sanitizers.
  choose_guards(true);
  return load_or_exit(builtin_plugin_path(name != nullptr ? name : default_name),
                      DLC_ROLE_CONSUMER);
}

const char* label(const dlc::LoadedPlugin& plugin) {
  // Stable addresses for the phase, one per plugin table: worked out once, not per input.
  static std::deque<std::pair<const DLCPlugin*, std::string>> labels;
  for (const auto& [table, text] : labels) {
    if (table == plugin.table) return text.c_str();
  }
  return labels.emplace_back(plugin.table, plugin.name() + "@" + plugin.header()).second.c_str();
}

}  // namespace dlc_fuzz
