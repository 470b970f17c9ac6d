// The deleter ledger (DLPack rule LIFE-3): every produced struct is owed exactly one deleter call.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlc {

class DeleterLedger {
 public:
  static constexpr size_t kMaxEntries = 1024;

  struct Entry {
    const void* managed = nullptr;
    uint32_t calls = 0;  // deleter calls seen, double calls included
  };

  // A producer handed out `managed`.
  void produced(const void* managed) noexcept;
  // A deleter ran on `managed`. Returns true on the first call for a produced struct; false for a
  // second call or a struct nobody produced (the deleter must then not touch it).
  bool deleter_called(const void* managed) noexcept;

  uint32_t calls(const void* managed) const noexcept;
  size_t size() const noexcept { return count_; }
  const Entry& entry(size_t i) const noexcept { return entries_[i]; }
  // Calls on addresses that were never produced (a wild deleter call).
  uint32_t stray_calls() const noexcept { return stray_calls_; }
  void reset() noexcept;

 private:
  Entry entries_[kMaxEntries];
  size_t count_ = 0;
  uint32_t stray_calls_ = 0;
};

}  // namespace dlc
