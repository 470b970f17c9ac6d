#include "plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace dlc {
namespace {

// The DT_NEEDED names and the DT_RUNPATH (or DT_RPATH) of an ELF64 file; false if it is not one.
bool read_dynamic(const std::string& path, std::vector<std::string>* needed, std::string* runpath) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> file((std::istreambuf_iterator<char>(in)), {});
  if (file.size() < sizeof(Elf64_Ehdr)) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return false;
  }
  std::vector<Elf64_Phdr> segments;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    const size_t at = eh.e_phoff + i * sizeof(Elf64_Phdr);
    if (at + sizeof(Elf64_Phdr) > file.size()) return false;
    Elf64_Phdr ph;
    std::memcpy(&ph, file.data() + at, sizeof ph);
    segments.push_back(ph);
  }
  auto file_offset = [&](uint64_t vaddr) -> uint64_t {
    for (const Elf64_Phdr& ph : segments) {
      if (ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
        return vaddr - ph.p_vaddr + ph.p_offset;
      }
    }
    return UINT64_MAX;
  };
  std::vector<uint64_t> needed_at;
  uint64_t strtab = UINT64_MAX, runpath_at = UINT64_MAX;
  for (const Elf64_Phdr& ph : segments) {
    if (ph.p_type != PT_DYNAMIC) continue;
    for (uint64_t at = ph.p_offset; at + sizeof(Elf64_Dyn) <= std::min<uint64_t>(
                                         file.size(), ph.p_offset + ph.p_filesz);
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d;
      std::memcpy(&d, file.data() + at, sizeof d);
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED) needed_at.push_back(d.d_un.d_val);
      if (d.d_tag == DT_STRTAB) strtab = file_offset(d.d_un.d_ptr);
      if (d.d_tag == DT_RUNPATH || (d.d_tag == DT_RPATH && runpath_at == UINT64_MAX)) {
        runpath_at = d.d_un.d_val;
      }
    }
  }
  auto string_at = [&](uint64_t offset) -> std::string {
    if (strtab == UINT64_MAX || strtab + offset >= file.size()) return "";
    const char* text = file.data() + strtab + offset;
    return std::string(text, strnlen(text, file.size() - strtab - offset));
  };
  for (uint64_t at : needed_at) needed->push_back(string_at(at));
  if (runpath_at != UINT64_MAX) *runpath = string_at(runpath_at);
  return true;
}

// "libc10" of "libc10.so" and of "libc10.so.1.13".
std::string library_stem(const std::string& name) { return name.substr(0, name.find(".so")); }

// Why `path` cannot share this process: a library it needs from its own run path (a wheel's
// libc10.so, say) is another build of one already loaded from elsewhere (Debian's
// libc10.so.1.13): their C++ unique symbols bind across the two, which crashes at start-up.
std::string library_clash(const std::string& path) {
  std::vector<std::string> needed;
  std::string runpath;
  if (!read_dynamic(path, &needed, &runpath) || runpath.empty()) return "";
  const std::string origin = std::filesystem::path(path).parent_path().string();
  struct Loaded {
    std::vector<std::string> paths;
  } loaded;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
          static_cast<Loaded*>(out)->paths.emplace_back(info->dlpi_name);
        }
        return 0;
      },
      &loaded);
  std::error_code ec;
  for (const std::string& soname : needed) {
    for (size_t begin = 0; begin <= runpath.size();) {
      size_t end = runpath.find(':', begin);
      if (end == std::string::npos) end = runpath.size();
      std::string dir = runpath.substr(begin, end - begin);
      begin = end + 1;
      if (dir.rfind("$ORIGIN", 0) == 0) dir = origin + dir.substr(7);
      const std::filesystem::path own = std::filesystem::path(dir) / soname;
      if (dir.empty() || !std::filesystem::exists(own, ec)) continue;
      for (const std::string& other : loaded.paths) {
        if (library_stem(std::filesystem::path(other).filename().string()) !=
            library_stem(soname)) {
          continue;
        }
        if (std::filesystem::equivalent(own, other, ec)) continue;
        return "cannot load: expected to load " + own.string() + " but this process already has " +
               other + " (two builds of " + soname +
               " cannot share a process; run these plugins in separate matrix runs)";
      }
      break;  // the loader takes the first folder that has it
    }
  }
  return "";
}

}  // namespace

std::string version_label(DLCVersion v) {
  return "v" + std::to_string(v.major) + "." + std::to_string(v.minor);
}

std::string LoadedPlugin::header() const { return version_label(table->dlpack_version); }

const DLCProfile* LoadedPlugin::declared_profile() const {
  if (table->header.abi_version < 2 || table->header.table_size < kPluginTableV2Size) return nullptr;
  return table->profile;
}

DLCAvailableFn LoadedPlugin::available_slot() const {
  if (table->header.abi_version < 3 || table->header.table_size < sizeof(DLCPlugin)) return nullptr;
  return table->available;
}

DLCAskFn LoadedPlugin::ask_slot() const {
  if (table->header.abi_version < 3 || table->header.table_size < sizeof(DLCPlugin)) return nullptr;
  return table->ask;
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
  if (const std::string clash = library_clash(path); !clash.empty()) {
    return fail(LoadError::not_loadable, clash);
  }
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
  const uint32_t need = abi >= 3   ? uint32_t{sizeof(DLCPlugin)}
                        : abi == 2 ? kPluginTableV2Size
                                   : kPluginTableV1Size;
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
