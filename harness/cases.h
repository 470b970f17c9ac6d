// The tensor catalogue and the case plan of the conformance matrix.
#pragma once

#include <string>
#include <vector>

#include "dlconform/plugin.h"
#include "plugin_loader.h"
#include "result.h"

namespace dlc {

// A named tensor the producers are asked for.
struct TensorCase {
  std::string name;
  DLCTensorSpec spec{};
  int32_t copy = -1;         // the copy keyword (STRM-4)
  bool must_accept = false;  // a conformant consumer must import it (refusing is a finding)
  bool base = false;         // part of the core S0/S1/S2 grid; the rest is "edge"
  const char* rule = "";     // the rule the case exercises
};

const std::vector<TensorCase>& tensor_catalogue();

// What a participant is, derived from its table.
enum class Generation { old_abi, soft_updated, new_abi, variant };

struct Participant {
  LoadedPlugin plugin;
  Generation generation = Generation::new_abi;
  std::string label;    // "legacy-producer@v0.6"
  std::string header;   // "v0.6", "v1.3", "variant-a1", "plugin"
  std::string planted;  // planted bug class this plugin must be caught with, "" if conformant
  bool builtin = true;
};

Participant describe(const LoadedPlugin& plugin, bool builtin);

// One exchange to run.
struct CaseDef {
  int producer = -1;  // index into the participants
  int consumer = -1;  // -1: the harness itself consumes (negotiation cases)
  int tensor = 0;     // index into tensor_catalogue()
  bool raw = false;
  bool override_request = false;  // negotiation: use max_version below, not the consumer's
  bool has_max_version = false;
  DLCVersion max_version{0, 0};
  CaseResult result;  // id, scenario, parties, expectation filled in by the plan
};

std::vector<CaseDef> plan_matrix(const std::vector<Participant>& participants);

}  // namespace dlc
