// Property: whatever the exporter object answers a Python library's from_dlpack around the
// capsule (which keywords __dlpack__ takes, what it returns or raises, what __dlpack_device__
// returns), the importer never crashes or hangs. It refuses a capsule under a name other than
// dltensor or dltensor_versioned (LIFE-1; LIFE-8 for a used_ name) and calls no deleter of it. A
// capsule it takes under its own name is judged as the import targets judge one (LIFE-1, LIFE-3,
// LAY-4). An answer that hands no capsule is refused; an array made of it anyway is said at INFO
// (non-dlpack-input-accepted), and a TypeError for a keyword never followed by a call without it
// at SHOULD (no-version-fallback, VER-5): both are said once, neither stops the fuzzer.
//
// The consumer is the python-importer plugin (DLCONFORM_PLUGIN=.../dlc-python-importer.so, with
// DLCONFORM_PYTHON_MODULE or DLCONFORM_PYTHON_ADAPTER), whose protocol extension
// (python_importer/python_protocol.h) sets the answers. The input is kInputBytes bytes: one pick
// of each table of dlconform_fuzz_importer.PROTOCOL_TABLES, the tensor (kTensors), and the
// struct (bit 0: versioned, for an importer that asks for one); bytes past these are ignored, so
// a longer input (libFuzzer's own mutations grow them) replays as its first kInputBytes. A crash
// is named by the rule of the first answer out of the protocol.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "abi.h"
#include "fuzz_harness.hpp"
#include "judge.h"
#include "known_bugs.hpp"
#include "python_importer/python_protocol.h"
#include "rules.h"

