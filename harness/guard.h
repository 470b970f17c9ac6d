// Guarded memory for exchanged tensors.
//
// Every buffer a mock producer hands out (struct, shape, strides, data, manager_ctx) lives in its
// own mapping that ends flush against an inaccessible page, so a read one byte too far faults even
// in code built without a sanitizer (a framework's shipped library). Freed blocks stay mapped but
// inaccessible until the case ends, so a touch after the deleter (LIFE-6) faults too. A fault
// handler maps the faulting address back to the block and says, in words, what was hit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dlconform/plugin.h"

namespace dlc {

enum class BlockState : uint8_t { live, read_only, freed, device_poison };

struct Block {
  uintptr_t map_base = 0;  // start of the mapping
  size_t map_size = 0;     // whole mapping, guard page included
  uintptr_t start = 0;     // first byte handed out
  size_t size = 0;         // bytes handed out; start + size is the guard page
  DLCAllocKind kind = DLC_ALLOC_DATA;
  BlockState state = BlockState::live;
};

// What a fault address turned out to be. `finding_class` and `rule` are static strings.
struct FaultReport {
  const char* finding_class = "wild-pointer";
  const char* rule = "";
  char detail[256] = {};
};

// An arena of guarded blocks for one case. Not thread-safe; one per worker process.
// Fixed capacity so that the fault handler can search it without allocating.
class GuardArena {
 public:
  static constexpr size_t kMaxBlocks = 4096;

  GuardArena() = default;
  GuardArena(const GuardArena&) = delete;
  GuardArena& operator=(const GuardArena&) = delete;
  ~GuardArena() { reset(); }

  void* alloc(size_t size, size_t align, DLCAllocKind kind) noexcept;
  bool protect_read_only(void* block) noexcept;
  void free(void* block) noexcept;
  void* device_poison(size_t size) noexcept;
  // Unmaps every block. Called between cases.
  void reset() noexcept;

  size_t live_blocks() const noexcept;
  const Block* find(uintptr_t address) const noexcept;

  // Async-signal-safe: describes a fault at `address`; `is_write` and `is_exec` come from the
  // signal context. Fills `out` and returns true if the address belongs to this arena.
  bool classify(uintptr_t address, bool is_write, bool is_exec, FaultReport* out) const noexcept;

 private:
  Block* find_mutable(uintptr_t address) noexcept;
  Block blocks_[kMaxBlocks];
  size_t count_ = 0;
};

const char* to_string(DLCAllocKind kind) noexcept;

// Async-signal-safe formatting into a fixed buffer: appends text or a signed decimal.
struct SafeText {
  char* buffer;
  size_t capacity;
  size_t length = 0;
  SafeText& add(const char* text) noexcept;
  SafeText& add(int64_t value) noexcept;
  SafeText& hex(uint64_t value) noexcept;
};

}  // namespace dlc
