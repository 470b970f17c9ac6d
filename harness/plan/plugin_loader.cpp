#include "plugin_loader.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

namespace dlc {

std::string version_label(DLCVersion v) {
  return "v" + std::to_string(v.major) + "." + std::to_string(v.minor);
}

std::string LoadedPlugin::header() const { return version_label(table->dlpack_version); }

const DLCProfile* LoadedPlugin::declared_profile() const {
  if (table->header.abi_version < 2 || table->header.table_size < sizeof(DLCPlugin)) return nullptr;
  return table->profile;
}

LoadResult load_plugin(const std::string& path) {
  LoadResult result;
  auto fail = [&](LoadError error, const std::string& message) {
    result.error = error;
    result.message = path + ": " + message;
    return result;
  };
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return fail(LoadError::missing, "no such plugin file");
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return fail(LoadError::not_loadable,
                std::string("cannot load: ") + (why ? why : "dlopen failed"));
  }
  auto entry = reinterpret_cast<DLCPluginEntryFn>(dlsym(handle, DLCONFORM_PLUGIN_ENTRY_NAME));
  if (entry == nullptr) {
    return fail(LoadError::no_entry, std::string("expected exported symbol ") +
                                         DLCONFORM_PLUGIN_ENTRY_NAME + " but found none");
  }
  const DLCPlugin* table = entry();
  if (table == nullptr) return fail(LoadError::bad_table, "entry point returned NULL");
  const uint32_t abi = table->header.abi_version;
  if (abi < DLCONFORM_PLUGIN_ABI_VERSION_MIN || abi > DLCONFORM_PLUGIN_ABI_VERSION) {
    return fail(LoadError::bad_table,
                "expected plugin ABI version " + std::to_string(DLCONFORM_PLUGIN_ABI_VERSION_MIN) +
                    " to " + std::to_string(DLCONFORM_PLUGIN_ABI_VERSION) + " but found " +
                    std::to_string(abi));
  }
  const uint32_t need = abi >= 2 ? uint32_t{sizeof(DLCPlugin)} : kPluginTableV1Size;
  if (table->header.table_size < need) {
    return fail(LoadError::bad_table,
                "expected table_size >= " + std::to_string(need) + " for plugin ABI version " +
                    std::to_string(abi) + " but found " + std::to_string(table->header.table_size));
  }
  if (table->name == nullptr || table->name[0] == '\0') {
    return fail(LoadError::bad_table, "expected a plugin name but found NULL");
  }
  const uint32_t known_roles = DLC_ROLE_PRODUCER | DLC_ROLE_CONSUMER;
  if (table->roles == 0 || (table->roles & ~known_roles) != 0) {
    return fail(LoadError::bad_table, "expected roles producer and/or consumer but found " +
                                          std::to_string(table->roles));
  }
  if ((table->roles & DLC_ROLE_PRODUCER) && table->produce == nullptr) {
    return fail(LoadError::bad_table, "expected a produce slot for a producer but found NULL");
  }
  if ((table->roles & DLC_ROLE_CONSUMER) && table->consume == nullptr) {
    return fail(LoadError::bad_table, "expected a consume slot for a consumer but found NULL");
  }
  result.plugin.path = path;
  result.plugin.table = table;
  return result;
}

std::vector<std::string> list_builtin_plugins(const std::string& directory) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("dlc-", 0) == 0 && entry.path().extension() == ".so") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace dlc