namespace {

constexpr size_t kPlanBytes = 5;  // signature, capsule answer, when, exception, device answer
constexpr size_t kInputBytes = kPlanBytes + 2;

// Valid host tensors with no edge case of their own: what is under test is the protocol.
struct TensorChoice {
  DLCDtype dtype;
  int32_t ndim;
  int64_t shape[3];
};
constexpr TensorChoice kTensors[] = {
    {{2, 32, 1}, 2, {2, 3, 1}}, {{0, 64, 1}, 1, {5, 1, 1}}, {{1, 8, 1}, 3, {2, 2, 2}},
    {{2, 64, 1}, 2, {3, 2, 1}}, {{0, 16, 1}, 2, {1, 4, 1}}, {{0, 32, 1}, 1, {7, 1, 1}},
};

dlc::LoadedPlugin g_consumer;
const DLCPythonProtocol* g_protocol = nullptr;

// What the inputs came to, said at exit: a run whose importer refused everything tested nothing.
struct Tally {
  unsigned long inputs = 0, handed = 0, imported = 0, left_out = 0;
  ~Tally() {
    if (inputs > 0) {
      std::fprintf(stderr, "dlconform fuzz: protocol: %lu inputs, %lu imported, %lu capsules "
                   "handed, %lu left out (their answer's rule is a known bug)\n", inputs,
                   imported, handed, left_out);
    }
  }
} g_tally;

[[noreturn]] void cannot_start(const std::string& why) {
  std::fprintf(stderr, "dlconform fuzz: cannot start: %s\n", why.c_str());
  std::exit(1);
}

std::string python_tuple(const uint8_t* bytes, size_t n) {
  std::string text = "protocol=(";
  for (size_t i = 0; i < n; ++i) text += (i ? ", " : "") + std::to_string(bytes[i]);
  return text + ")";
}

uint32_t deleter_calls(const dlc_fuzz::Built& built, const char** where) {
  const dlc::DeleterLedger::Entry* entry = dlc_fuzz::host().ledger.find(built.managed);
  *where = entry != nullptr ? entry->where[0] : nullptr;
  return entry != nullptr ? entry->calls : 0;
}

void judge_protocol(const dlc_fuzz::Built& built, const dlc_fuzz::Outcome& out,
                    const DLCProtocolFacts& facts, int32_t name_mode, const char* protocol) {
  const char* who = dlc_fuzz::label(g_consumer);
  dlc::Finding f;
  if (facts.capsule_handed && name_mode != DLC_PROTOCOL_NAME_OWN) {
    // A capsule under another name: nothing to take, no deleter to call.
    const bool used = name_mode == DLC_PROTOCOL_NAME_USED;
    const bool legacy = out.offered != nullptr && dlc::abi::struct_kind_of_name(out.offered) ==
                                                      dlc::abi::StructKind::legacy;
    dlc::UsedCapsuleFacts u;
    u.used_name = used ? (legacy ? "used_dltensor" : "used_dltensor_versioned")
                  : name_mode == DLC_PROTOCOL_NAME_FOREIGN ? "DLTensor" : nullptr;
    u.foreign_name = !used;
    u.imported = out.rc == DLC_OK;
    u.consumer_error = out.error;
    u.consumer_calls = deleter_calls(built, &u.first_call_where);
    u.consumer_label = who;
    dlc::judge_used_capsule(u, &f);
    if (f.fails()) dlc_fuzz::die(f);
  } else if (facts.capsule_handed || out.taken) {
    dlc_fuzz::judge_outcome(g_consumer, built, out);  // it took the tensor: as any import
  } else {
    // No capsule went out: the tensor is still the harness's, whatever the importer answered.
    const char* where = nullptr;
    if (deleter_calls(built, &where) > 0) {
      f.set(dlc::FindingClass::deleter_called_twice, dlc::Rule::LIFE_3)
          .add("expected no deleter call on a tensor whose capsule never went out, but found one "
               "from ").add(where != nullptr ? where : "-").add(" of ").add(who);
      dlc_fuzz::die(f);
    }
  }
  if (!facts.capsule_handed && out.rc == DLC_OK) {
    f.set(dlc::FindingClass::non_dlpack_input_accepted)
        .add(who).add(" returned an array for an exporter whose __dlpack__ handed no capsule");
    dlc_fuzz::note_once(f, (std::string("protocol: ") + protocol).c_str());
  }
  if (facts.fallback_missed) {
    f.set(dlc::FindingClass::no_version_fallback)
        .add(who).add(" gave up after __dlpack__ raised TypeError for a keyword, without asking "
                      "again without it");
    dlc_fuzz::note_once(f, (std::string("protocol: ") + protocol).c_str());
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("DLCONFORM_PLUGIN");
  if (path == nullptr || *path == '\0') {
    cannot_start("expected DLCONFORM_PLUGIN=.../dlc-python-importer.so (a Python library's "
                 "importer, named by DLCONFORM_PYTHON_MODULE or DLCONFORM_PYTHON_ADAPTER) but "
                 "found none");
  }
  g_consumer = dlc_fuzz::load_consumer_under_test("python-importer");
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  auto entry = handle != nullptr ? reinterpret_cast<DLCPythonProtocolFn>(
                                       dlsym(handle, "dlc_python_importer_protocol"))
                                 : nullptr;
  g_protocol = entry != nullptr ? entry() : nullptr;
  if (g_protocol == nullptr) {
    cannot_start(std::string("expected the python-importer plugin (with "
                             "dlc_python_importer_protocol) but found ") + path);
  }
  char words[512], rule[16];
  DLCProtocolPlan plan{};
  const uint8_t conformant[kPlanBytes] = {};
  if (g_protocol->plan(conformant, sizeof conformant, words, sizeof words, rule, sizeof rule,
                       &plan) != 0) {
    cannot_start(words);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dlc_fuzz::install_fault_handler();
  dlc_fuzz::count_input();
  uint8_t bytes[kInputBytes] = {};
  std::memcpy(bytes, data, std::min(size, kInputBytes));
  const TensorChoice& choice = kTensors[bytes[kPlanBytes] % std::size(kTensors)];
  const DLCProfile* profile = g_consumer.declared_profile();
  const bool legacy_only = profile != nullptr &&
                           (profile->features & DLC_FEATURE_LEGACY_STRUCT_ONLY) != 0;

  static dlc_fuzz::TensorInput in;
  in = dlc_fuzz::TensorInput();
  in.dtype = choice.dtype;
  in.ndim = choice.ndim;
  std::copy(std::begin(choice.shape), std::end(choice.shape), in.shape);
  in.make_compact();

  char words[512], rule[16];
  DLCProtocolPlan plan{};
  if (g_protocol->plan(bytes, kPlanBytes, words, sizeof words, rule, sizeof rule, &plan) != 0) {
    cannot_start(words);
  }
  // A versioned struct where the importer asks for one and the exporter can make one.
  const bool versioned = (bytes[kPlanBytes + 1] & 1) != 0 && !legacy_only && !plan.legacy_only &&
                         g_consumer.table->dlpack_version.major >= 1;
  ++g_tally.inputs;
  // A known bug under the answer's rule (a crash the importer is known for) would end the
  // process on every such input: they are left out, and counted.
  const dlc::Rule answer_rule = dlc::rule_from_id(rule);
  if (answer_rule != dlc::Rule::none && dlc_fuzz::is_known(answer_rule)) {
    ++g_tally.left_out;
    return 0;
  }
  dlc_fuzz::set_current_input(&in, versioned);
  dlc_fuzz::set_input_rule(answer_rule);
  dlc_fuzz::set_input_extra("protocol", words, python_tuple(bytes, kPlanBytes));
  const uint32_t own_major = std::max(g_consumer.table->dlpack_version.major, 1u);
  dlc_fuzz::Built built = dlc_fuzz::build_tensor(in, versioned, versioned ? own_major : 0, true);
  const dlc_fuzz::Outcome out = dlc_fuzz::hand_to(g_consumer, built);
  DLCProtocolFacts facts{};
  if (g_protocol->facts(&facts) != 0) cannot_start("the protocol extension answered no facts");
  g_tally.handed += facts.capsule_handed != 0;
  g_tally.imported += out.rc == DLC_OK;
  judge_protocol(built, out, facts, plan.name_mode, words);
  dlc_fuzz::set_input_extra("", "", "");
  dlc_fuzz::set_current_input(nullptr, versioned);
  return 0;
}
