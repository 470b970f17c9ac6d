// Guarded memory for exchanged tensors.
//
// Every buffer a mock producer or a fuzz target hands out (struct, shape, strides, data,
// manager_ctx) ends flush against an inaccessible page, so a read one byte too far faults even in
// code built without a sanitizer (a framework's shipped library). Freed blocks stay inaccessible,
// so a touch after the deleter (LIFE-6) faults too, and they stay attributed for the next
// kQuarantineCases cases before their memory is used again.
//
// No system call per buffer beyond what detection needs: blocks are slots of pre-mapped arenas,
// one arena per size class, each slot [body pages][guard page] with its guard protected once when
// the arena is mapped. Allocating makes a slot's body accessible (one system call); freeing makes
// it inaccessible again; read-only data costs one more. The blocks a deleter frees are closed
// when it returns (a Batch), one system call for each run of adjacent slots: slots are handed out
// in address order, so the struct, shape, strides and data of one small tensor are usually one
// run. Nothing but the deleter runs in between, so no touch after the delete is missed. Nothing
// is mapped or unmapped per case. On Linux 6.13 and later the inaccessible pages are guard markers (madvise
// MADV_GUARD_INSTALL / MADV_GUARD_REMOVE), which leave an arena one mapping: mprotect would split
// it into a mapping per slot, which every later mprotect and every fork of a worker pays for.
// Older kernels get mprotect.
//
// Shadow guards: where every reader of the arena's memory is compiled with AddressSanitizer (a
// fuzz target and the built-in consumers of a sanitized build), the same pages are made
// inaccessible in ASan's shadow instead of in the page tables: no system call and no page fault
// at all, and a touch is reported by ASan, at the same addresses a page would have faulted at.
// Never for a reader that is not instrumented (a framework's library): only pages stop that.
//
// The arena reports facts about a faulting address (which block, its kind, state and the struct
// kind it was told, the offset); the judge turns them into a finding and a rule.
#pragma once

#include <cstddef>
#include <cstdint>

#include "abi.h"
#include "dlconform/plugin.h"

namespace dlc {

// device_poison: the data of a tensor on another device (a host access breaks DEV-3);
// no_storage: the data of a tensor whose geometry is invalid (any access reads memory nobody has).
enum class BlockState : uint8_t { available, live, read_only, freed, device_poison, no_storage };

// What the arena knows of an address; async-signal-safe to produce.
struct BlockFacts {
  bool found = false;
  DLCAllocKind kind = DLC_ALLOC_DATA;
  abi::StructKind struct_kind = abi::StructKind::unknown;
  BlockState state = BlockState::available;
  uintptr_t start = 0;   // first byte handed out
  size_t size = 0;       // bytes handed out; start + size is the guard page
  int64_t offset = 0;    // address - start (negative: before the block)
  uint32_t cases_ago = 0;  // for a freed block: how many cases ago it was freed
};

class GuardArena {
 public:
  // How many cases (or fuzz executions) a freed block stays inaccessible and attributed before
  // its slot is reused. A use after delete within that window is caught and named.
  static constexpr uint32_t kQuarantineCases = 16;
  // How many blocks can be live at once; alloc() fails past it. A process that never resets
  // (the Python bridge's workers) frees blocks case after case: those no longer count.
  static constexpr size_t kMaxLiveBlocks = 4096;

  GuardArena() = default;
  GuardArena(const GuardArena&) = delete;
  GuardArena& operator=(const GuardArena&) = delete;
  ~GuardArena();

  // Frees made while a Batch is alive are closed together when the outermost one ends.
  class Batch {
   public:
    explicit Batch(GuardArena& arena) noexcept : arena_(arena) { ++arena_.batch_depth_; }
    ~Batch() {
      if (--arena_.batch_depth_ == 0) arena_.close_pending();
    }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    GuardArena& arena_;
  };

  void* alloc(size_t size, size_t align, DLCAllocKind kind) noexcept;
  bool protect_read_only(void* block) noexcept;
  void free(void* block) noexcept;
  void* device_poison(size_t size) noexcept;
  void* no_storage(size_t size) noexcept;
  // Tells the arena what kind of struct the block holding `pointer` carries (from the capsule
  // name the producer gave it), so that a read past its end can be named. No-op for other memory.
  void tag_struct(const void* pointer, abi::StructKind kind) noexcept;
  // Ends a case: blocks still live are freed (inaccessible), and blocks freed kQuarantine cases
  // ago return to their pool.
  void reset() noexcept;
  // Overrides the quarantine length (benchmarks measure what a longer window costs).
  void set_quarantine(uint32_t cases) noexcept { quarantine_ = cases == 0 ? 1 : cases; }

