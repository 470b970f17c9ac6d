#include "abi.h"

#include <dlpack/dlpack.h>

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
    // Called through the real DLPack types, as consumers do: clang's -fsanitize=function checks
    // the function type at every indirect call.
    auto* m = static_cast<DLManagedTensor*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  } else if (std::strcmp(h.name, "dltensor_versioned") == 0) {
    auto* m = static_cast<DLManagedTensorVersioned*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  }
}

}  // namespace dlc
