#include "ledger.h"

#include <dlpack/dlpack.h>

#include <cstring>
#include <optional>

#include "phase.h"

namespace dlc {
namespace {

DeleterLedger* g_ledger = nullptr;

// The trampolines have the real DLPack types, the ones consumers call deleters through: clang's
// -fsanitize=function checks the function type at every indirect call.
void legacy_trampoline(DLManagedTensor* self) {
  if (g_ledger != nullptr) g_ledger->trampoline_call(self, false);
}
void versioned_trampoline(DLManagedTensorVersioned* self) {
  if (g_ledger != nullptr) g_ledger->trampoline_call(self, true);
}

size_t deleter_offset(abi::StructKind kind) {
  return kind == abi::StructKind::legacy ? abi::kLegacyDeleterOffset
                                         : abi::kVersionedDeleterOffset;
}

}  // namespace

void set_trampoline_ledger(DeleterLedger* ledger) noexcept { g_ledger = ledger; }

DeleterLedger::Entry* DeleterLedger::find_mutable(const void* managed) noexcept {
  for (size_t i = count_; i-- > 0;) {
    if (entries_[i].managed == managed) return &entries_[i];
  }
  return nullptr;
}

const DeleterLedger::Entry* DeleterLedger::find(const void* managed) const noexcept {
  return const_cast<DeleterLedger*>(this)->find_mutable(managed);
}

void DeleterLedger::produced(const void* managed) noexcept {
  // The same address handed out again is a new struct (the old one was freed and its memory
  // reused): its count starts over.
  if (Entry* e = find_mutable(managed)) {
    if (e->calls > 0) *e = Entry{managed};
    return;
  }
  // A process that never resets (the Python bridge's workers) fills the ledger: the structs
  // settled long ago make room, or every later deleter call would be stray.
  if (count_ == kMaxEntries) forget_settled();
  if (count_ < kMaxEntries) {
    entries_[count_] = Entry{};
    entries_[count_++].managed = managed;
  }
}

void DeleterLedger::forget_settled() noexcept {
  size_t kept = 0;
  for (size_t i = 0; i < count_; ++i) {
    if (entries_[i].calls == 0) entries_[kept++] = entries_[i];
  }
  count_ = kept;
}

bool DeleterLedger::interpose(void* managed, abi::StructKind kind) noexcept {
  if (managed == nullptr || kind == abi::StructKind::unknown || kind == abi::StructKind::variant) {
    return false;
  }
  void* field = static_cast<char*>(managed) + deleter_offset(kind);
  void* original = nullptr;
  std::memcpy(&original, field, sizeof original);
  if (original == nullptr) return false;
  produced(managed);
  Entry* e = find_mutable(managed);
  if (e == nullptr) return false;
  // Interposed once only: a struct handed over twice keeps its first original.
  void* trampoline = kind == abi::StructKind::legacy
                         ? reinterpret_cast<void*>(&legacy_trampoline)
                         : reinterpret_cast<void*>(&versioned_trampoline);
  if (original == trampoline) return true;
  e->kind = kind;
  e->original = original;
  std::memcpy(field, &trampoline, sizeof trampoline);
  return true;
}

void DeleterLedger::trampoline_call(void* managed, bool versioned_layout) noexcept {
  Entry* e = find_mutable(managed);
  if (e == nullptr || e->original == nullptr) {
    ++stray_calls_;
    if (stray_where_ == nullptr) stray_where_ = g_phase.where;
    return;
  }
  if (e->calls < 2) {
    e->where[e->calls] = g_phase.where;
    e->plugin[e->calls] = g_phase.plugin;
  }
  if (++e->calls != 1) return;
  const void* saved = forwarding_;
  forwarding_ = managed;
  {
    ScopedPhase phase("the producer's deleter", g_phase.plugin, Party::producer);
    std::optional<GuardArena::Batch> batch;
    if (arena_ != nullptr) batch.emplace(*arena_);
    if (versioned_layout) {
      reinterpret_cast<void (*)(DLManagedTensorVersioned*)>(e->original)(
          static_cast<DLManagedTensorVersioned*>(managed));
    } else {
      reinterpret_cast<void (*)(DLManagedTensor*)>(e->original)(
          static_cast<DLManagedTensor*>(managed));
    }
  }
  forwarding_ = saved;
}

bool DeleterLedger::deleter_called(const void* managed) noexcept {
  // The trampoline already counted this call and is forwarding it.
  if (managed == forwarding_) return true;
  Entry* e = find_mutable(managed);
  if (e == nullptr) {
    ++stray_calls_;
    if (stray_where_ == nullptr) stray_where_ = g_phase.where;
    return false;
  }
  if (e->calls < 2) {
    e->where[e->calls] = g_phase.where;
    e->plugin[e->calls] = g_phase.plugin;
  }
  return ++e->calls == 1;
}

uint32_t DeleterLedger::calls(const void* managed) const noexcept {
  const Entry* e = find(managed);
  return e != nullptr ? e->calls : 0;
}

void DeleterLedger::forget(const void* managed) noexcept {
  for (size_t i = 0; i < count_; ++i) {
    if (entries_[i].managed == managed) {
      entries_[i] = entries_[--count_];
      return;
    }
  }
}

void DeleterLedger::reset() noexcept {
  count_ = 0;
  stray_calls_ = 0;
  stray_where_ = nullptr;
  forwarding_ = nullptr;
}

}  // namespace dlc
