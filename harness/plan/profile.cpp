#include "profile.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "geometry.hpp"

namespace dlc {
namespace {

struct NamedDtype {
  const char* name;
  DLCDtype dtype;
};
constexpr NamedDtype kDtypes[] = {
    {"i8", {0, 8, 1}},          {"i16", {0, 16, 1}},       {"i32", {0, 32, 1}},
    {"i64", {0, 64, 1}},        {"u8", {1, 8, 1}},         {"u16", {1, 16, 1}},
    {"u32", {1, 32, 1}},        {"u64", {1, 64, 1}},       {"f16", {2, 16, 1}},
    {"f32", {2, 32, 1}},        {"f64", {2, 64, 1}},       {"opaque64", {3, 64, 1}},
    {"bf16", {4, 16, 1}},       {"c64", {5, 64, 1}},       {"c128", {5, 128, 1}},
    {"bool", {6, 8, 1}},        {"f8_e3m4", {7, 8, 1}},    {"f8_e4m3", {8, 8, 1}},
    {"f8_e4m3b11fnuz", {9, 8, 1}}, {"f8_e4m3fn", {10, 8, 1}}, {"f8_e4m3fnuz", {11, 8, 1}},
    {"f8_e5m2", {12, 8, 1}},    {"f8_e5m2fnuz", {13, 8, 1}}, {"f8_e8m0fnu", {14, 8, 1}},
    {"f6_e2m3fn", {15, 6, 1}},  {"f6_e3m2fn", {16, 6, 1}}, {"f4_e2m1fn", {17, 4, 1}},
};

struct NamedDevice {
  const char* name;
  int32_t type;
};
constexpr NamedDevice kDevices[] = {
    {"cpu", 1},      {"cuda", 2},   {"cuda_host", 3}, {"opencl", 4},  {"vulkan", 7},
    {"metal", 8},    {"vpi", 9},    {"rocm", 10},     {"rocm_host", 11}, {"ext_dev", 12},
    {"cuda_managed", 13}, {"oneapi", 14}, {"webgpu", 15}, {"hexagon", 16}, {"maia", 17},
    {"trn", 18},
};

struct NamedBit {
  const char* name;
  uint32_t bit;
};
constexpr NamedBit kStrides[] = {{"positive", DLC_STRIDES_POSITIVE},
                                 {"negative", DLC_STRIDES_NEGATIVE},
                                 {"zero", DLC_STRIDES_ZERO},
                                 {"overlapping", DLC_STRIDES_OVERLAPPING}};
constexpr NamedBit kFeatures[] = {{"read-only", DLC_FEATURE_READ_ONLY},
                                  {"zero-dim", DLC_FEATURE_ZERO_DIM},
                                  {"zero-size", DLC_FEATURE_ZERO_SIZE},
                                  {"copy", DLC_FEATURE_COPY},
                                  {"misaligned", DLC_FEATURE_MISALIGNED},
                                  {"test-layouts", DLC_FEATURE_TEST_LAYOUTS},
                                  {"every-dtype", DLC_FEATURE_EVERY_DTYPE},
                                  {"every-device", DLC_FEATURE_EVERY_DEVICE},
                                  {"needs-write", DLC_FEATURE_NEEDS_WRITE},
                                  {"null-shape", DLC_FEATURE_NULL_SHAPE},
                                  {"null-data", DLC_FEATURE_NULL_DATA},
                                  {"null-strides", DLC_FEATURE_NULL_STRIDES},
                                  {"byte-offset", DLC_FEATURE_BYTE_OFFSET},
                                  {"legacy-struct-only", DLC_FEATURE_LEGACY_STRUCT_ONLY}};
constexpr uint32_t kAllStrides =
    DLC_STRIDES_POSITIVE | DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO | DLC_STRIDES_OVERLAPPING;

bool same_dtype(DLCDtype a, DLCDtype b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

std::string bits_text(uint32_t bits, const NamedBit* table, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (bits & table[i].bit) s += (s.empty() ? "" : " ") + std::string(table[i].name);
  }
  return s.empty() ? "none" : s;
}

// Which stride capabilities a tensor needs: on dimensions of extent > 1 only.
uint32_t strides_needed(const DLCTensorSpec& s) {
  if (!s.has_strides) return 0;
  uint32_t need = 0;
  int64_t compact = 1;
  bool compact_known = true;
  bool non_compact = false;
  for (int i = s.ndim - 1; i >= 0; --i) {
    if (s.shape[i] > 1) {
      if (s.strides[i] < 0) need |= DLC_STRIDES_NEGATIVE;
      if (s.strides[i] == 0) need |= DLC_STRIDES_ZERO;
      if (!compact_known || s.strides[i] != compact) non_compact = true;
    }
    // Past int64 (a fuzzed shape), no stride can be the compact one any more.
    if (compact_known && __builtin_mul_overflow(compact, s.shape[i] == 0 ? 1 : s.shape[i], &compact)) {
      compact_known = false;
    }
  }
  if (non_compact && (need & (DLC_STRIDES_NEGATIVE | DLC_STRIDES_ZERO)) == 0) {
    need |= DLC_STRIDES_POSITIVE;
    // Positive strides whose elements overlap: the span holds fewer slots than elements.
    const geo::SpecGeometry g = geo::geometry(s);
    // The span in elements, in unsigned arithmetic: max_offset - min_offset + 1 reaches 2^63
    // for a fuzzed stride of INT64_MAX (a valid geometry's span fits 64 bits unsigned).
    const uint64_t slots = static_cast<uint64_t>(g.g.max_offset) +
                           (0 - static_cast<uint64_t>(g.g.min_offset)) + 1;
    if (g.g.valid && !g.g.packed_subbyte && g.g.numel > 0 && slots < g.g.numel) {
      need |= DLC_STRIDES_OVERLAPPING;
    }
  }
  return need;
}

bool in_common(const Profile& p, const TensorCase& t) {
  const DLCTensorSpec& s = t.spec;
  if (s.ndim > p.max_ndim) return false;
  if (!p.dtypes.empty()) {
    bool found = false;
    for (DLCDtype d : p.dtypes) found |= same_dtype(d, s.dtype);
    if (!found) return false;
  }
  if (!takes_device(p, s.device.device_type)) return false;
  const uint32_t need = strides_needed(s);
  if ((need & ~p.strides) != 0) return false;
  if (s.ndim == 0 && !(p.features & DLC_FEATURE_ZERO_DIM)) return false;
  bool zero_size = false;
  for (int i = 0; i < s.ndim; ++i) zero_size |= s.shape[i] == 0;
  if (zero_size && !(p.features & DLC_FEATURE_ZERO_SIZE)) return false;
  if (s.misalign != 0 && !(p.features & DLC_FEATURE_MISALIGNED)) return false;
  // A first element off its own size (a byte_offset that is no multiple of a whole-byte element,
  // as fuzzed tensors have) is misaligned data as well (LAY-9): a consumer may refuse it.
  const uint64_t element = (uint64_t{s.dtype.bits} * s.dtype.lanes + 7) / 8;
  if (s.dtype.bits >= 8 && element > 1 && s.byte_offset % element != 0 &&
      !(p.features & DLC_FEATURE_MISALIGNED)) {
    return false;
  }
  return true;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool parse_number(const std::string& s, long long min, long long max, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

std::string dtype_name(DLCDtype d) {
  for (const NamedDtype& n : kDtypes) {
    if (same_dtype(n.dtype, d)) return n.name;
  }
  return std::to_string(d.code) + ":" + std::to_string(d.bits) + ":" + std::to_string(d.lanes);
}

Profile default_profile() {
  Profile p;
  p.source = Profile::Source::default_profile;
  p.dtypes = {DLCDtype{2, 32, 1}};
  p.device_types = {1};
  p.strides = DLC_STRIDES_POSITIVE;
  p.features = DLC_FEATURE_READ_ONLY | DLC_FEATURE_ZERO_DIM | DLC_FEATURE_ZERO_SIZE;
  p.max_ndim = 8;
  return p;
}

Profile profile_from_table(const DLCProfile& d) {
  Profile p;
  p.source = Profile::Source::declared;
  if (d.dtypes != nullptr) p.dtypes.assign(d.dtypes, d.dtypes + d.dtype_count);
  if (d.dtypes == nullptr && d.dtype_count == 0) p.dtypes = {DLCDtype{2, 32, 1}};
  if (d.features & DLC_FEATURE_EVERY_DTYPE) p.dtypes.clear();
  if (d.device_types != nullptr) p.device_types.assign(d.device_types, d.device_types + d.device_count);
  if (d.device_types == nullptr && d.device_count == 0) p.device_types = {1};
  if (d.features & DLC_FEATURE_EVERY_DEVICE) p.device_types.clear();
  p.strides = d.strides;
  p.features = d.features;
  p.max_ndim = d.max_ndim == 0 ? 8 : d.max_ndim;
  p.emits_version = d.emits_version;
  return p;
}

std::string Profile::summary() const {
  std::string dt;
  if (dtypes.empty()) {
    dt = "every dtype";
  } else {
    for (DLCDtype d : dtypes) dt += (dt.empty() ? "" : " ") + dtype_name(d);
  }
  std::string dev;
  if (device_types.empty()) {
    dev = "every device";
  } else {
    for (int32_t t : device_types) {
      std::string name = std::to_string(t);
      for (const NamedDevice& n : kDevices) {
        if (n.type == t) name = n.name;
      }
      dev += (dev.empty() ? "" : " ") + name;
    }
  }
  std::string s = dt + " · " + dev + " · strides " + bits_text(strides, kStrides, std::size(kStrides)) + " · " +
                  bits_text(features & ~(DLC_FEATURE_EVERY_DTYPE | DLC_FEATURE_EVERY_DEVICE), kFeatures,
                            std::size(kFeatures)) + " · ndim <= " + std::to_string(max_ndim);
  if (emits_version.major != 0 || emits_version.minor != 0) {
    s += " · emits " + std::to_string(emits_version.major) + "." +
         std::to_string(emits_version.minor);
  }
  s += source == Source::declared ? " (declared)"
       : source == Source::file   ? " (profile file)"
                                  : " (default)";
  return s;
}

bool parse_profile(const std::string& text, const std::string& origin, Profile* out,
                   std::string* error) {
  Profile p = default_profile();
  p.source = Profile::Source::file;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trim(line);
    if (line.empty()) continue;
    const std::string where = origin + ":" + std::to_string(number) + ": ";
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      *error = where + "expected KEY = VALUE but found '" + line + "'";
      return false;
    }
    const std::string key = trim(line.substr(0, eq));
    std::istringstream values(trim(line.substr(eq + 1)));
    std::vector<std::string> words;
    for (std::string w; values >> w;) words.push_back(w);
    auto bad = [&](const std::string& expected, const std::string& found) {
      *error = where + "expected " + expected + " but found '" + found + "'";
      return false;
    };
    if (key == "dtypes") {
      p.dtypes.clear();
      for (const std::string& w : words) {
        if (w == "all") {
          p.dtypes.clear();
          break;
        }
        bool found = false;
        for (const NamedDtype& n : kDtypes) {
          if (w == n.name) {
            p.dtypes.push_back(n.dtype);
            found = true;
          }
        }
        unsigned code = 0, bits = 0, lanes = 0;
        char tail = 0;
        if (!found && std::sscanf(w.c_str(), "%u:%u:%u%c", &code, &bits, &lanes, &tail) == 3 &&
            code < 256 && bits < 256 && lanes > 0 && lanes < 65536) {
          p.dtypes.push_back(DLCDtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits),
                                      static_cast<uint16_t>(lanes)});
          found = true;
        }
        if (!found) return bad("a dtype name (f32, i64, bf16, ...) or code:bits:lanes", w);
      }
    } else if (key == "devices") {
      p.device_types.clear();
      for (const std::string& w : words) {
        if (w == "all") {
          p.device_types.clear();
          break;
        }
        bool found = false;
        for (const NamedDevice& n : kDevices) {
          if (w == n.name) {
            p.device_types.push_back(n.type);
            found = true;
          }
        }
        long long number_value = 0;
        if (!found && parse_number(w, 1, 1000, &number_value)) {
          p.device_types.push_back(static_cast<int32_t>(number_value));
          found = true;
        }
        if (!found) return bad("a device name (cpu, cuda, ...) or a device type number", w);
      }
    } else if (key == "strides" || key == "features") {
      const NamedBit* table = key == "strides" ? kStrides : kFeatures;
      const size_t n = key == "strides" ? std::size(kStrides) : std::size(kFeatures);
      uint32_t bits = 0;
      for (const std::string& w : words) {
        if (w == "none") continue;
        if (w == "all") {
          bits = key == "strides" ? kAllStrides : ~0u;
          continue;
        }
        bool found = false;
        for (size_t i = 0; i < n; ++i) {
          if (w == table[i].name) {
            bits |= table[i].bit;
            found = true;
          }
        }
        if (!found) return bad("one of: " + bits_text(~0u, table, n) + ", all, none", w);
      }
      (key == "strides" ? p.strides : p.features) = bits;
    } else if (key == "max_ndim") {
      long long v = 0;
      if (words.size() != 1 || !parse_number(words[0], 0, DLC_MAX_NDIM, &v)) {
        return bad("max_ndim between 0 and " + std::to_string(DLC_MAX_NDIM), trim(line.substr(eq + 1)));
      }
      p.max_ndim = static_cast<int32_t>(v);
    } else if (key == "emits_version") {
      unsigned major = 0, minor = 0;
      char tail = 0;
      if (words.size() != 1 || std::sscanf(words[0].c_str(), "%u.%u%c", &major, &minor, &tail) != 2) {
        return bad("emits_version as MAJOR.MINOR", trim(line.substr(eq + 1)));
      }
      p.emits_version = {major, minor};
    } else {
      return bad("one of dtypes, devices, strides, features, max_ndim, emits_version", key);
    }
  }
  if (p.features & DLC_FEATURE_EVERY_DTYPE) p.dtypes.clear();
  if (p.features & DLC_FEATURE_EVERY_DEVICE) p.device_types.clear();
  *out = std::move(p);
  return true;
}

