// The planted bugs, from planted_bugs.tsv (the one place they are declared): which plugin carries
// which bug, the class and rule it must be caught with, and the exchange that exposes it.
#pragma once

#include <string_view>

namespace dlc {

struct PlantedBug {
  const char* name;     // the plugin's name, "planted-no-delete"
  bool producer;        // a planted producer (else a consumer)
  bool in_matrix;       // planned by the matrix (the rest are fuzzing-only zoo members)
  bool hardening;       // caught as a hardening finding: a fault on a tensor no producer may make
  const char* cls;      // the finding class it must be caught with
  const char* rule;     // and the rule
  const char* tensor;   // the catalogue tensor of the exposing exchange
  bool raw;             // the exchange is raw (type-erased)
  bool used_capsule;    // the capsule is handed over already consumed (LIFE-8)
  const char* partner;  // the built-in peer's label, "versioned-producer@v1.3"
};

const PlantedBug* planted_begin() noexcept;
const PlantedBug* planted_end() noexcept;
// nullptr when `name` is no planted bug.
const PlantedBug* find_planted(std::string_view name) noexcept;

}  // namespace dlc
