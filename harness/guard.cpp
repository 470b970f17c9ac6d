// Guarded blocks: one mapping per block, data flush against a PROT_NONE page.
#include "guard.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace dlc {
namespace {

size_t page_size() noexcept {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

size_t round_up(size_t value, size_t multiple) noexcept {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

const char* to_string(DLCAllocKind kind) noexcept {
  switch (kind) {
    case DLC_ALLOC_STRUCT:
      return "struct";
    case DLC_ALLOC_SHAPE:
      return "shape";
    case DLC_ALLOC_STRIDES:
      return "strides";
    case DLC_ALLOC_DATA:
      return "data";
    case DLC_ALLOC_CONTEXT:
      return "manager_ctx";
  }
  return "block";
}

SafeText& SafeText::add(const char* text) noexcept {
  while (*text != '\0' && length + 1 < capacity) buffer[length++] = *text++;
  buffer[length] = '\0';
  return *this;
}

SafeText& SafeText::add(int64_t value) noexcept {
  char digits[24];
  int n = 0;
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
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

SafeText& SafeText::hex(uint64_t value) noexcept {
  char text[19] = "0x";
  int n = 2;
  bool started = false;
  for (int shift = 60; shift >= 0; shift -= 4) {
    unsigned nibble = (value >> shift) & 0xF;
    if (nibble != 0 || started || shift == 0) {
      text[n++] = "0123456789abcdef"[nibble];
      started = true;
    }
  }
  text[n] = '\0';
  return add(text);
}

void* GuardArena::alloc(size_t size, size_t align, DLCAllocKind kind) noexcept {
  if (count_ == kMaxBlocks || align == 0 || (align & (align - 1)) != 0 || align > page_size()) {
    return nullptr;
  }
  const size_t body = round_up(size == 0 ? 1 : size, page_size());
  const size_t total = body + page_size();
  void* base = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  const uintptr_t map_base = reinterpret_cast<uintptr_t>(base);
  if (mprotect(reinterpret_cast<void*>(map_base + body), page_size(), PROT_NONE) != 0) {
    munmap(base, total);
    return nullptr;
  }
  if (kind == DLC_ALLOC_STRUCT) {
    // Poison the slack before a struct, so a reader that steps back from the pointer (the A2
    // design, or a wrong container_of) reads garbage, not zeros that look like a valid version.
    std::memset(base, 0xA5, body - size);
  }
  Block& block = blocks_[count_++];
  block.map_base = map_base;
  block.map_size = total;
  block.start = map_base + body - size;
  block.size = size;
  block.kind = kind;
  block.state = BlockState::live;
  return reinterpret_cast<void*>(block.start);
}

bool GuardArena::protect_read_only(void* pointer) noexcept {
  Block* block = find_mutable(reinterpret_cast<uintptr_t>(pointer));
  if (block == nullptr || block->state != BlockState::live) return false;
  const size_t body = block->map_size - page_size();
  if (mprotect(reinterpret_cast<void*>(block->map_base), body, PROT_READ) != 0) return false;
  block->state = BlockState::read_only;
  return true;
}

void GuardArena::free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  Block* block = find_mutable(reinterpret_cast<uintptr_t>(pointer));
  if (block == nullptr || block->state == BlockState::freed) return;
  // Keep the pages reserved so that a later touch is attributed to this block (LIFE-6).
  mprotect(reinterpret_cast<void*>(block->map_base), block->map_size, PROT_NONE);
  block->state = BlockState::freed;
}

void* GuardArena::device_poison(size_t size) noexcept {
  if (count_ == kMaxBlocks) return nullptr;
  const size_t total = round_up(size == 0 ? 1 : size, page_size()) + page_size();
  void* base = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) return nullptr;
  Block& block = blocks_[count_++];
  block.map_base = reinterpret_cast<uintptr_t>(base);
  block.map_size = total;
  block.start = block.map_base;
  block.size = size;
  block.kind = DLC_ALLOC_DATA;
  block.state = BlockState::device_poison;
  return base;
}

void GuardArena::reset() noexcept {
  for (size_t i = 0; i < count_; ++i) {
    munmap(reinterpret_cast<void*>(blocks_[i].map_base), blocks_[i].map_size);
  }
  count_ = 0;
}

size_t GuardArena::live_blocks() const noexcept {
  size_t live = 0;
  for (size_t i = 0; i < count_; ++i) {
    if (blocks_[i].state == BlockState::live || blocks_[i].state == BlockState::read_only) ++live;
  }
  return live;
}

const Block* GuardArena::find(uintptr_t address) const noexcept {
  for (size_t i = count_; i-- > 0;) {
    const Block& b = blocks_[i];
    if (address >= b.map_base && address < b.map_base + b.map_size) return &b;
  }
  return nullptr;
}

Block* GuardArena::find_mutable(uintptr_t address) noexcept {
  return const_cast<Block*>(find(address));
}

bool GuardArena::classify(uintptr_t address, bool is_write, bool is_exec,
                          FaultReport* out) const noexcept {
  SafeText text{out->detail, sizeof out->detail};
  const Block* block = find(address);
  if (block == nullptr) {
    if (is_exec) {
      out->finding_class = address == 0 ? "null-deleter-called" : "bad-function-pointer";
      out->rule = "LIFE-4";
      text.add(address == 0 ? "called a NULL function pointer (a NULL deleter must be checked)"
                            : "jumped to ")
          .add(address == 0 ? "" : "a non-code address ");
      if (address != 0) text.hex(address);
      return false;
    }
    out->finding_class = "wild-pointer";
    out->rule = "";
    text.add(is_write ? "write to " : "read of ").add("address ").hex(address);
    text.add(" outside every tensor buffer");
    return false;
  }
  const uintptr_t end = block->start + block->size;
  const char* kind = to_string(block->kind);
  if (block->state == BlockState::freed) {
    out->finding_class = "use-after-delete";
    out->rule = "LIFE-6";
    text.add(is_write ? "write to " : "read of ").add(kind).add(" after the deleter ran (offset ");
    text.add(static_cast<int64_t>(address - block->start)).add(" of ");
    text.add(static_cast<int64_t>(block->size)).add(" bytes)");
    return true;
  }
  if (block->state == BlockState::device_poison) {
    out->finding_class = "device-pointer-dereferenced";
    out->rule = "DEV-3";
    text.add("host ").add(is_write ? "write to" : "read of");
    text.add(" a non-CPU tensor's data pointer (offset ");
    text.add(static_cast<int64_t>(address - block->start)).add(")");
    return true;
  }
  if (is_exec) {
    out->finding_class = "bad-function-pointer";
    out->rule = "LAY-2";
    text.add("called into a ").add(kind).add(" buffer as if it were code (offset ");
    text.add(static_cast<int64_t>(address - block->start));
    text.add("): a deleter read from the wrong offset");
    return true;
  }
  if (address >= end) {
    if (block->kind == DLC_ALLOC_STRUCT && block->size == 24) {
      // Only version, manager_ctx and deleter exist in another major version (VER-2).
      out->finding_class = "future-major-touched";
      out->rule = "VER-2";
      text.add("read ").add(static_cast<int64_t>(address - block->start));
      text.add(" bytes into a major-2 struct: only version, manager_ctx and deleter may be used");
      return true;
    }
    const bool legacy_tail = block->kind == DLC_ALLOC_STRUCT && block->size == 64;
    out->finding_class = block->kind == DLC_ALLOC_STRUCT ? "struct-overread" : "out-of-bounds";
    out->rule = legacy_tail ? "LAY-2" : (block->kind == DLC_ALLOC_DATA ? "LAY-10" : "LAY-1");
    text.add(is_write ? "write" : "read").add(" past the end of a ");
    text.add(static_cast<int64_t>(block->size)).add("-byte ").add(kind).add(" buffer (at offset ");
    text.add(static_cast<int64_t>(address - block->start)).add(")");
    if (legacy_tail) text.add(" (a legacy DLManagedTensor has no version field)");
    return true;
  }
  if (address < block->start) {
    out->finding_class = "out-of-bounds";
    out->rule = "LAY-1";
    text.add(is_write ? "write " : "read ").add(static_cast<int64_t>(block->start - address));
    text.add(" bytes before the start of a ").add(kind).add(" buffer");
    return true;
  }
  if (is_write && block->state == BlockState::read_only) {
    out->finding_class = "write-to-read-only";
    out->rule = "FLAG-1";
    text.add("write to a read-only tensor's data (offset ");
    text.add(static_cast<int64_t>(address - block->start)).add(")");
    return true;
  }
  out->finding_class = "unexpected-fault";
  out->rule = "";
  text.add(is_write ? "write fault inside " : "fault inside ").add(kind).add(" buffer");
  return true;
}

}  // namespace dlc

// The harness attributes SIGSEGV and SIGBUS itself (guard pages are how it catches faults in
// uninstrumented code), so a sanitizer build must leave those signals to it.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
