// Loading plugins: dlopen, the entry point, and a check of the table before anything calls it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "dlconform/plugin.h"

namespace dlc {

// A loaded plugin. The library stays loaded for the life of the process (plugins hand out
// function pointers, deleters among them, that may be called late).
struct LoadedPlugin {
  std::string path;
  const DLCPlugin* table = nullptr;
  void* state = nullptr;  // from create(); one per process (workers create their own after fork)
  std::string name() const { return table->name; }
  std::string header() const;  // "v1.3", "v0.6"
  bool is_producer() const { return (table->roles & DLC_ROLE_PRODUCER) != 0; }
  bool is_consumer() const { return (table->roles & DLC_ROLE_CONSUMER) != 0; }
  // The table's profile slot (plugin ABI 2), or nullptr for a version 1 table or a NULL slot.
  const DLCProfile* declared_profile() const;
  // The device slots (plugin ABI 3), or nullptr for an older table or a NULL slot.
  DLCAvailableFn available_slot() const;
  DLCAskFn ask_slot() const;
};

// The size of a version 1 table: everything before DLCPlugin.profile.
constexpr uint32_t kPluginTableV1Size = offsetof(DLCPlugin, profile);
// The size of a version 2 table: everything before DLCPlugin.available.
constexpr uint32_t kPluginTableV2Size = offsetof(DLCPlugin, available);

// Exit-code-worthy load failures, each with a one-line message naming the file.
enum class LoadError { none, missing, not_loadable, no_entry, bad_table };

struct LoadResult {
  LoadError error = LoadError::none;
  std::string message;
  LoadedPlugin plugin;
};

[[nodiscard]] LoadResult load_plugin(const std::string& path);

// Every *.so under `directory` whose name starts with "dlc-" (the built-in mocks), sorted.
std::vector<std::string> list_builtin_plugins(const std::string& directory);

// "v1.3" for {1,3}; "v0.6" for {0,6}.
std::string version_label(DLCVersion v);

}  // namespace dlc
