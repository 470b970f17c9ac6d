// Guarded blocks as reusable slots of per-size-class arenas; see guard.h.
#include "guard.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "sanitizer_build.h"
#if DLC_HAS_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace dlc {
namespace {

size_t page_size() noexcept {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

// The class whose body (2^class pages) holds `size` bytes.
uint32_t size_class_of(size_t size) noexcept {
  const size_t pages = (size == 0 ? 1 : (size + page_size() - 1) / page_size());
  uint32_t c = 0;
  while ((size_t{1} << c) < pages) ++c;
  return c;
}

#if DLC_HAS_ASAN
void shadow_close(uintptr_t start, size_t bytes) noexcept {
  __asan_poison_memory_region(reinterpret_cast<void*>(start), bytes);
}
void shadow_open(uintptr_t start, size_t bytes) noexcept {
  __asan_unpoison_memory_region(reinterpret_cast<void*>(start), bytes);
}
#else
void shadow_close(uintptr_t, size_t) noexcept {}
void shadow_open(uintptr_t, size_t) noexcept {}
#endif

// A chunk's availability bitmap: one bit per slot.
size_t bitmap_words(size_t slots) noexcept { return (slots + 63) / 64; }

// Linux 6.13's guard markers; Debian 12's headers predate them.
constexpr int kMadvGuardInstall = 102;
constexpr int kMadvGuardRemove = 103;

void* map(size_t bytes, int prot) noexcept {
  void* p = mmap(nullptr, bytes, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
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

size_t GuardArena::metadata_bytes(size_t slots) noexcept {
  return sizeof(Slot) * slots + sizeof(uint64_t) * bitmap_words(slots);
}

bool GuardArena::shadow_guards_available() noexcept {
#if DLC_HAS_ASAN
  return true;
#else
  return false;
#endif
}

bool GuardArena::use_shadow_guards() noexcept {
  if (!shadow_guards_available() || chunk_count_ != 0) return shadow_;
  shadow_ = true;
  return true;
}

GuardArena::~GuardArena() {
  for (uint16_t i = 0; i < chunk_count_; ++i) {
    // A later mapping at these addresses must not inherit the poison.
    if (shadow_) shadow_open(chunks_[i].base, chunks_[i].slot_bytes * chunks_[i].slot_count);
    munmap(reinterpret_cast<void*>(chunks_[i].base), chunks_[i].slot_bytes * chunks_[i].slot_count);
    munmap(chunks_[i].slots, metadata_bytes(chunks_[i].slot_count));
  }
  if (quarantine_ring_ != nullptr) {
    munmap(quarantine_ring_, sizeof(QuarantineEntry) * kQuarantineCapacity);
  }
}

int GuardArena::protect(uintptr_t start, size_t bytes, int prot) noexcept {
  ++syscalls_;
  return mprotect(reinterpret_cast<void*>(start), bytes, prot);
}

int GuardArena::set_access(uintptr_t start, size_t bytes, bool open) noexcept {
  if (shadow_) {
    (open ? shadow_open : shadow_close)(start, bytes);
    return 0;
  }
  if (!guard_markers_) return protect(start, bytes, open ? PROT_READ | PROT_WRITE : PROT_NONE);
  ++syscalls_;
  return madvise(reinterpret_cast<void*>(start), bytes, open ? kMadvGuardRemove : kMadvGuardInstall);
}

bool GuardArena::add_chunk(uint32_t size_class) noexcept {
  if (chunk_count_ == kMaxChunks || size_class >= kClasses) return false;
  const size_t body = page_size() << size_class;
  const size_t slot_bytes = body + page_size();
  // About 2 MiB of slots per chunk, and at least 4.
  size_t count = (size_t{2} << 20) / slot_bytes;
  if (count < 4) count = 4;
  const size_t meta_bytes = metadata_bytes(count);
  // Every slot starts inaccessible, body and guard: allocation opens the pages a block spans.
  // The first chunk decides between guard markers and PROT_NONE.
  void* base = map(slot_bytes * count, PROT_READ | PROT_WRITE);
  void* meta = map(meta_bytes, PROT_READ | PROT_WRITE);
  syscalls_ += 2;
  bool closed = false;
  if (base != nullptr && chunk_count_ == 0 && !shadow_) {
    closed = guard_markers_ = madvise(base, slot_bytes * count, kMadvGuardInstall) == 0;
    ++syscalls_;
  }
  if (base != nullptr && !closed &&
      set_access(reinterpret_cast<uintptr_t>(base), slot_bytes * count, false) != 0) {
    munmap(base, slot_bytes * count);
    base = nullptr;
  }
  if (base == nullptr || meta == nullptr) {
    if (base != nullptr) munmap(base, slot_bytes * count);
    if (meta != nullptr) munmap(meta, meta_bytes);
    return false;
  }
  const uint16_t ci = chunk_count_++;
  Chunk& c = chunks_[ci];
  c.base = reinterpret_cast<uintptr_t>(base);
  c.slot_bytes = slot_bytes;
  c.body_bytes = body;
  c.slot_count = static_cast<uint32_t>(count);
  c.size_class = size_class;
  c.slots = static_cast<Slot*>(meta);
  c.available = reinterpret_cast<uint64_t*>(c.slots + count);
  for (uint32_t i = 0; i < count; ++i) {
    c.slots[i] = Slot{};
    make_available(ci, i);
  }
  // Into the class's ring, right after the cursor's chunk, and the cursor moves onto it.
  Cursor& cur = cursor_[size_class];
  if (cur.chunk == 0xFFFF) {
    c.next_of_class = ci;
  } else {
    c.next_of_class = chunks_[cur.chunk].next_of_class;
    chunks_[cur.chunk].next_of_class = ci;
  }
  cur = Cursor{ci, 0};
  return true;
}

void GuardArena::make_available(uint16_t chunk, uint32_t slot) noexcept {
  Chunk& c = chunks_[chunk];
  c.slots[slot].state = BlockState::available;
  c.available[slot / 64] |= uint64_t{1} << (slot % 64);
}

GuardArena::Slot* GuardArena::take_slot(size_t size, uint16_t* chunk_out,
                                        uint32_t* slot_out) noexcept {
  const uint32_t cls = size_class_of(size);
  if (cls >= kClasses) return nullptr;
  Cursor& cur = cursor_[cls];
  if (cur.chunk == 0xFFFF && !add_chunk(cls)) return nullptr;
  // One round of the class's chunks from the cursor on (the cursor's chunk is seen twice: from
  // the cursor to its end, and at the end of the round from its start).
  uint16_t ci = cur.chunk;
  uint32_t from = cur.slot;
  for (uint32_t visited = 0; visited <= chunk_count_; ++visited) {
    Chunk& c = chunks_[ci];
    const size_t words = bitmap_words(c.slot_count);
    for (uint32_t w = from / 64; w < words; ++w) {
      uint64_t bits = c.available[w];
      if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
      if (bits == 0) continue;
      const uint32_t si = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
      c.available[w] &= ~(uint64_t{1} << (si % 64));
      cur = Cursor{ci, si + 1 < c.slot_count ? si + 1 : 0};
      if (si + 1 >= c.slot_count) cur.chunk = c.next_of_class;
      *chunk_out = ci;
      *slot_out = si;
      return &c.slots[si];
    }
    ci = c.next_of_class;
    from = 0;
  }
  // Every slot of the class is live or in quarantine: a new chunk.
  if (!add_chunk(cls)) return nullptr;
  return take_slot(size, chunk_out, slot_out);
}

void GuardArena::span(const Chunk& c, uint32_t si, size_t size, uintptr_t* from,
                      size_t* bytes) const noexcept {
  const size_t pages = size == 0 ? 1 : (size + page_size() - 1) / page_size();
  *bytes = pages * page_size();
  *from = c.base + c.slot_bytes * si + c.body_bytes - *bytes;
}

void GuardArena::forget_freed() noexcept {
  // No slot leaves the quarantine before reset() empties live_, so no entry names a reused slot.
  size_t kept = 0;
  for (size_t i = 0; i < live_count_; ++i) {
    const BlockState state = chunks_[live_[i].chunk].slots[live_[i].slot].state;
    if (state != BlockState::freed && state != BlockState::available) live_[kept++] = live_[i];
  }
  live_count_ = kept;
}

bool GuardArena::room_for_live() noexcept {
  if (live_count_ == kMaxLive) forget_freed();
  return live_count_ < kMaxLive;
}

void* GuardArena::alloc(size_t size, size_t align, DLCAllocKind kind) noexcept {
  if (!room_for_live() || align == 0 || (align & (align - 1)) != 0 || align > page_size() ||
      size > UINT32_MAX) {
    return nullptr;
  }
  uint16_t ci = 0;
  uint32_t si = 0;
  Slot* s = take_slot(size, &ci, &si);
  if (s == nullptr) return nullptr;
  const Chunk& c = chunks_[ci];
  uintptr_t from = 0;
  size_t bytes = 0;
  span(c, si, size, &from, &bytes);
  // Only the pages the block spans open, so the slot's pages before them stay inaccessible.
  if (set_access(from, bytes, true) != 0) {
    make_available(ci, si);
    return nullptr;
  }
  s->start = from + bytes - size;
  s->size = static_cast<uint32_t>(size);
  s->kind = kind;
  s->struct_kind = abi::StructKind::unknown;
  s->state = BlockState::live;
  if (kind == DLC_ALLOC_STRUCT) {
    // Poison the slack before a struct, so a reader that steps back from the pointer (the A2
    // design, or a wrong container_of) reads garbage, not zeros that look like a valid version.
    std::memset(reinterpret_cast<void*>(from), 0xA5, s->start - from);
  }
  live_[live_count_++] = LiveRef{ci, si};
  return reinterpret_cast<void*>(s->start);
}

void* GuardArena::device_poison(size_t size) noexcept {
  return poison(size, BlockState::device_poison);
}

void* GuardArena::no_storage(size_t size) noexcept { return poison(size, BlockState::no_storage); }

void* GuardArena::poison(size_t size, BlockState state) noexcept {
  if (!room_for_live() || size > UINT32_MAX) return nullptr;
  uint16_t ci = 0;
  uint32_t si = 0;
  Slot* s = take_slot(size, &ci, &si);
  if (s == nullptr) return nullptr;
  const Chunk& c = chunks_[ci];
  // An available slot is inaccessible already: nothing to protect.
  s->start = c.base + c.slot_bytes * si;
  s->size = static_cast<uint32_t>(size);
  s->kind = DLC_ALLOC_DATA;
  s->struct_kind = abi::StructKind::unknown;
  s->state = state;
  live_[live_count_++] = LiveRef{ci, si};
  return reinterpret_cast<void*>(s->start);
}

GuardArena::Slot* GuardArena::find_slot(uintptr_t address, const Chunk** chunk) const noexcept {
  for (uint16_t i = 0; i < chunk_count_; ++i) {
    const Chunk& c = chunks_[i];
    if (address >= c.base && address < c.base + c.slot_bytes * c.slot_count) {
      *chunk = &c;
      return &c.slots[(address - c.base) / c.slot_bytes];
    }
  }
  return nullptr;
}

bool GuardArena::protect_read_only(void* pointer) noexcept {
  const Chunk* c = nullptr;
  Slot* s = find_slot(reinterpret_cast<uintptr_t>(pointer), &c);
  if (s == nullptr || s->state != BlockState::live) return false;
  uintptr_t from = 0;
  size_t bytes = 0;
  span(*c, static_cast<uint32_t>(s - c->slots), s->size, &from, &bytes);
  if (protect(from, bytes, PROT_READ) != 0) return false;
  s->state = BlockState::read_only;
  return true;
}

void GuardArena::retire(uint16_t chunk, uint32_t slot) noexcept {
  Slot& s = chunks_[chunk].slots[slot];
  s.state = BlockState::freed;
  s.freed_at = epoch_;
  if (quarantine_ring_ == nullptr) {
    quarantine_ring_ = static_cast<QuarantineEntry*>(
        map(sizeof(QuarantineEntry) * kQuarantineCapacity, PROT_READ | PROT_WRITE));
    ++syscalls_;
  }
  // A full ring (or no ring) keeps the slot retired for good: memory, never a missed detection.
  if (quarantine_ring_ == nullptr || quarantine_size_ == kQuarantineCapacity) return;
  quarantine_ring_[(quarantine_head_ + quarantine_size_) % kQuarantineCapacity] =
      QuarantineEntry{chunk, slot, epoch_};
  ++quarantine_size_;
}

void GuardArena::free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  const Chunk* c = nullptr;
  Slot* s = find_slot(reinterpret_cast<uintptr_t>(pointer), &c);
  if (s == nullptr || s->state == BlockState::freed || s->state == BlockState::available) return;
  const uint32_t si = static_cast<uint32_t>(s - c->slots);
  if (s->state != BlockState::device_poison && s->state != BlockState::no_storage) {
    // Inaccessible from now on, so that a later touch is attributed to this block (LIFE-6).
    uintptr_t from = 0;
    size_t bytes = 0;
    span(*c, si, s->size, &from, &bytes);
    // A guard marker leaves the protection as it was: read-only pages are made writable again
    // first, for the slot's next block.
    if ((guard_markers_ || shadow_) && s->state == BlockState::read_only) {
      protect(from, bytes, PROT_READ | PROT_WRITE);
    }
    if (batch_depth_ > 0 && pending_count_ == kMaxPending) close_pending();
    if (batch_depth_ > 0) {
      pending_[pending_count_++] = Pending{static_cast<uint16_t>(c - chunks_), si};
    } else {
      set_access(from, bytes, false);
    }
  }
  retire(static_cast<uint16_t>(c - chunks_), si);
}

void GuardArena::close_pending() noexcept {
  // Few entries: an insertion sort by (chunk, slot) puts the adjacent slots next to each other.
  for (size_t i = 1; i < pending_count_; ++i) {
    const Pending p = pending_[i];
    size_t j = i;
    for (; j > 0 && (pending_[j - 1].chunk > p.chunk ||
                     (pending_[j - 1].chunk == p.chunk && pending_[j - 1].slot > p.slot));
         --j) {
      pending_[j] = pending_[j - 1];
    }
    pending_[j] = p;
  }
  size_t i = 0;
  while (i < pending_count_) {
    const Chunk& c = chunks_[pending_[i].chunk];
    uintptr_t from = 0, last_from = 0;
    size_t bytes = 0, last_bytes = 0;
    span(c, pending_[i].slot, c.slots[pending_[i].slot].size, &from, &bytes);
    last_from = from;
    last_bytes = bytes;
    size_t j = i + 1;
    // Between the span of one slot and that of the next lie the first slot's guard page and the
    // next slot's pages before its block: inaccessible already, so one call covers the run.
    while (j < pending_count_ && pending_[j].chunk == pending_[i].chunk &&
           pending_[j].slot == pending_[j - 1].slot + 1) {
      span(c, pending_[j].slot, c.slots[pending_[j].slot].size, &last_from, &last_bytes);
      ++j;
    }
    set_access(from, last_from + last_bytes - from, false);
    i = j;
  }
  pending_count_ = 0;
}

void GuardArena::tag_struct(const void* pointer, abi::StructKind kind) noexcept {
  const Chunk* c = nullptr;
  Slot* s = find_slot(reinterpret_cast<uintptr_t>(pointer), &c);
  if (s != nullptr && s->kind == DLC_ALLOC_STRUCT &&
      (s->state == BlockState::live || s->state == BlockState::read_only)) {
    s->struct_kind = kind;
  }
}

void GuardArena::reset() noexcept {
  // Whatever the case left live is freed now; it stays attributed through the quarantine.
  // Closed together, and before any slot leaves the quarantine, even inside a Batch.
  ++batch_depth_;
  close_leftovers();
  --batch_depth_;
  close_pending();
  live_count_ = 0;
  ++epoch_;
  // Slots freed `quarantine_` cases ago go back to their class's list, still inaccessible.
  while (quarantine_size_ > 0) {
    const QuarantineEntry q = quarantine_ring_[quarantine_head_];
    if (epoch_ - q.epoch < quarantine_) break;
    quarantine_head_ = (quarantine_head_ + 1) % kQuarantineCapacity;
    --quarantine_size_;
    make_available(q.chunk, q.slot);
  }
}

void GuardArena::close_leftovers() noexcept {
  for (size_t i = 0; i < live_count_; ++i) {
    Slot& s = chunks_[live_[i].chunk].slots[live_[i].slot];
    if (s.state == BlockState::live || s.state == BlockState::read_only ||
        s.state == BlockState::device_poison || s.state == BlockState::no_storage) {
      free(reinterpret_cast<void*>(s.start));
    }
  }
}

size_t GuardArena::live_blocks() const noexcept {
  size_t live = 0;
  for (size_t i = 0; i < live_count_; ++i) {
    const Slot& s = chunks_[live_[i].chunk].slots[live_[i].slot];
    if (s.state == BlockState::live || s.state == BlockState::read_only) ++live;
  }
  return live;
}

bool GuardArena::nearly_full() const noexcept {
  return live_blocks() > kMaxLive * 3 / 4 || chunk_count_ > kMaxChunks * 3 / 4;
}

BlockFacts GuardArena::facts(uintptr_t address) const noexcept {
  BlockFacts f;
  const Chunk* c = nullptr;
  const Slot* s = find_slot(address, &c);
  if (s == nullptr || s->state == BlockState::available) return f;
  f.found = true;
  f.kind = s->kind;
  f.struct_kind = s->struct_kind;
  f.state = s->state;
  f.start = s->start;
  f.size = s->size;
  f.offset = static_cast<int64_t>(address - s->start);
  if (s->state == BlockState::freed) f.cases_ago = epoch_ - s->freed_at;
  return f;
}

}  // namespace dlc

// The harness attributes SIGSEGV and SIGBUS itself (guard pages are how it catches faults in
// uninstrumented code), so a sanitizer build must leave those signals to it.
extern "C" __attribute__((visibility("default"), used)) const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:allow_user_segv_handler=1";
}
