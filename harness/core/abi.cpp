#include "abi.h"

#include <cstring>

#include "phase.h"

namespace dlc::abi {

StructKind struct_kind_of_name(const char* name) noexcept {
  if (name == nullptr) return StructKind::unknown;
  if (std::strcmp(name, "dltensor") == 0) return StructKind::legacy;
  if (std::strcmp(name, "dltensor_versioned") == 0) return StructKind::versioned;
  return StructKind::unknown;
}

}  // namespace dlc::abi

namespace dlc {

void delete_unclaimed(const DLCHandoff& h) noexcept {
  if (h.name == nullptr || h.pointer == nullptr) return;
  ScopedPhase phase("the capsule destructor (LIFE-2)", "harness", Party::harness);
  if (std::strcmp(h.name, "dltensor") == 0) {
    auto* m = static_cast<abi::ManagedTensor*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  } else if (std::strcmp(h.name, "dltensor_versioned") == 0) {
    auto* m = static_cast<abi::ManagedTensorVersioned*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  }
}

}  // namespace dlc
