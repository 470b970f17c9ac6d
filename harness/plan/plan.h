// The parties of a run and the case plan: which producer meets which consumer with which tensor,
// and what each case is expected to show. Expectations come from the rules, the parties'
// capability profiles and the planted-bug table, never from a party's name.
#pragma once

#include <string>
#include <vector>

#include "catalogue.h"
#include "dlconform/plugin.h"
#include "plugin_loader.h"
#include "planted.h"
#include "profile.h"
#include "result.h"

namespace dlc {

// What a participant is, derived from its table.
enum class Generation { old_abi, soft_updated, new_abi, variant };

struct Participant {
  LoadedPlugin plugin;
  Generation generation = Generation::new_abi;
  std::string label;   // "legacy-producer@v0.6"
  std::string header;  // "v0.6", "v1.3", "variant-a1"
  std::string layout;  // what it emits raw: "legacy", "versioned", "variant-a1"
  const PlantedBug* planted = nullptr;  // the bug it carries, or nullptr if conformant
  bool builtin = true;
  Profile profile;
  // The version a versioned struct of this producer carries (VER-1): the profile's, else the
  // header's.
  DLCVersion emits{0, 0};
  // Why the plugin cannot run on this machine (its available() said so: "no CUDA device: ..."),
  // or empty. Its cases are planned, and skipped with this reason.
  std::string unavailable;
  // A party of real device memory (DLC_FEATURE_REAL_DEVICE): a CUDA or oneAPI mock.
  bool real_device() const { return (profile.features & DLC_FEATURE_REAL_DEVICE) != 0; }
};

// Resolves the profile (declared in the table, else PATH.profile beside the plugin, else the
// default) and the rest. False with a one-line error for a malformed profile.
[[nodiscard]] bool describe(const LoadedPlugin& plugin, bool builtin, Participant* out,
                            std::string* error);

// What an exchange needs of a case: no strings, so that a forked worker can read it from shared
// memory (harness/run/runner.cpp).
struct CaseSpec {
  int producer = -1;  // index into the participants
  int consumer = -1;  // -1: the harness itself consumes (negotiation cases)
  int tensor = 0;     // index into tensor_catalogue()
  bool raw = false;
  // The consumer is handed a capsule that an earlier import consumed (renamed used_dltensor or
  // used_dltensor_versioned; the harness holds it): it must refuse it and leave the deleter
  // alone (LIFE-8).
  bool used_capsule = false;
  bool override_request = false;  // negotiation: use max_version below, not the consumer's
  bool has_max_version = false;
  DLCVersion max_version{0, 0};
  bool must_accept = false;    // a valid tensor inside the consumer's profile
  bool request_valid = true;   // the producer must hand over a valid tensor
  bool in_producer_profile = true;
  // The tensor's dtype has no code in the producer's declared header: not asked (a skip).
  bool header_cannot_say = false;
  // The producer declares every representation the request wishes for (NULL shape, NULL data,
  // NULL strides, byte_offset): declining one it does not declare is n/a, not a finding.
  bool wishes_declared = true;
  // A party of the case cannot run here: the case is skipped with that party's reason.
  int unavailable_party = -1;
  // The case runs in a process of its own, forked from a worker that never started a device
  // runtime (a party of real device memory).
  bool isolated = false;
};

// One exchange to run.
struct CaseDef : CaseSpec {
  CaseResult result;  // id, scenario, parties, expectation filled in by the plan
};

std::vector<CaseDef> plan_matrix(const std::vector<Participant>& participants);

}  // namespace dlc
