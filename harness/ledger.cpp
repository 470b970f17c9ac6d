#include "ledger.h"

namespace dlc {

void DeleterLedger::produced(const void* managed) noexcept {
  for (size_t i = 0; i < count_; ++i) {
    if (entries_[i].managed == managed) return;
  }
  if (count_ < kMaxEntries) entries_[count_++] = Entry{managed, 0};
}

bool DeleterLedger::deleter_called(const void* managed) noexcept {
  for (size_t i = 0; i < count_; ++i) {
    if (entries_[i].managed == managed) return ++entries_[i].calls == 1;
  }
  ++stray_calls_;
  return false;
}

uint32_t DeleterLedger::calls(const void* managed) const noexcept {
  for (size_t i = 0; i < count_; ++i) {
    if (entries_[i].managed == managed) return entries_[i].calls;
  }
  return 0;
}

void DeleterLedger::reset() noexcept {
  count_ = 0;
  stray_calls_ = 0;
}

}  // namespace dlc
