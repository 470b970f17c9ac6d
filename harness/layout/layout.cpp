// The layout probe. One generated C/C++ source prints every fact as "key=value"; each fact sits
// on its own line, guarded by its own macro, so when a header lacks a declaration the compiler's
// error lines tell which facts to drop, and the probe is rebuilt without them. A header that
// breaks the probe anywhere else does not compile, and says so in one line.
#include "layout.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include "dlc_layout_config.h"
#include "shell_quote.h"

namespace dlc {
namespace {

struct Item {
  std::string key;
  std::string expr;   // an integer expression; empty for a macro fact
  std::string macro;  // for macro facts: the macro tested with #ifdef
};

const char* const kDevices[] = {"kDLCPU",      "kDLCUDA",    "kDLCUDAHost",    "kDLOpenCL",
                                "kDLVulkan",   "kDLMetal",   "kDLVPI",         "kDLROCM",
                                "kDLROCMHost", "kDLExtDev",  "kDLCUDAManaged", "kDLOneAPI",
                                "kDLWebGPU",   "kDLHexagon", "kDLMAIA",        "kDLTrn"};
const char* const kCodes[] = {"kDLInt",
                              "kDLUInt",
                              "kDLFloat",
                              "kDLOpaqueHandle",
                              "kDLBfloat",
                              "kDLComplex",
                              "kDLBool",
                              "kDLFloat8_e3m4",
                              "kDLFloat8_e4m3",
                              "kDLFloat8_e4m3b11fnuz",
                              "kDLFloat8_e4m3fn",
                              "kDLFloat8_e4m3fnuz",
                              "kDLFloat8_e5m2",
                              "kDLFloat8_e5m2fnuz",
                              "kDLFloat8_e8m0fnu",
                              "kDLFloat6_e2m3fn",
                              "kDLFloat6_e3m2fn",
                              "kDLFloat4_e2m1fn"};
const char* const kMacros[] = {"DLPACK_VERSION",
                               "DLPACK_ABI_VERSION",
                               "DLPACK_MAJOR_VERSION",
                               "DLPACK_MINOR_VERSION",
                               "DLPACK_FLAG_BITMASK_READ_ONLY",
                               "DLPACK_FLAG_BITMASK_IS_COPIED",
                               "DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED",
                               "DLCONFORM_A2_WRAPPER_OFFSET"};
bool is_version_macro(const std::string& key) {
  return key == "macro.DLPACK_VERSION" || key == "macro.DLPACK_MAJOR_VERSION" ||
         key == "macro.DLPACK_MINOR_VERSION";
}

// struct name as spelled in the probe, its report name, and its fields.
struct StructDef {
  const char* spelled;
  const char* name;
  std::vector<const char*> fields;
};
const std::vector<StructDef>& structs() {
  static const std::vector<StructDef> defs = {
      {"DLDevice", "DLDevice", {"device_type", "device_id"}},
      {"DLDataType", "DLDataType", {"code", "bits", "lanes"}},
      {"DLTensor",
       "DLTensor",
       {"data", "device", "ndim", "dtype", "shape", "strides", "byte_offset", "version"}},
      {"DLManagedTensor",
       "DLManagedTensor",
       {"dl_tensor", "manager_ctx", "deleter", "version", "flags", "magic"}},
      {"DLPackVersion", "DLPackVersion", {"major", "minor"}},
      {"struct DLManagedTensorVersioned",
       "DLManagedTensorVersioned",
       {"version", "manager_ctx", "deleter", "flags", "dl_tensor"}},
      {"DLManagedTensorWrapped", "DLManagedTensorWrapped", {"version", "flags", "legacy"}},
      {"DLPackExchangeAPIHeader", "DLPackExchangeAPIHeader", {"version", "prev_api"}},
      {"DLPackExchangeAPI",
       "DLPackExchangeAPI",
       {"header", "managed_tensor_allocator", "managed_tensor_from_py_object_no_sync",
        "managed_tensor_to_py_object_no_sync", "dltensor_from_py_object_no_sync",
        "current_work_stream"}},
  };
  return defs;
}

std::vector<Item> probe_items() {
  std::vector<Item> items;
  for (const char* m : kMacros) items.push_back({std::string("macro.") + m, "", m});
  for (const char* e : kDevices) items.push_back({std::string("enum.") + e, e, ""});
  for (const char* e : kCodes) items.push_back({std::string("enum.") + e, e, ""});
  for (const StructDef& s : structs()) {
    items.push_back({std::string("size.") + s.name, std::string("sizeof(") + s.spelled + ")", ""});
    items.push_back(
        {std::string("align.") + s.name, std::string("DLC_ALIGNOF (") + s.spelled + ")", ""});
    for (const char* f : s.fields) {
      items.push_back({std::string("offset.") + s.name + "." + f,
                       std::string("offsetof(") + s.spelled + ", " + f + ")", ""});
    }
  }
  // Spelling the versioned struct without `struct` works only where it has a typedef (v1.2+).
  items.push_back({"typedef.DLManagedTensorVersioned", "sizeof(DLManagedTensorVersioned) > 0", ""});
  return items;
}

// The probe source; `skipped` items are left out. Returns the line of each item.
std::string probe_source(const std::string& header, const std::vector<Item>& items,
                         const std::set<size_t>& skipped, bool cxx, std::map<int, size_t>* lines) {
  std::ostringstream o;
  int line = 1;
  auto emit = [&](const std::string& text) {
    o << text << "\n";
    ++line;
  };
  emit("#include \"" + header + "\"");
  emit("#include <stddef.h>");
  emit("#include <stdio.h>");
  emit("int main(void) {");
  for (size_t i = 0; i < items.size(); ++i) {
    if (skipped.count(i)) continue;
    const Item& it = items[i];
    if (!it.macro.empty()) {
      emit("#ifdef " + it.macro);
      (*lines)[line] = i;
      emit("  printf(\"" + it.key + "=%lld\\n\", (long long)(" + it.macro + "));");
      emit("#endif");
    } else {
      (*lines)[line] = i;
      // Spelled out on the line itself, so a compiler error points at this item.
      std::string expr = it.expr;
      if (expr.rfind("DLC_ALIGNOF ", 0) == 0)
        expr = (cxx ? "alignof" : "_Alignof") + expr.substr(11);
      emit("  printf(\"" + it.key + "=%lld\\n\", (long long)(" + expr + "));");
    }
  }
  emit("  return 0;");
  emit("}");
  return o.str();
}

std::string first_error(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos) return line;
  }
  return output.substr(0, output.find('\n'));
}

