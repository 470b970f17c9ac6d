// Structured fuzz input, read from the end.
//
// Parameters are taken from the back of the input, as zstd's fuzz_data_producer does: libFuzzer
// mutations that grow or shrink the input then leave the parameters where they were, and a short
// input simply reads as zeros. FuzzWriter is the exact inverse, so that the seed writer and the
// custom mutator can turn a decoded input back into bytes. Written from scratch for dlconform.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace dlc_fuzz {

class FuzzData {
 public:
  FuzzData(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  // The next sizeof(T) bytes from the end, least significant byte last in the input. Bytes past
  // the front of the input read as zero.
  template <class T>
  T take() {
    static_assert(std::is_integral_v<T>, "integers only");
    using U = std::make_unsigned_t<T>;
    U value = 0;
    if (size_ >= sizeof(T)) {  // whole: one load, most significant byte first
      size_ -= sizeof(T);
      std::memcpy(&value, data_ + size_, sizeof(T));
      if constexpr (sizeof(T) == 2) value = __builtin_bswap16(value);
      if constexpr (sizeof(T) == 4) value = __builtin_bswap32(value);
      if constexpr (sizeof(T) == 8) value = __builtin_bswap64(value);
      return static_cast<T>(value);
    }
    for (size_t i = 0; i < sizeof(T); ++i) {
      const U byte = size_ > 0 ? data_[--size_] : 0;
      value = static_cast<U>(value | static_cast<U>(byte << (8 * i)));
    }
    return static_cast<T>(value);
  }

  // Bytes not yet taken, all at the front of the input.
  size_t remaining() const { return size_; }

 private:
  const uint8_t* data_;
  size_t size_;
};

// Writes values in the order FuzzData takes them; bytes() is an input that reads them back.
class FuzzWriter {
 public:
  // Enough for any input a decoder of these targets reads (the largest is about a kilobyte);
  // bytes past it are dropped, and bytes() says so by returning nothing.
  static constexpr size_t kCapacity = 4096;

  template <class T>
  FuzzWriter& put(T value) {
    static_assert(std::is_integral_v<T>, "integers only");
    using U = std::make_unsigned_t<T>;
    U bits = static_cast<U>(value);
    for (size_t i = 0; i < sizeof(T); ++i) {
      if (size_ < kCapacity) reversed_[size_] = static_cast<uint8_t>(bits & 0xFF);
      ++size_;
      bits = static_cast<U>(bits >> 8);
    }
    return *this;
  }

  // The input. Leading zero bytes (the last values put, if zero) are dropped: FuzzData reads
  // missing bytes as zeros, so a decoder that never asks how much is left reads the same values.
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out(kept());
    reverse_into(out.data(), out.size());
    return out;
  }

  // bytes() written to `out` without a heap block: how many, or kTooLong when more than `max`.
  static constexpr size_t kTooLong = SIZE_MAX;
  size_t write_to(uint8_t* out, size_t max) const {
    const size_t n = kept();
    if (n > max) return kTooLong;
    reverse_into(out, n);
    return n;
  }

 private:
  // How many bytes the output keeps (see bytes()): none after an overflow.
  size_t kept() const {
    if (size_ > kCapacity) return 0;
    size_t n = size_;
    while (n > 0 && reversed_[n - 1] == 0) --n;
    return n;
  }
  void reverse_into(uint8_t* out, size_t n) const {
    for (size_t i = 0; i < n; ++i) out[i] = reversed_[n - 1 - i];
  }

  uint8_t reversed_[kCapacity];
  size_t size_ = 0;
};

}  // namespace dlc_fuzz
