// `dlconform layout`: compile a probe against DLPack headers (the built-in ones and any the user
// passes), as C and as C++, and compare what they declare: sizes, alignments, offsets, enum
// values, version macros and flag bits.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace dlc {

// What one header declares, as the probe saw it, keyed "size.DLTensor", "offset.DLTensor.shape",
// "enum.kDLCPU", "macro.DLPACK_VERSION", "typedef.DLManagedTensorVersioned" ...
struct HeaderFacts {
  std::string label;  // "v1.3", "variant-a1", or the path the user passed
  std::string path;
  bool compiles_c = false;
  bool compiles_cxx = false;
  std::string error;                       // one line when the header cannot be probed
  std::map<std::string, long long> facts;  // from the C++ probe, C-only facts merged in
  std::vector<std::string> missing_in_c;   // facts C++ saw but C did not (typedef-less tags)
};

enum class PairClass { identical, compatible_additions, layout_break, source_break, error };
const char* to_string(PairClass c);

struct PairReport {
  std::string from, to;
  PairClass cls = PairClass::identical;
  std::vector<std::string> reasons;  // "DLManagedTensor.deleter moved 56 -> 64: breaks S0 ..."
};

// Probes one header; `cc` and `cxx` are compiler commands.
HeaderFacts probe_header(const std::string& label, const std::string& path, const std::string& cc,
                         const std::string& cxx);

PairReport classify(const HeaderFacts& from, const HeaderFacts& to);

// The built-in headers as (label, path): v0.6 (Debian's) to v1.3 and the RFC's design variants,
// from the source tree, or from the install prefix when the source tree is gone.
std::vector<std::pair<std::string, std::string>> builtin_headers();

// Whether a fact key names a device type or a dtype code enumerator ("enum.kDLCUDA").
bool device_enum_key(const std::string& key);
bool dtype_enum_key(const std::string& key);

}  // namespace dlc
