// The case plan. Every expectation has a reason in a comment or in the rule it names; the matrix
// compares what happens against these expectations.
#include "plan.h"

#include <map>

#include "abi.h"
#include "validate.h"

namespace dlc {
namespace {

bool legacy_prefix_intact(const std::string& layout) {
  // Which raw layouts an old consumer reads correctly (the versioning RFC's S0 verdicts): the
  // legacy prefix must be intact, with the deleter at offset 56.
  return layout == "legacy" || layout == "variant-a1" || layout == "variant-a2" ||
         layout == "variant-a3";
}

bool asks_max_version(const Participant& c) { return c.plugin.table->has_max_version != 0; }

// A valid tensor whose dtype has no code in the header the producer declares (MXNet's 0.2 has no
// kDLBool, nor have the legacy mocks of 0.6 and 0.7): never asked of it, since a party is judged
// by the header it declares. The test layouts (dtype code 99, say) are made on purpose.
bool header_cannot_say(const Participant& p, const TensorCase& t) {
  return !t.test_layout && t.spec.dtype.code > max_known_code(p.plugin.table->dlpack_version);
}

// The version whose enums a consumer knows (DT-1, DEV-1).
DLCVersion known_version(const Participant& c) { return c.plugin.table->dlpack_version; }

std::string grid_header(const Participant& q) {
  // An external plugin gets its own row or column in the report's grids ("v0.6 my-adapter"),
  // so that its findings never colour the cells of the built-in mocks of the same header; so
  // does a party of real device memory ("v1.3 cuda-consumer").
  return q.builtin && !q.real_device() ? q.header : q.header + " " + q.plugin.name();
}

// The versioning RFC's name for what a pair of generations exchanges.
const char* pair_scenario(const Participant& p, const Participant& c) {
  if (p.generation == Generation::soft_updated || c.generation == Generation::soft_updated) {
    return "S2";
  }
  if (p.generation == Generation::new_abi && c.generation == Generation::old_abi) return "S0";
  if (p.generation == Generation::old_abi && c.generation == Generation::new_abi) return "S1";
  return "native";
}

// The family of a device tensor's device type: its scenario's name.
const char* device_family(int32_t device_type) {
  if (abi::is_cuda_memory(device_type)) return "cuda";
  return device_type == 14 ? "oneapi" : "device";  // 14: kDLOneAPI
}

}  // namespace

bool describe(const LoadedPlugin& plugin, bool builtin, Participant* out, std::string* error) {
  Participant p;
  p.plugin = plugin;
  p.builtin = builtin;
  const DLCPlugin& t = *plugin.table;
  const std::string layout = t.layout != nullptr ? t.layout : "";
  p.header = layout.rfind("variant-", 0) == 0 ? layout : plugin.header();
  p.label = std::string(t.name) + "@" + p.header;
  p.layout = !layout.empty() ? layout : (t.has_max_version ? "versioned" : "legacy");
  const bool old_header = t.dlpack_version.major == 0;
  if (layout.rfind("variant-", 0) == 0) {
    p.generation = Generation::variant;
  } else if (plugin.is_producer()) {
    p.generation = p.layout == "legacy"
                       ? (old_header ? Generation::old_abi : Generation::soft_updated)
                       : Generation::new_abi;
  } else {
    p.generation = !t.has_max_version
                       ? (old_header ? Generation::old_abi : Generation::soft_updated)
                       : Generation::new_abi;
  }
  if (builtin) p.planted = find_planted(t.name);
  if (!resolve_profile(plugin, &p.profile, error)) return false;
  p.emits = (p.profile.emits_version.major != 0 || p.profile.emits_version.minor != 0)
                ? p.profile.emits_version
                : t.dlpack_version;
  if (p.layout == "legacy") p.emits = {0, 0};
  *out = std::move(p);
  return true;
}

std::vector<CaseDef> plan_matrix(const std::vector<Participant>& participants) {
  std::vector<CaseDef> plan;
  const auto& catalogue = tensor_catalogue();
  auto index_of = [&](const std::string& label) {
    for (size_t i = 0; i < participants.size(); ++i) {
      if (participants[i].label == label) return static_cast<int>(i);
    }
    return -1;
  };
  auto push = [&](int producer, int consumer, int tensor, bool raw, const std::string& scenario,
                  Expectation expected, const std::string& expected_class) -> CaseDef& {
    CaseDef c;
    c.producer = producer;
    c.consumer = consumer;
    c.tensor = tensor;
    c.raw = raw;
    const Participant& p = participants[producer];
    const TensorCase& t = catalogue[tensor];
    c.result.scenario = scenario;
    c.result.producer = {p.plugin.name(), grid_header(p)};
    if (consumer >= 0) {
      const Participant& q = participants[consumer];
      c.result.consumer = {q.plugin.name(), grid_header(q)};
      c.must_accept = consumer_supports(q.profile, t) &&
                      valid_for(t, known_version(q), q.profile.max_ndim);
    } else {
      c.result.consumer = {"harness", "reference"};
    }
    c.in_producer_profile = producer_can_make(p.profile, t);
    c.header_cannot_say = header_cannot_say(p, t);
    c.wishes_declared = declares_wishes(p.profile, t);
    c.request_valid = valid_for(t, p.emits.major >= 1 ? p.emits : DLCVersion{1, 3}, DLC_MAX_NDIM);
    c.result.tensor = t.name;
    c.result.expected = expected;
    c.result.expected_class = expected_class;
    c.result.id = scenario + "/" + p.label + "/" +
                  (consumer >= 0 ? participants[consumer].label : std::string("harness")) + "/" +
                  t.name;
    plan.push_back(std::move(c));
    return plan.back();
  };
  // What a producer must do with a request from this consumer, by the rules.
  auto expectation = [&](const Participant& p, const Participant& c, const TensorCase& t) {
    // Outside the producer's profile, or a dtype its header cannot say: never asked.
    if (!producer_can_make(p.profile, t) || header_cannot_say(p, t)) return Expectation::skip;
    // A legacy struct has no flags: it cannot say READ_ONLY (FLAG-1) or padded sub-byte
    // elements (FLAG-3), so the producer refuses.
    const bool legacy_struct = p.layout == "legacy" || !asks_max_version(c);
    if (legacy_struct && (t.spec.options & (DLC_SPEC_READ_ONLY | DLC_SPEC_SUBBYTE_PADDED))) {
      return Expectation::skip;
    }
    // A producer of another major has nothing a caller of an older one reads (VER-4).
    if (p.emits.major >= 2 &&
        (!asks_max_version(c) || c.plugin.table->max_version.major < p.emits.major)) {
      return Expectation::skip;
    }
    // Padded sub-byte elements need DLPack 1.1 (FLAG-3).
    if ((t.spec.options & DLC_SPEC_SUBBYTE_PADDED) && p.emits.major == 1 && p.emits.minor < 1) {
      return Expectation::skip;
    }
    return Expectation::pass;
  };
  auto conformant_any_memory = [](const Participant& q) {
    return q.planted == nullptr && q.generation != Generation::variant;
  };
  // Parties of real device memory meet in the device section (7) only: the host catalogue is
  // nothing they can make, and a fork per case is not for tens of thousands of cases.
  auto conformant = [&](const Participant& q) {
    return conformant_any_memory(q) && !q.real_device();
  };

  // Calls visit(pi, ci) for every conformant producer x consumer pair.
  auto for_each_conformant_pair = [&](auto&& visit) {
    for (size_t pi = 0; pi < participants.size(); ++pi) {
      if (!participants[pi].plugin.is_producer() || !conformant(participants[pi])) continue;
      for (size_t ci = 0; ci < participants.size(); ++ci) {
        if (participants[ci].plugin.is_consumer() && conformant(participants[ci])) visit(pi, ci);
      }
    }
  };

  // 1. Every conformant producer x consumer pair through the capsule protocol, every
  //    hand-written tensor.
  for_each_conformant_pair([&](size_t pi, size_t ci) {
    const Participant& p = participants[pi];
    const Participant& c = participants[ci];
    const std::string scenario = pair_scenario(p, c);
    for (size_t ti = 0; ti < catalogue.size(); ++ti) {
      const TensorCase& t = catalogue[ti];
      if (t.generated || t.real_device) continue;  // device memory: section 7
      push(static_cast<int>(pi), static_cast<int>(ci), static_cast<int>(ti), false,
           t.base ? scenario : "edge", expectation(p, c, t), "");
    }
  });

  // 2. The generated views: every external party with everything, and the built-in parties of
  //    the oldest and the newest header with each other.
  auto extreme = [](const Participant& q) { return q.header == "v0.6" || q.header == "v1.3"; };
  for_each_conformant_pair([&](size_t pi, size_t ci) {
    const Participant& p = participants[pi];
    const Participant& c = participants[ci];
    const bool external = !p.builtin || !c.builtin;
    if (!external && !(extreme(p) && extreme(c))) return;
    for (size_t ti = 0; ti < catalogue.size(); ++ti) {
      const TensorCase& t = catalogue[ti];
      if (!t.generated) continue;
      push(static_cast<int>(pi), static_cast<int>(ci), static_cast<int>(ti), false, "views",
           expectation(p, c, t), "");
    }
  });

  // 3. Raw, type-erased pointers: which layouts survive with no negotiation at all.
  const int raw_tensors[] = {find_tensor("f32_8x8"), find_tensor("i16_128_byte_offset")};
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    // One layout per header row: soft-updated legacy code on a 1.x header exchanges the same
    // legacy struct as the 0.x rows and is covered by S2.
    if (!p.plugin.is_producer() || p.planted != nullptr || !p.builtin || p.real_device() ||
        p.generation == Generation::soft_updated ||
        !(p.profile.features & DLC_FEATURE_TEST_LAYOUTS)) {
      continue;
    }
    const bool future_major = p.layout == "versioned" && p.emits.major >= 2;
    for (size_t ci = 0; ci < participants.size(); ++ci) {
      const Participant& c = participants[ci];
      if (!c.plugin.is_consumer() || c.planted != nullptr || c.real_device() ||
          c.generation == Generation::soft_updated) {
        continue;
      }
      // An external consumer that takes versioned structs gets the struct of a future major raw:
      // with no capsule and no negotiation, VER-2 is its only guard. Its own layouts it meets
      // through the capsule protocol.
      if (!c.builtin && !(future_major && asks_max_version(c))) continue;
      const std::string read_as = c.generation == Generation::variant
                                      ? c.header
                                      : (asks_max_version(c) ? "versioned" : "legacy");
      // An old reader survives layouts that keep the legacy prefix (the RFC's S0 verdicts); any
      // other reader needs exactly its own layout. A struct of another major must be refused by
      // a versioned reader touching only the deleter (VER-2), which is a pass.
      bool works = read_as == "legacy" ? legacy_prefix_intact(p.layout) : p.layout == read_as;
      if (p.layout == "versioned" && p.emits.major >= 2) works = read_as == "versioned";
      for (int ti : raw_tensors) {
        CaseDef& c2 = push(static_cast<int>(pi), static_cast<int>(ci), ti, true, "raw",
                           works ? Expectation::pass : Expectation::broken, "");
        // A raw pointer survives only if the reader imports it: a refusal is a break (the RFC's
        // verdicts), except of a foreign major, which a versioned reader must refuse (VER-2).
        c2.must_accept = !(p.layout == "versioned" && p.emits.major >= 2);
      }
    }
  }

