// The judges of a party's death and of device memory (see judge.h): a fault in guarded or device
// memory, a signal or a timeout, and the streams of a device hand-off. The judges of what crossed
// (the hand-off, the import, the lifecycle) are judge.cpp's.
#include <cstring>

#include "device_ledger.h"
#include "judge.h"

namespace dlc {
namespace {

// An address in words that are the same on every run (reports diff cleanly under ASLR): the
// value only near NULL, where it says which field was read through a NULL pointer.
SafeText& stable_address(SafeText& w, uint64_t address) {
  if (address < 0x10000) return w.add("address ").hex(address);
  const uint64_t top = address >> 47;
  return w.add(top != 0 && top != 0x1ffff ? "a non-canonical address" : "an address");
}

void judge_fault_class(const FaultFacts& f, Finding* out) noexcept {
  out->clear();
  const SignalFacts& s = f.signal;
  const BlockFacts& b = f.block;
  const Rule case_rule = f.case_rule;
  auto where = [&](SafeText& w) -> SafeText& {
    return w.add(" in ").add(f.where).add(" of ").add(f.plugin);
  };
  if (s.signal != SIGSEGV && s.signal != SIGBUS) {
    auto w = out->set(FindingClass::crash, case_rule);
    w.add("the process aborted");
    where(w);
    return;
  }
  const char* access = s.is_write ? "write" : "read";
  if (s.general_protection && !s.is_exec) {
    if (s.aligned_vector_insn) {
      auto w = out->set(FindingClass::misaligned_access);
      w.add("expected an alignment check before an aligned vector access but found a "
            "general-protection fault on ")
          .add(f.misaligned_data ? "data that is not 16-byte aligned" : "an unaligned address");
      where(w);
      return;
    }
    auto w = out->set(FindingClass::wild_pointer, f.raw ? Rule::LAY_3 : case_rule);
    w.add("general-protection fault (a non-canonical pointer");
    w.add(f.raw ? ", read from a foreign struct layout)" : ")");
    where(w);
    return;
  }
  if (s.is_exec) {
    if (b.found) {
      auto w = out->set(FindingClass::bad_function_pointer);
      w.add("called into a ").add(to_string(b.kind)).add(" buffer as if it were code (offset ")
          .num(b.offset).add("): a deleter read from the wrong offset");
      where(w);
      return;
    }
    if (s.returned_into_garbage) {
      auto w = out->set(FindingClass::memory_corruption, case_rule);
      w.add("returned into garbage at ");
      stable_address(w, s.address)
          .add(": the return address on the stack was overwritten (a stack overrun)");
      where(w);
      return;
    }
    if (s.address == 0) {
      auto w = out->set(FindingClass::null_deleter_called);
      w.add("called a NULL function pointer (a NULL deleter must be checked)");
      where(w);
      return;
    }
    auto w = out->set(FindingClass::bad_function_pointer);
    w.add("jumped to the non-code address ");
    stable_address(w, s.address);
    where(w);
    return;
  }
  if (!b.found) {
    auto w = out->set(FindingClass::wild_pointer, f.raw ? Rule::LAY_3 : case_rule);
    w.add(access).add(" of ");
    stable_address(w, s.address).add(" outside every tensor buffer");
    if (f.raw) w.add(" (the reader misread a foreign struct layout)");
    where(w);
    return;
  }
  const char* kind = to_string(b.kind);
  if (b.state == BlockState::freed) {
    const int64_t deleter_at = b.struct_kind == abi::StructKind::legacy
                                   ? static_cast<int64_t>(abi::kLegacyDeleterOffset)
                                   : static_cast<int64_t>(abi::kVersionedDeleterOffset);
    if (b.kind == DLC_ALLOC_STRUCT && !s.is_write && b.offset == deleter_at &&
        b.struct_kind != abi::StructKind::unknown && b.struct_kind != abi::StructKind::variant) {
      auto w = out->set(FindingClass::deleter_called_twice);
      w.add("expected exactly one deleter call but found a second: the deleter field of a struct ")
          .add("whose deleter already ran was read");
      where(w);
      return;
    }
    auto w = out->set(FindingClass::use_after_delete);
    w.add(access).add(" of ").add(kind).add(" after the deleter ran (offset ").num(b.offset)
        .add(" of ").unum(b.size).add(" bytes");
    if (b.cases_ago > 0) w.add(", freed ").unum(b.cases_ago).add(" cases earlier");
    w.add(')');
    where(w);
    return;
  }
  if (b.state == BlockState::no_storage) {
    auto w = out->set(FindingClass::out_of_bounds, case_rule);
    w.add("host ").add(access).add(" of the data of a tensor whose geometry is invalid (offset ")
        .num(b.offset).add("): it has no storage, and should have been refused");
    where(w);
    return;
  }
  if (b.state == BlockState::device_poison) {
    auto w = out->set(FindingClass::device_pointer_dereferenced);
    w.add("host ").add(access).add(" of a non-CPU tensor's data pointer (offset ").num(b.offset)
        .add(')');
    where(w);
    return;
  }
  if (b.offset >= static_cast<int64_t>(b.size)) {
    if (b.kind == DLC_ALLOC_STRUCT && b.struct_kind == abi::StructKind::foreign_major) {
      auto w = out->set(FindingClass::future_major_touched);
      w.add("expected only version, manager_ctx and deleter read from a struct of another ")
          .add("major but found a ").add(access).add(" at offset ").num(b.offset);
      where(w);
      return;
    }
    if (b.kind == DLC_ALLOC_STRUCT) {
      const bool legacy = b.struct_kind == abi::StructKind::legacy;
      auto w = out->set(FindingClass::struct_overread, legacy ? Rule::LAY_2 : Rule::LAY_3);
      w.add(access).add(" past the end of a ").unum(b.size).add("-byte struct (at offset ")
          .num(b.offset).add(')');
      if (legacy) w.add(" (a legacy DLManagedTensor has no version field)");
      where(w);
      return;
    }
    auto w = out->set(FindingClass::out_of_bounds,
                      b.kind == DLC_ALLOC_DATA ? Rule::LAY_10 : Rule::LAY_1);
    w.add(access).add(" past the end of a ").unum(b.size).add("-byte ").add(kind)
        .add(" buffer (at offset ").num(b.offset).add(')');
    where(w);
    return;
  }
  if (b.offset < 0) {
    auto w = out->set(FindingClass::out_of_bounds, Rule::LAY_1);
    w.add(access).add(' ').num(-b.offset).add(" bytes before the start of a ").add(kind)
        .add(" buffer");
    where(w);
    return;
  }
  if (s.is_write && b.state == BlockState::read_only) {
    auto w = out->set(FindingClass::write_to_read_only);
    w.add("write to a READ_ONLY tensor's data (offset ").num(b.offset).add(')');
    where(w);
    return;
  }
  auto w = out->set(FindingClass::wild_pointer, case_rule);
  w.add(access).add(" fault inside a ").add(kind).add(" buffer");
  where(w);
}
}  // namespace

void judge_fault(const FaultFacts& f, Finding* out) noexcept {
  judge_fault_class(f, out);
  // A fault is the party's in whose code it happened, whatever the class says.
  if (out->any()) out->role = f.role;
}

void judge_death(int signal, int exit_status, bool timed_out, double timeout_seconds,
                 const char* last_words, Rule case_rule, Finding* out) noexcept {
  out->clear();
  if (timed_out) {
    out->set(FindingClass::timeout, case_rule).add("still running after ")
        .num(static_cast<int64_t>(timeout_seconds)).add(" s; the worker was killed");
    return;
  }
  const bool sanitizer = last_words != nullptr && (std::strstr(last_words, "Sanitizer") != nullptr ||
                                                   std::strstr(last_words, "runtime error") != nullptr);
  auto w = out->set(sanitizer ? FindingClass::sanitizer_report : FindingClass::crash, case_rule);
  if (signal != 0) {
    w.add("the worker was killed by ").add(signal_name(signal));
  } else {
    w.add("the worker exited with status ").num(exit_status);
  }
  if (last_words != nullptr && *last_words != '\0') w.add(": ").add(last_words);
}

// ---- Device memory ---------------------------------------------------------------------------

namespace {

bool rocm_family(int32_t device_type) { return device_type == 10 || device_type == 11; }

}  // namespace

void judge_stream_ask(const StreamFacts& f, Finding* out) noexcept {
  out->clear();
  if (!f.has_stream) return;
  if (f.device_type == 1) {
    out->set(FindingClass::stream_on_cpu)
        .add("expected ")
        .add(f.consumer_label)
        .add(" to pass stream=None for a CPU tensor but it passed ")
        .num(f.stream);
    return;
  }
  const bool bad = f.stream < -1 || (abi::is_cuda_memory(f.device_type) && f.stream == 0) ||
                   (rocm_family(f.device_type) && (f.stream == 1 || f.stream == 2));
  if (!bad) return;
  auto w = out->set(FindingClass::bad_stream_value);
  w.add("expected ").add(f.consumer_label).add(" to pass a stream the device allows but it passed ")
      .num(f.stream);
  if (abi::is_cuda_memory(f.device_type)) {
    w.add(" (CUDA: None or 1 is the legacy default stream, 2 the per-thread default, 0 is ")
        .add("disallowed)");
  } else if (rocm_family(f.device_type)) {
    w.add(" (ROCm: None or 0 is the default stream; 1 and 2 are not supported)");
  }
}

void judge_stream_read(const StreamFacts& f, Finding* out) noexcept {
  out->clear();
  if (!f.read_before_write) return;
  auto w = out->set(FindingClass::stream_not_synchronised);
  // The consumer's when its ask explains the early read, else the producer's; a host copy is
  // the producer's to synchronise whatever the consumer passed.
  out->role = !f.host_copy && (!f.has_stream || f.stream == -1) ? Role::consumer : Role::producer;
  if (f.host_copy) {
    w.add("expected ").add(f.producer_label).add(" to synchronise before the host copy ")
        .add(f.consumer_label).add(" asked for (dl_device=(1, 0)) but the copy holds the values ")
        .add("from before its pending write");
  } else if (!f.has_stream) {
    w.add("expected ").add(f.consumer_label).add(" to pass the stream it reads on, but it passed ")
        .add("none (the legacy default stream) and read before ").add(f.producer_label)
        .add("'s pending write landed");
  } else if (f.stream == -1) {
    w.add(f.consumer_label).add(" passed stream=-1 (the producer does not synchronise) but read ")
        .add("before ").add(f.producer_label).add("'s pending write landed: it must synchronise ")
        .add("itself first");
  } else {
    w.add("expected ").add(f.producer_label).add(" to make the consumer's stream ").num(f.stream)
        .add(" wait for its pending write but ").add(f.consumer_label)
        .add(" read the values from before the write on it");
  }
}

void judge_device_memory(const DeviceMemoryFacts& facts, Finding* out) noexcept {
  out->clear();
  if (!facts.deleter_ran) return;
  const DeviceLedger::Verdict& f = facts.ledger;
  if (f.mismatched > 0) {
    out->set(FindingClass::wrong_free_function)
        .add("expected the deleter of ")
        .add(facts.producer_label)
        .add(" to free ")
        .add(device_allocator_name(f.allocated_with, false))
        .add(" memory with ")
        .add(device_allocator_name(f.allocated_with, true))
        .add(" but it called ")
        .add(device_allocator_name(f.freed_with, true));
    return;
  }
  if (f.unfreed > 0) {
    out->set(FindingClass::deleter_leaks)
        .add("expected the deleter of ")
        .add(facts.producer_label)
        .add(" to free its device memory but found ")
        .unum(f.unfreed_bytes)
        .add(" bytes from ")
        .add(device_allocator_name(f.unfreed_allocator, false))
        .add(" still allocated");
  }
}

}  // namespace dlc