struct LangResult {
  bool compiles = false;
  std::string error;
  std::map<std::string, long long> facts;
};

// Builds and runs the probe in one language, dropping facts the header does not declare.
LangResult probe_language(const std::string& path, const std::string& compiler, bool cxx,
                          const std::string& dir) {
  LangResult r;
  const std::vector<Item> items = probe_items();
  std::set<size_t> skipped;
  const std::string src = dir + (cxx ? "/probe.cpp" : "/probe.c");
  const std::string exe = dir + (cxx ? "/probe_cxx" : "/probe_c");
  const std::string where = cxx ? "probe.cpp:" : "probe.c:";
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::map<int, size_t> lines;
    {
      std::ofstream out(src);
      out << probe_source(path, items, skipped, cxx, &lines);
    }
    const ShellOutput c = run_shell(compiler + (cxx ? " -std=c++17" : " -std=c11") + " -w -o " +
                          shell_quote(exe) + " " + shell_quote(src));
    if (c.status == 0) {
      const ShellOutput p = run_shell(shell_quote(exe));
      std::istringstream in(p.output);
      std::string line;
      while (std::getline(in, line)) {
        const size_t eq = line.find('=');
        if (eq != std::string::npos)
          r.facts[line.substr(0, eq)] = std::atoll(line.c_str() + eq + 1);
      }
      r.compiles = p.status == 0;
      if (!r.compiles) r.error = "the probe built but did not run";
      return r;
    }
    // Map every error to an item; an error outside the items is the header's own.
    bool dropped = false;
    std::istringstream in(c.output);
    std::string line;
    while (std::getline(in, line)) {
      // "<dir>/probe.c:LINE:COL: error: ..." names the item on LINE.
      const size_t at = line.find(where);
      const bool is_error = line.find(": error") != std::string::npos;
      int error_line = -1;
      if (at != std::string::npos && is_error)
        error_line = std::atoi(line.c_str() + at + where.size());
      if (error_line < 0) {
        if (line.find(": error") != std::string::npos &&
            line.find("probe.c") == std::string::npos) {
          r.error = "does not compile as " + std::string(cxx ? "C++" : "C") + ": " + line;
          return r;
        }
        continue;
      }
      const auto it = lines.find(error_line);
      if (it == lines.end()) {
        r.error = "does not compile as " + std::string(cxx ? "C++" : "C") + ": " + line;
        return r;
      }
      dropped |= skipped.insert(it->second).second;
    }
    if (!dropped) {
      r.error =
          "does not compile as " + std::string(cxx ? "C++" : "C") + ": " + first_error(c.output);
      return r;
    }
  }
  r.error = "the probe could not be reduced to what the header declares";
  return r;
}

