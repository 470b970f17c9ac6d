// Property: on every tensor inside the domain they all claim (host memory, ndim <= 16, a struct
// of their own major), the strict reference validator and every conformant consumer agree on
// accept or refuse, at the validation level each consumer claims; and every consumer that
// accepts reads the same values as the validator and as the fuzzer's own reader (LAY-4). A split
// verdict is a finding. Outside that domain, refusing is allowed, and only the memory and
// lifecycle properties of the import targets are checked. A storage size of 2^63 bytes or more
// (LAY-10's band) may be refused anywhere: strict-consumer-v1_3 refuses it, as NumPy does, the
// others take it, and the judge blames neither.
//
// The input is a TensorInput (tensor_input.hpp); its kLegacyStruct bit picks a DLManagedTensor
// instead of a DLManagedTensorVersioned. The consumers are the built-in conformant ones
// (strict-consumer-v1_3 at the strict level, versioned-consumer-v1_3 and legacy-consumer-v0_6 at
// the standard level), plus DLCONFORM_PLUGIN=/path/lib.so (or the adapter an OSS-Fuzz build ships
// beside the executable) at DLCONFORM_LEVEL (standard or strict, default standard).
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_harness.hpp"
#include "judge.h"
#include "phase.h"
#include "validate.h"

namespace {

constexpr int32_t kDomainMaxNdim = 16;  // the built-in consumers' own limit

struct Participant {
  dlc::LoadedPlugin plugin;
  bool strict = false;  // refuses SHOULD violations too
  dlc::Profile profile{};  // what it declares it takes (read once, at start)
};
std::vector<Participant> g_consumers;

}  // namespace

extern "C" size_t dlc_fuzz_max_input_bytes() { return dlc_fuzz::kMaxInputBytes; }

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Shadow guards only when the three built-in consumers are all there is.
  dlc_fuzz::choose_guards(std::getenv("DLCONFORM_PLUGIN") == nullptr &&
                          dlc_fuzz::adapter_beside_executable().empty());
  g_consumers.push_back({dlc_fuzz::load_or_exit(dlc_fuzz::builtin_plugin_path(
                                                    "strict-consumer-v1_3"),
                                                DLC_ROLE_CONSUMER),
                         true});
  for (const char* name : {"versioned-consumer-v1_3", "legacy-consumer-v0_6"}) {
    g_consumers.push_back(
        {dlc_fuzz::load_or_exit(dlc_fuzz::builtin_plugin_path(name), DLC_ROLE_CONSUMER), false});
  }
  const char* plugin = std::getenv("DLCONFORM_PLUGIN");
  const std::string adapter = dlc_fuzz::adapter_beside_executable();
  if (plugin == nullptr && !adapter.empty()) plugin = adapter.c_str();
  if (const char* path = plugin) {
    const char* level = std::getenv("DLCONFORM_LEVEL");
    const std::string wanted = level != nullptr ? level : "standard";
    if (wanted != "standard" && wanted != "strict") {
      std::fprintf(stderr,
                   "dlconform fuzz: cannot start: DLCONFORM_LEVEL: expected standard or strict "
                   "but found %s\n",
                   wanted.c_str());
      std::exit(2);
    }
    g_consumers.push_back({dlc_fuzz::load_or_exit(path, DLC_ROLE_CONSUMER), wanted == "strict"});
  }
  for (Participant& c : g_consumers) {
    std::string error;
    if (!dlc::resolve_profile(c.plugin, &c.profile, &error)) {
      std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n", error.c_str());
      std::exit(2);
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dlc_fuzz::install_fault_handler();
  dlc_fuzz::count_input();
  const dlc_fuzz::TensorInput in = dlc_fuzz::decode(data, size);
  const bool versioned = !(in.layout & dlc_fuzz::kLegacyStruct);
  dlc_fuzz::set_current_input(&in, versioned);
  const bool in_domain = in.device.device_type == 1 && in.ndim <= kDomainMaxNdim &&
                         (!versioned || in.version.major == 1);

  for (Participant& c : g_consumers) {
    const DLCVersion own = c.plugin.table->dlpack_version;
    dlc_fuzz::Built built = dlc_fuzz::build_tensor(in, versioned, own.major < 1 ? 1 : own.major, true);
    if (built.skipped) break;
    // A 0.x consumer takes no versioned struct at all: outside its domain.
    const bool comparable = in_domain && (!versioned || own.major >= 1);
    dlc::ValidateResult reference;
    if (comparable) {
      // The reference for this consumer: the validator at the full level (it digests every
      // element), knowing the enum values of the consumer's own header (DT-1, DEV-1).
      dlc::ScopedPhase phase("validate()", "reference-validator", dlc::Party::harness);
      dlc::ValidateOptions options;
      options.level = dlc::Level::full;
      options.consumer_version = own;
      options.max_ndim = kDomainMaxNdim;
      dlc::validate(built.handoff, options, &reference);
      const bool accepted = reference.first_refusal(c.strict) == nullptr;
      const dlc_fuzz::ExpectedData expected =
          accepted ? dlc_fuzz::expected_data(built) : dlc_fuzz::ExpectedData{};
      if (accepted && built.digest_known &&
          (reference.observation.digest != expected.digest ||
           reference.observation.elements_read != expected.elements)) {
        dlc::Finding f;
        f.set(dlc::FindingClass::wrong_data)
            .add("expected the validator and the fuzzer's own reader to agree on the data but ")
            .add("found ").unum(reference.observation.elements_read).add(" elements, digest ")
            .hex(reference.observation.digest).add(" against ").unum(expected.elements)
            .add(", digest ").hex(expected.digest);
        dlc_fuzz::die(f);
      }
    }
    // Only the memory and lifecycle properties are checked on an input with a known bug.
    if (const dlc::Rule known = dlc_fuzz::known_bug_of(c.plugin, built); known != dlc::Rule::none) {
      dlc_fuzz::run_known(c.plugin, built, known);
      continue;
    }
    const dlc_fuzz::Outcome out = dlc_fuzz::run_consumer(c.plugin, built);
    if (!comparable) continue;
    // A split verdict is judged as the matrix judges an import against the truth: a consumer
    // that refuses what the reference accepts rejects a valid tensor, one that imports what the
    // reference refuses accepts an invalid one.
    reference.accepted = reference.first_refusal(c.strict) == nullptr;
    dlc::ImportFacts imp;
    imp.rc = out.rc;
    imp.consumer_error = out.error;
    imp.truth_known = true;
    imp.truth = &reference;
    imp.must_accept = dlc_fuzz::inside_profile(c.profile, in, versioned);
    imp.tensor_rule = dlc_fuzz::rule_exercised(in);
    imp.observation = &out.obs;
    imp.consumer_label = dlc_fuzz::label(c.plugin);
    dlc::Finding f;
    dlc::judge_import(imp, &f);
    if (f.fails()) {  // an INFO observation (producer-rule-accepted) is no disagreement
      dlc::SafeText(f.words + std::strlen(f.words), sizeof f.words - std::strlen(f.words))
          .add(" (the reference validator at the ")
          .add(c.strict ? "strict" : "standard")
          .add(" level, DLPack ")
          .version(own.major, own.minor)
          .add(", disagrees with consume() of ")
          .add(dlc_fuzz::label(c.plugin))
          .add(')');
      dlc_fuzz::die(f);
    }
  }
  dlc_fuzz::set_current_input(nullptr, versioned);
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  return dlc_fuzz::custom_mutate(data, size, max_size, seed, {{1, 3}, true});
}