  // 4. Negotiation (VER-4): the harness asks each conformant versioned producer for several
  //    max_versions.
  const DLCVersion asks[] = {{0, 0}, {0, 8}, {1, 0}, {1, 3}, {2, 0}};
  const int first_tensor = find_tensor("f32_8x8");
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    if (!p.plugin.is_producer() || p.planted != nullptr || p.layout != "versioned") continue;
    // A device producer is asked about a tensor of its own first device (section 7 has the rest).
    int tensor = first_tensor;
    if (p.real_device()) {
      tensor = -1;
      for (size_t ti = 0; ti < catalogue.size() && tensor < 0; ++ti) {
        if (catalogue[ti].real_device && producer_can_make(p.profile, catalogue[ti])) {
          tensor = static_cast<int>(ti);
        }
      }
      if (tensor < 0) continue;
    }
    for (size_t ai = 0; ai < std::size(asks); ++ai) {
      const bool legacy_caller = ai == 0;
      CaseDef& c = push(static_cast<int>(pi), -1, tensor, false, "negotiation",
                        Expectation::pass, "");
      c.override_request = true;
      c.has_max_version = !legacy_caller;
      c.max_version = asks[ai];
      const std::string ask =
          legacy_caller ? "none"
                        : std::to_string(asks[ai].major) + "." + std::to_string(asks[ai].minor);
      c.result.tensor = "max_version=" + ask;
      c.result.id = "negotiation/" + p.label + "/max_version=" + ask;
    }
  }

  // 5. Planted bugs: each must be caught with its class and rule (planted_bugs.tsv).
  for (size_t i = 0; i < participants.size(); ++i) {
    const Participant& bug = participants[i];
    if (bug.planted == nullptr || !bug.planted->in_matrix) continue;
    const int partner = index_of(bug.planted->partner);
    const int tensor = find_tensor(bug.planted->tensor);
    if (partner < 0 || tensor < 0) continue;  // the plan test checks every row is planned
    const bool bug_is_producer = bug.plugin.is_producer();
    CaseDef& c = push(bug_is_producer ? static_cast<int>(i) : partner,
                      bug_is_producer ? partner : static_cast<int>(i), tensor, bug.planted->raw,
                      "planted", Expectation::broken, bug.planted->cls);
    c.result.expected_rule = bug.planted->rule;
    c.result.expected_hardening = bug.planted->hardening;
    c.used_capsule = bug.planted->used_capsule;
  }

  // 6. A used capsule (LIFE-8): every conformant consumer is handed a capsule of each struct it
  //    takes that an earlier import consumed already. It must refuse it without touching the
  //    deleter, which stays the first importer's to call (CuPy, JAX and TensorFlow test this).
  const int used_tensor = find_tensor("f32_8x8");
  const int used_producers[] = {index_of("legacy-producer@v0.6"),
                                index_of("versioned-producer@v1.3")};
  for (size_t ci = 0; ci < participants.size(); ++ci) {
    const Participant& c = participants[ci];
    if (!c.plugin.is_consumer() || !conformant(c)) continue;
    for (int pi : used_producers) {
      if (pi < 0) continue;
      // A versioned capsule goes only to a consumer that asks for one.
      if (participants[pi].layout == "versioned" && !asks_max_version(c)) continue;
      CaseDef& u = push(pi, static_cast<int>(ci), used_tensor, false, "used-capsule",
                        Expectation::pass, "");
      u.used_capsule = true;
      u.must_accept = false;
    }
  }

  // 7. Real device memory (CUDA, oneAPI): every conformant device producer with every
  //    conformant consumer, host mocks included (they must refuse without touching the data,
  //    DEV-3), each device tensor it can make, under the S0/S1/S2 name of the pair; and what a
  //    device consumer does with the host's tensors and with a mock's host stand-in for device
  //    memory (device_cuda). A device producer leaves its write pending on its own stream, so
  //    every device-to-device case also judges the stream hand-off (STRM-1, STRM-2).
  for (size_t pi = 0; pi < participants.size(); ++pi) {
    const Participant& p = participants[pi];
    if (!p.plugin.is_producer() || !conformant_any_memory(p)) continue;
    for (size_t ci = 0; ci < participants.size(); ++ci) {
      const Participant& c = participants[ci];
      if (!c.plugin.is_consumer() || !conformant_any_memory(c)) continue;
      if (!p.real_device() && !c.real_device()) continue;
      for (size_t ti = 0; ti < catalogue.size(); ++ti) {
        const TensorCase& t = catalogue[ti];
        std::string family;
        if (p.real_device()) {
          if (!t.real_device || !producer_can_make(p.profile, t)) continue;
          family = device_family(t.spec.device.device_type);
          family += std::string("/") + pair_scenario(p, c);
        } else {
          // The host's side: the mock producers of the oldest and the newest header.
          if (!(p.header == "v0.6" || p.header == "v1.3")) continue;
          if (t.name != "f32_8x8" && t.name != "device_cuda") continue;
          family = std::string(device_family(c.profile.device_types.empty()
                                                 ? 2
                                                 : c.profile.device_types.front())) +
                   "/host";
        }
        CaseDef& d = push(static_cast<int>(pi), static_cast<int>(ci), static_cast<int>(ti), false,
                          family.substr(0, family.find('/')), expectation(p, c, t), "");
        d.result.id = family + "/" + p.label + "/" + c.label + "/" + t.name;
      }
    }
  }

  // Parties that cannot run here, and parties of real device memory.
  for (CaseDef& c : plan) {
    const int parties[] = {c.producer, c.consumer};
    for (int q : parties) {
      if (q < 0) continue;
      if (participants[q].real_device()) c.isolated = true;
      if (!participants[q].unavailable.empty() && c.unavailable_party < 0) {
        c.unavailable_party = q;
        c.result.expected = Expectation::skip;
      }
    }
  }

  // Unique ids: a pair can meet twice (a planted case on a core pair, say).
  std::map<std::string, int> seen;
  for (CaseDef& c : plan) {
    const int n = seen[c.result.id]++;
    if (n > 0) c.result.id += "#" + std::to_string(n + 1);
  }
  return plan;
}

}  // namespace dlc