std::string scenario_of(const std::string& key) {
  if (key.rfind("offset.DLManagedTensor.", 0) == 0 || key == "size.DLManagedTensor") {
    return "breaks S0: an old consumer reads manager_ctx and the deleter at the old offsets";
  }
  if (key.rfind("offset.DLTensor.", 0) == 0 || key.rfind("size.DLTensor", 0) == 0) {
    return "breaks S0 and S1: every reader of the other side misplaces the tensor fields";
  }
  if (key.rfind("offset.DLManagedTensorVersioned.", 0) == 0) {
    return "breaks VER-2: the deleter must stay reachable across versions";
  }
  return "breaks binary compatibility of this struct";
}

std::string field_of(const std::string& key) {
  const size_t dot = key.find('.');
  return key.substr(dot + 1);
}

}  // namespace

const char* to_string(PairClass c) {
  switch (c) {
    case PairClass::identical:
      return "identical";
    case PairClass::compatible_additions:
      return "compatible-additions";
    case PairClass::layout_break:
      return "layout-break";
    case PairClass::source_break:
      return "source-break";
    case PairClass::error:
      return "error";
  }
  return "?";
}

HeaderFacts probe_header(const std::string& label, const std::string& path, const std::string& cc,
                         const std::string& cxx) {
  HeaderFacts h;
  h.label = label;
  h.path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    h.error = "no such header file";
    return h;
  }
  char tmpl[] = "/tmp/dlconform-layout-XXXXXX";
  const char* dir = mkdtemp(tmpl);
  if (dir == nullptr) {
    h.error = "cannot create a temporary directory";
    return h;
  }
  const std::string absolute = std::filesystem::absolute(path, ec).string();
  const LangResult c = probe_language(absolute, cc, false, dir);
  const LangResult x = probe_language(absolute, cxx, true, dir);
  std::filesystem::remove_all(dir, ec);
  h.compiles_c = c.compiles;
  h.compiles_cxx = x.compiles;
  h.facts = x.facts;
  for (const auto& [key, value] : c.facts) h.facts.emplace(key, value);
  for (const auto& [key, value] : x.facts) {
    if (c.compiles && !c.facts.count(key)) h.missing_in_c.push_back(key);
  }
  if (!c.compiles && !x.compiles) {
    h.error = c.error.empty() ? x.error : c.error;
  } else if (!h.facts.count("size.DLTensor")) {
    h.error = "declares no DLTensor";
  } else if (!c.compiles) {
    h.error = c.error;
  } else if (!x.compiles) {
    h.error = x.error;
  }
  return h;
}