bool load_profile_file(const std::string& path, Profile* out, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read profile file " + path;
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), path, out, error);
}

bool producer_can_make(const Profile& p, const TensorCase& t) {
  const DLCTensorSpec& s = t.spec;
  if (t.test_layout && !(p.features & DLC_FEATURE_TEST_LAYOUTS)) return false;
  // Real device memory comes only from a producer that allocates it; and such a producer makes
  // nothing else (a host mock's poisoned stand-in is no device memory).
  if (t.real_device != ((p.features & DLC_FEATURE_REAL_DEVICE) != 0)) return false;
  if (!in_common(p, t)) return false;
  if ((s.options & DLC_SPEC_READ_ONLY) && !(p.features & DLC_FEATURE_READ_ONLY)) return false;
  if (t.copy == 1 && !(p.features & DLC_FEATURE_COPY)) return false;
  return true;
}

uint32_t wished_representations(const DLCTensorSpec& s) {
  uint32_t wished = 0;
  bool zero_size = false;
  for (int i = 0; i < s.ndim && i < DLC_MAX_NDIM; ++i) zero_size |= s.shape[i] == 0;
  if (s.ndim == 0 && (s.options & DLC_SPEC_NULL_SHAPE_IF_SCALAR)) wished |= DLC_FEATURE_NULL_SHAPE;
  if (zero_size && (s.options & DLC_SPEC_NULL_DATA_IF_EMPTY)) wished |= DLC_FEATURE_NULL_DATA;
  if (s.ndim != 0 && (s.options & DLC_SPEC_NULL_STRIDES)) wished |= DLC_FEATURE_NULL_STRIDES;
  if (s.byte_offset != 0 || (s.options & DLC_SPEC_DATA_AT_STORAGE_START)) {
    wished |= DLC_FEATURE_BYTE_OFFSET;
  }
  return wished;
}

