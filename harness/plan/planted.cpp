#include "planted.h"

namespace dlc {
namespace {

constexpr PlantedBug kPlanted[] = {
#include "planted_bugs.inc"
};

}  // namespace

const PlantedBug* planted_begin() noexcept { return kPlanted; }
const PlantedBug* planted_end() noexcept { return kPlanted + sizeof kPlanted / sizeof kPlanted[0]; }

const PlantedBug* find_planted(std::string_view name) noexcept {
  for (const PlantedBug* p = planted_begin(); p != planted_end(); ++p) {
    if (name == p->name) return p;
  }
  return nullptr;
}

}  // namespace dlc
