// Formatting into a fixed buffer, with no allocation and no locale: usable from a signal handler
// and on every case of a run without touching the heap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sanitizer_build.h"

namespace dlc {

// Not a fuzzer's feedback (DLC_NO_COVERAGE): a message's characters and digits say nothing of
// the tensor, and the validator's messages spent a sixth of an import target's execution in
// coverage callbacks.
class SafeText {
 public:
  SafeText(char* buffer, size_t capacity) noexcept : buffer_(buffer), capacity_(capacity) {
    if (capacity_ > 0) buffer_[0] = '\0';
  }
  // Appends text, truncating at the buffer's end; the buffer stays NUL-terminated.
  DLC_NO_COVERAGE SafeText& add(const char* text) noexcept {
    if (text == nullptr) return *this;
    while (*text != '\0' && length_ + 1 < capacity_) buffer_[length_++] = *text++;
    if (capacity_ > 0) buffer_[length_] = '\0';
    return *this;
  }
  DLC_NO_COVERAGE SafeText& add(char c) noexcept {
    const char text[2] = {c, '\0'};
    return add(text);
  }
  DLC_NO_COVERAGE SafeText& num(int64_t value) noexcept {
    char digits[24];
    int n = 0;
    uint64_t magnitude =
        value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    do {
      digits[n++] = static_cast<char>('0' + magnitude % 10);
      magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) digits[n++] = '-';
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
    return add(text);
  }
  DLC_NO_COVERAGE SafeText& unum(uint64_t value) noexcept {
    char text[24];
    int n = 0;
    char digits[24];
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
    return add(text);
  }
  DLC_NO_COVERAGE SafeText& hex(uint64_t value) noexcept {
    char text[19] = "0x";
    int n = 2;
    bool started = false;
    for (int shift = 60; shift >= 0; shift -= 4) {
      const unsigned nibble = (value >> shift) & 0xF;
      if (nibble != 0 || started || shift == 0) {
        text[n++] = "0123456789abcdef"[nibble];
        started = true;
      }
    }
    text[n] = '\0';
    return add(text);
  }
  // "1.3"
  DLC_NO_COVERAGE SafeText& version(uint32_t major, uint32_t minor) noexcept {
    return unum(major).add('.').unum(minor);
  }
  size_t length() const noexcept { return length_; }
  const char* c_str() const noexcept { return buffer_; }

 private:
  char* buffer_;
  size_t capacity_;
  size_t length_ = 0;
};

}  // namespace dlc