PairReport classify(const HeaderFacts& from, const HeaderFacts& to) {
  PairReport p;
  p.from = from.label;
  p.to = to.label;
  if (!from.error.empty() || !to.error.empty()) {
    p.cls = PairClass::error;
    p.reasons.push_back("a header could not be probed");
    return p;
  }
  std::vector<std::string> layout, source, additions;
  for (const auto& [key, value] : from.facts) {
    const auto it = to.facts.find(key);
    const bool layout_fact =
        key.rfind("size.", 0) == 0 || key.rfind("offset.", 0) == 0 || key.rfind("align.", 0) == 0;
    if (layout_fact) {
      const std::string strukt =
          key.substr(key.find('.') + 1, key.find('.', key.find('.') + 1) - key.find('.') - 1);
      if (!to.facts.count("size." + strukt)) continue;  // the struct itself is gone: source break
      if (it == to.facts.end()) {
        layout.push_back(field_of(key) + " is gone: " + scenario_of(key));
      } else if (it->second != value) {
        const bool size = key.rfind("size.", 0) == 0;
        layout.push_back(field_of(key) + (size ? " size " : " moved ") + std::to_string(value) +
                         " -> " + std::to_string(it->second) + ": " + scenario_of(key));
      }
      continue;
    }
    if (is_version_macro(key)) continue;
    if (it == to.facts.end()) {
      source.push_back(key + " is no longer declared");
    } else if (it->second != value) {
      source.push_back(key + " changed value " + std::to_string(value) + " -> " +
                       std::to_string(it->second));
    }
  }
  for (const auto& [key, value] : from.facts) {
    if (key.rfind("size.", 0) == 0 && !to.facts.count(key)) {
      source.push_back("struct " + key.substr(5) + " is no longer declared");
    }
  }
  for (const std::string& key : to.missing_in_c) {
    if (std::find(from.missing_in_c.begin(), from.missing_in_c.end(), key) ==
            from.missing_in_c.end() &&
        from.facts.count(key)) {
      source.push_back(key + " is not usable from C (a struct tag without a typedef)");
    }
  }
  for (const auto& [key, value] : to.facts) {
    if (!from.facts.count(key) && !is_version_macro(key) && key.rfind("offset.", 0) != 0 &&
        key.rfind("align.", 0) != 0) {
      additions.push_back(key);
    }
  }
  // A struct that only grew at its end keeps every old offset: old readers are fine (S0), but a
  // new reader of an old struct reads past its end (S1). Say that instead of the generic text.
  for (std::string& reason : layout) {
    const std::string grew = "DLManagedTensor size ";
    if (reason.rfind(grew, 0) != 0) continue;
    bool moved = false;
    for (const std::string& other : layout) moved |= other.find(" moved ") != std::string::npos;
    if (!moved) {
      reason = reason.substr(0, reason.find(':')) +
               ": grew at the end with the legacy fields in place: old consumers keep working "
               "(S0), a new reader of an old struct reads past its end (S1)";
    }
  }
  if (!layout.empty()) {
    p.cls = PairClass::layout_break;
    p.reasons = layout;
  } else if (!source.empty()) {
    p.cls = PairClass::source_break;
    p.reasons = source;
  } else if (!additions.empty()) {
    p.cls = PairClass::compatible_additions;
    p.reasons.push_back("adds " + std::to_string(additions.size()) + ": " + additions.front() +
                        (additions.size() > 1 ? ", ..." : ""));
    p.reasons.insert(p.reasons.end(), additions.begin(), additions.end());
  }
  return p;
}

std::vector<std::pair<std::string, std::string>> builtin_headers() {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(DLC_LAYOUT_BUILTIN);
  std::string entry;
  std::error_code ec;
  while (std::getline(in, entry, ';')) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    std::string label = entry.substr(0, eq), path = entry.substr(eq + 1);
    if (!std::filesystem::exists(path, ec) && path.rfind(DLC_LAYOUT_SOURCE_ABI, 0) == 0) {
      path = DLC_LAYOUT_INSTALLED_ABI + path.substr(std::strlen(DLC_LAYOUT_SOURCE_ABI));
    }
    out.emplace_back(label, path);
  }
  return out;
}

bool device_enum_key(const std::string& key) {
  for (const char* e : kDevices) {
    if (key == std::string("enum.") + e) return true;
  }
  return false;
}

bool dtype_enum_key(const std::string& key) {
  for (const char* e : kCodes) {
    if (key == std::string("enum.") + e) return true;
  }
  return false;
}

}  // namespace dlc