bool declares_wishes(const Profile& p, const TensorCase& t) {
  // The mocks make every layout on request; a real exporter declares what it makes.
  if (p.features & DLC_FEATURE_TEST_LAYOUTS) return true;
  return (wished_representations(t.spec) & ~p.features) == 0;
}

bool takes_device(const Profile& p, int32_t device_type) {
  if (p.device_types.empty()) return true;
  for (int32_t d : p.device_types) {
    if (d == device_type) return true;
  }
  return false;
}

bool consumer_supports(const Profile& p, const TensorCase& t) {
  // Unknown flag bits may be refused (FLAG-4). Any consumer may import a READ_ONLY tensor (FLAG-1:
  // honouring the flag, or ignoring it at INFO), but one that needs write access refuses rightly.
  if (t.spec.extra_flags != 0) return false;
  if ((t.spec.options & DLC_SPEC_READ_ONLY) && (p.features & DLC_FEATURE_NEEDS_WRITE)) return false;
  // A consumer of real device memory need not take a host stand-in that claims a device.
  if ((p.features & DLC_FEATURE_REAL_DEVICE) && t.spec.device.device_type != 1 && !t.real_device) {
    return false;
  }
  return in_common(p, t);
}

bool resolve_profile(const LoadedPlugin& plugin, Profile* out, std::string* error) {
  if (const DLCProfile* declared = plugin.declared_profile()) {
    if (declared->struct_size < sizeof(DLCProfile) ||
        (declared->dtype_count > 0 && declared->dtypes == nullptr) ||
        (declared->device_count > 0 && declared->device_types == nullptr) ||
        declared->max_ndim < 0 || declared->max_ndim > DLC_MAX_NDIM) {
      *error = plugin.path + ": expected a well-formed profile (struct_size " +
               std::to_string(sizeof(DLCProfile)) + ", arrays with their counts, max_ndim 0 to " +
               std::to_string(DLC_MAX_NDIM) + ") but found struct_size " +
               std::to_string(declared->struct_size) + ", max_ndim " +
               std::to_string(declared->max_ndim);
      return false;
    }
    *out = profile_from_table(*declared);
  } else {
    std::error_code ec;
    const std::string file = plugin.path + ".profile";
    if (std::filesystem::exists(file, ec)) {
      if (!load_profile_file(file, out, error)) return false;
    } else {
      *out = default_profile();
    }
  }
  return true;
}

}  // namespace dlc
