// The deleter ledger (DLPack rule LIFE-3): every struct handed to a consumer is owed exactly one
// deleter call, and the ledger counts them without the producer's cooperation.
//
// interpose() swaps the deleter field of a handed-over struct (offset 56 of a legacy struct, 16
// of a versioned one of any major) for a trampoline. The trampoline records every call with the
// phase it came from and forwards the first one, once, to the producer's own deleter; manager_ctx
// and every other field stay untouched. A call through a copy of the struct, or on a pointer
// never handed out, is recorded as stray and forwarded nowhere. A mock producer that also reports
// to the host (DLCHost.deleter_called) is not counted twice.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi.h"
#include "guard.h"

namespace dlc {

class DeleterLedger {
 public:
  static constexpr size_t kMaxEntries = 1024;

  struct Entry {
    const void* managed = nullptr;
    abi::StructKind kind = abi::StructKind::unknown;
    void* original = nullptr;  // the producer's deleter, when interposed
    uint32_t calls = 0;        // deleter calls seen, double calls included
    const char* where[2] = {nullptr, nullptr};  // phases of the first two calls
    const char* plugin[2] = {nullptr, nullptr};
  };

  // `managed` was handed out; one deleter call is owed.
  void produced(const void* managed) noexcept;
  // Swaps the deleter of `managed` (a struct of `kind`) for the trampoline, and records it as
  // produced. False, and nothing changed, if the deleter is NULL (LIFE-4) or the kind unknown.
  bool interpose(void* managed, abi::StructKind kind) noexcept;
  // A cooperating producer's deleter reports its call. Returns true on the first call for a
  // produced struct (the deleter proceeds); false for a later call or a struct nobody produced.
  bool deleter_called(const void* managed) noexcept;

  uint32_t calls(const void* managed) const noexcept;
  const Entry* find(const void* managed) const noexcept;
  // Deleter calls on pointers that were never handed out (a copy of a struct, a wild pointer).
  uint32_t stray_calls() const noexcept { return stray_calls_; }
  const char* stray_where() const noexcept { return stray_where_; }
  // Starts the stray count afresh (the Python bridge, which never resets, at each case).
  void clear_stray() noexcept {
    stray_calls_ = 0;
    stray_where_ = nullptr;
  }
  void forget(const void* managed) noexcept;
  void reset() noexcept;

  // Called by the trampolines.
  void trampoline_call(void* managed, bool versioned_layout) noexcept;
  // The arena whose blocks a forwarded deleter frees: they are closed together when it returns.
  void batch_frees_in(GuardArena* arena) noexcept { arena_ = arena; }

 private:
  Entry* find_mutable(const void* managed) noexcept;
  // Drops the entries whose deleter was called, oldest first, to make room: a second call on one
  // of them is then counted as stray, still LIFE-3.
  void forget_settled() noexcept;
  Entry entries_[kMaxEntries];
  size_t count_ = 0;
  uint32_t stray_calls_ = 0;
  const char* stray_where_ = nullptr;
  const void* forwarding_ = nullptr;  // the struct whose original deleter runs now
  GuardArena* arena_ = nullptr;
};

// The ledger the trampolines report to: the process's host ledger.
void set_trampoline_ledger(DeleterLedger* ledger) noexcept;

}  // namespace dlc