  size_t live_blocks() const noexcept;
  // Whether the arena is three quarters used: live blocks, or address space held by blocks
  // that a process that never resets has freed (they stay in quarantine). Such a process
  // should start afresh rather than have alloc() fail at random.
  bool nearly_full() const noexcept;
  // Async-signal-safe.
  BlockFacts facts(uintptr_t address) const noexcept;
  // System calls made so far (mmap, mprotect, munmap), for the benchmark.
  uint64_t syscalls() const noexcept { return syscalls_; }
  // Whether inaccessible pages are guard markers (Linux 6.13+) rather than PROT_NONE.
  bool uses_guard_markers() const noexcept { return guard_markers_; }
  // Switches to shadow guards (see above). False, and nothing changed, in a build without ASan
  // or once the first block was handed out.
  bool use_shadow_guards() noexcept;
  bool uses_shadow_guards() const noexcept { return shadow_; }
  // Whether this build can have shadow guards.
  static bool shadow_guards_available() noexcept;

 private:
  void* poison(size_t size, BlockState state) noexcept;
  struct Slot {
    uintptr_t start = 0;
    uint32_t size = 0;
    DLCAllocKind kind = DLC_ALLOC_DATA;
    abi::StructKind struct_kind = abi::StructKind::unknown;
    BlockState state = BlockState::available;
    uint32_t freed_at = 0;  // epoch of the free
  };
  struct Chunk {
    uintptr_t base = 0;
    size_t slot_bytes = 0;  // body + guard
    size_t body_bytes = 0;
    uint32_t slot_count = 0;
    uint32_t size_class = 0;
    uint16_t next_of_class = 0;  // the next chunk of the same class (a ring)
    Slot* slots = nullptr;       // mmap'ed metadata, slot_count entries
    uint64_t* available = nullptr;  // one bit per slot, after the slots
  };
  struct QuarantineEntry {
    uint16_t chunk;
    uint32_t slot;
    uint32_t epoch;
  };
  static constexpr size_t kMaxChunks = 512;
  static constexpr size_t kClasses = 24;  // bodies of 1 page to 2^23 pages
  static constexpr size_t kMaxLive = kMaxLiveBlocks;
  static constexpr size_t kQuarantineCapacity = 1u << 16;

  Slot* take_slot(size_t size, uint16_t* chunk_out, uint32_t* slot_out) noexcept;
  bool add_chunk(uint32_t size_class) noexcept;
  Slot* find_slot(uintptr_t address, const Chunk** chunk) const noexcept;
  void retire(uint16_t chunk, uint32_t slot) noexcept;        // to the quarantine
  // Drops from live_ the blocks freed since the last reset.
  void forget_freed() noexcept;
  // Whether a block may go live, after dropping the freed ones from the live list if it is full.
  bool room_for_live() noexcept;
  void make_available(uint16_t chunk, uint32_t slot) noexcept;  // back to the class's list
  // The pages a block of `size` bytes in slot `si` spans: they end where the guard begins.
  void span(const Chunk& c, uint32_t si, size_t size, uintptr_t* from, size_t* bytes) const noexcept;
  // A chunk of `slots` slots keeps its Slot entries and, after them, its availability bitmap.
  static size_t metadata_bytes(size_t slots) noexcept;
  int protect(uintptr_t start, size_t bytes, int prot) noexcept;
  // Closes the spans of the frees a Batch deferred, merging adjacent slots of a chunk.
  void close_pending() noexcept;
  void close_leftovers() noexcept;
  // Makes pages inaccessible (`open` false) or accessible for reading and writing.
  int set_access(uintptr_t start, size_t bytes, bool open) noexcept;

  Chunk chunks_[kMaxChunks];
  uint16_t chunk_count_ = 0;
  // Per size class, where the next allocation looks first: slots are handed out in address
  // order, going round the class's chunks, skipping those in quarantine. So the blocks a
  // producer allocates one after the other are adjacent, and a batch of frees closes them in
  // one call; and a freed slot waits a whole round, usually longer than the quarantine.
  struct Cursor {
    uint16_t chunk = 0xFFFF;  // none of this class yet
    uint32_t slot = 0;
  } cursor_[kClasses];
  // Frees deferred by a Batch: the slots, closed when the batch ends.
  static constexpr size_t kMaxPending = 64;
  struct Pending {
    uint16_t chunk;
    uint32_t slot;
  } pending_[kMaxPending];
  size_t pending_count_ = 0;
  int batch_depth_ = 0;
  // Blocks handed out in the current case (to free them at reset).
  struct LiveRef {
    uint16_t chunk;
    uint32_t slot;
  } live_[kMaxLive];
  size_t live_count_ = 0;
  QuarantineEntry* quarantine_ring_ = nullptr;
  size_t quarantine_head_ = 0, quarantine_size_ = 0;
  uint32_t epoch_ = 1;
  uint32_t quarantine_ = kQuarantineCases;
  uint64_t syscalls_ = 0;
  bool guard_markers_ = false;  // decided when the first chunk is mapped
  bool shadow_ = false;
};

const char* to_string(DLCAllocKind kind) noexcept;

}  // namespace dlc
