#include "host.h"

namespace dlc {
namespace {

HostState& self(void* ctx) { return *static_cast<HostState*>(ctx); }

void* host_alloc(void* ctx, size_t size, size_t align, DLCAllocKind kind) {
  return self(ctx).arena.alloc(size, align, kind);
}
int host_protect(void* ctx, void* block) {
  return self(ctx).arena.protect_read_only(block) ? DLC_OK : DLC_ERR_INVALID;
}
void host_free(void* ctx, void* block) { self(ctx).arena.free(block); }
void* host_poison(void* ctx, size_t size) { return self(ctx).arena.device_poison(size); }
void* host_no_storage(void* ctx, size_t size) { return self(ctx).arena.no_storage(size); }
int host_deleter_called(void* ctx, const void* managed) {
  return self(ctx).ledger.deleter_called(managed) ? 0 : 1;
}
void host_produced(void* ctx, const void* managed) { self(ctx).ledger.produced(managed); }
void host_device_allocated(void* ctx, const void* pointer, size_t size, int32_t allocator) {
  self(ctx).devices.allocated(pointer, size, allocator);
}
void host_device_freed(void* ctx, const void* pointer, int32_t allocator) {
  self(ctx).devices.freed(pointer, allocator);
}

}  // namespace

HostState::HostState() {
  table.abi_version = DLCONFORM_PLUGIN_ABI_VERSION;
  table.ctx = this;
  table.alloc = host_alloc;
  table.protect_read_only = host_protect;
  table.free = host_free;
  table.device_poison = host_poison;
  table.no_storage = host_no_storage;
  table.deleter_called = host_deleter_called;
  table.produced = host_produced;
  table.device_allocated = host_device_allocated;
  table.device_freed = host_device_freed;
  ledger.batch_frees_in(&arena);
}

BlockFacts host_facts(const HostState& host, uintptr_t address) noexcept {
  BlockFacts b = host.arena.facts(address);
  if (b.found) return b;
  if (const DeviceLedger::Entry* e = host.devices.region_of(address)) {
    b.found = true;
    b.kind = DLC_ALLOC_DATA;
    b.state = BlockState::device_poison;
    b.start = e->start;
    b.size = e->size;
    b.offset = static_cast<int64_t>(address - e->start);
  }
  return b;
}

HostState& process_host() {
  static HostState* host = [] {
    auto* h = new HostState();
    set_trampoline_ledger(&h->ledger);
    return h;
  }();
  return *host;
}

}  // namespace dlc
