// The probe against the built-in headers: the x86-64 layouts every DLPack version must have, and
// the classification of the pairs that matter.
#include "layout.h"

#include <cstdlib>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "dlc_layout_config.h"

namespace {

std::string header_path(const std::string& label) {
  const std::string all = DLC_LAYOUT_BUILTIN;
  const size_t at = all.find(label + "=");
  REQUIRE(at != std::string::npos);
  const size_t start = at + label.size() + 1;
  return all.substr(start, all.find(';', start) - start);
}

const dlc::HeaderFacts& probed(const std::string& label) {
  static std::map<std::string, dlc::HeaderFacts> cache;
  auto it = cache.find(label);
  if (it == cache.end()) {
    it = cache.emplace(label, dlc::probe_header(label, header_path(label), "cc", "c++")).first;
  }
  return it->second;
}

long long fact(const std::string& label, const std::string& key) {
  const auto& facts = probed(label).facts;
  const auto it = facts.find(key);
  INFO(label << " " << key);
  REQUIRE(it != facts.end());
  return it->second;
}

}  // namespace

TEST_CASE("layout: every DLPack header has the x86-64 layouts of LAY-1 to LAY-3", "[unit]") {
  for (const char* v : {"v0.6", "v0.7", "v0.8", "v1.0", "v1.1", "v1.2", "v1.3"}) {
    INFO(v);
    CHECK(probed(v).error.empty());
    CHECK(probed(v).compiles_c);
    CHECK(probed(v).compiles_cxx);
    CHECK(fact(v, "size.DLTensor") == 48);
    const char* fields[] = {"data", "device", "ndim", "dtype", "shape", "strides", "byte_offset"};
    const long long offsets[] = {0, 8, 16, 20, 24, 32, 40};
    for (int i = 0; i < 7; ++i) {
      CHECK(fact(v, std::string("offset.DLTensor.") + fields[i]) == offsets[i]);
    }
    CHECK(fact(v, "size.DLManagedTensor") == 64);
    CHECK(fact(v, "offset.DLManagedTensor.deleter") == 56);
    CHECK(fact(v, "enum.kDLCPU") == 1);
    CHECK(fact(v, "enum.kDLCUDAManaged") == 13);
    CHECK(fact(v, "enum.kDLComplex") == 5);
  }
  for (const char* v : {"v1.0", "v1.1", "v1.2", "v1.3"}) {
    INFO(v);
    CHECK(fact(v, "size.DLManagedTensorVersioned") == 80);
    const char* fields[] = {"version", "manager_ctx", "deleter", "flags", "dl_tensor"};
    const long long offsets[] = {0, 8, 16, 24, 32};
    for (int i = 0; i < 5; ++i) {
      CHECK(fact(v, std::string("offset.DLManagedTensorVersioned.") + fields[i]) == offsets[i]);
    }
    CHECK(fact(v, "macro.DLPACK_FLAG_BITMASK_READ_ONLY") == 1);
    CHECK(fact(v, "macro.DLPACK_FLAG_BITMASK_IS_COPIED") == 2);
    CHECK(fact(v, "enum.kDLMAIA") == 17);
  }
  CHECK(fact("v0.6", "macro.DLPACK_VERSION") == 60);
  CHECK(fact("v0.7", "macro.DLPACK_ABI_VERSION") == 1);
  CHECK(fact("v0.8", "enum.kDLBool") == 6);
  CHECK(fact("v1.1", "enum.kDLFloat4_e2m1fn") == 17);
  CHECK(fact("v1.1", "macro.DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED") == 4);
  CHECK(fact("v1.2", "enum.kDLTrn") == 18);
  CHECK(fact("v1.3", "size.DLPackExchangeAPI") == 56);
  CHECK(fact("v1.3", "offset.DLPackExchangeAPI.current_work_stream") == 48);
}

TEST_CASE("layout: each built-in header agrees with every fact the real v0.6 header states",
          "[unit]") {
  const dlc::HeaderFacts& real = probed("v0.6");
  REQUIRE(real.facts.size() > 20);
  for (const char* v : {"v0.7", "v0.8", "v1.0", "v1.1", "v1.2", "v1.3"}) {
    for (const auto& [key, value] : real.facts) {
      if (key == "macro.DLPACK_VERSION" || key.rfind("align.", 0) == 0 ||
          (key.rfind("macro.", 0) == 0 && std::string(v).rfind("v1", 0) == 0)) {
        continue;  // the version macros are meant to differ; v1 renamed them
      }
      INFO(v << " " << key);
      CHECK(fact(v, key) == value);
    }
  }
}

TEST_CASE("layout: pairs are classified by what changed", "[unit]") {
  using dlc::PairClass;
  CHECK(dlc::classify(probed("v1.2"), probed("v1.3")).cls == PairClass::identical);
  CHECK(dlc::classify(probed("v0.7"), probed("v0.8")).cls == PairClass::compatible_additions);
  CHECK(dlc::classify(probed("v1.0"), probed("v1.1")).cls == PairClass::compatible_additions);
  // v1.0 drops DLPACK_VERSION for DLPACK_MAJOR/MINOR_VERSION: a source break.
  CHECK(dlc::classify(probed("v0.8"), probed("v1.0")).cls == PairClass::source_break);
  // v1.2 gives the versioned struct a typedef; going back loses it in C.
  const dlc::PairReport back = dlc::classify(probed("v1.2"), probed("v1.1"));
  CHECK(back.cls == PairClass::source_break);
  // The RFC's verdicts: appending to DLTensor moves the deleter; A1 keeps the legacy prefix.
  const dlc::PairReport append = dlc::classify(probed("v0.6"), probed("variant-append-dltensor"));
  CHECK(append.cls == PairClass::layout_break);
  REQUIRE_FALSE(append.reasons.empty());
  bool deleter_moved = false;
  for (const auto& r : append.reasons)
    deleter_moved |= r.find("DLManagedTensor.deleter moved 56 -> 64") == 0;
  CHECK(deleter_moved);
  const dlc::PairReport a1 = dlc::classify(probed("v0.6"), probed("variant-a1"));
  CHECK(a1.cls == PairClass::layout_break);
  CHECK(a1.reasons.size() == 1);
  CHECK(a1.reasons[0].find("old consumers keep working (S0)") != std::string::npos);
  CHECK(fact("variant-a1", "offset.DLManagedTensor.deleter") == 56);
}

TEST_CASE("layout: a broken header gets one clean error and the rest is still probed", "[unit]") {
  const std::string path = "/tmp/dlconform-layout-test-broken.h";
  std::ofstream(path) << "typedef struct { int x; } NotATensor;\nthis is not C;\n";
  const dlc::HeaderFacts broken = dlc::probe_header(path, path, "cc", "c++");
  CHECK_FALSE(broken.compiles_c);
  CHECK(broken.error.find("does not compile as C") == 0);
  const std::string no_tensor = "/tmp/dlconform-layout-test-empty.h";
  std::ofstream(no_tensor) << "typedef int NotATensor;\n";
  CHECK(dlc::probe_header(no_tensor, no_tensor, "cc", "c++").error == "declares no DLTensor");
  CHECK(dlc::probe_header("missing", "/nonexistent.h", "cc", "c++").error == "no such header file");
  CHECK(dlc::classify(probed("v1.3"), broken).cls == dlc::PairClass::error);
}
