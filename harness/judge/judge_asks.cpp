// The consumer's side of the Python protocol: how from_dlpack asks (VER-5, STRM-1, STRM-3,
// STRM-4), and what a write through an import of immutable data means (FLAG-1, FLAG-1b).
#include "judge.h"

namespace dlc {
namespace {

SafeText& call_text(SafeText& w, const AskCall& c) noexcept {
  if (c.kind == AskCall::Kind::device) return w.add("__dlpack_device__()");
  w.add("__dlpack__(");
  bool first = true;
  auto sep = [&] {
    if (!first) w.add(", ");
    first = false;
  };
  if (c.max_version_malformed) {
    sep();
    w.add("max_version=<no 2-tuple>");
  } else if (c.has_max_version) {
    sep();
    w.add("max_version=").version(c.max_version.major, c.max_version.minor);
  }
  if (c.stream_given) {
    sep();
    w.add("stream=").num(c.stream);
  }
  if (c.copy >= 0) {
    sep();
    w.add("copy=").add(c.copy == 1 ? "True" : "False");
  }
  if (c.dl_device_malformed) {
    sep();
    w.add("dl_device=<no 2-tuple>");
  } else if (c.dl_device_given) {
    sep();
    w.add("dl_device=(").num(c.dl_device.device_type).add(", ").num(c.dl_device.device_id).add(')');
  }
  w.add(')');
  switch (c.answer) {
    case AskCall::Answer::capsule: return w;
    case AskCall::Answer::type_error: return w.add(" -> TypeError");
    case AskCall::Answer::buffer_error: return w.add(" -> BufferError");
    case AskCall::Answer::other_error: return w.add(" -> error");
  }
  return w;
}

}  // namespace

void judge_asks(const AskFacts& f, Finding* out) noexcept {
  out->clear();
  const AskCall* first = nullptr;
  const AskCall* previous = nullptr;
  const AskCall* last = nullptr;
  for (size_t i = 0; i < f.count; ++i) {
    const AskCall& c = f.calls[i];
    if (c.kind != AskCall::Kind::dlpack) continue;
    // The Array API's __dlpack__ (2023.12, 2024.12): max_version "in the form of a 2-tuple
    // (major, minor)"; dl_device "must be a 2-tuple". A producer may read either as C does.
    if (c.max_version_malformed || c.dl_device_malformed) {
      const bool version = c.max_version_malformed;
      auto w = out->set(FindingClass::malformed_keyword_passed, version ? Rule::VER_5 : Rule::STRM_3);
      w.add("expected ").add(f.consumer_label).add(" to pass ")
          .add(version ? "max_version" : "dl_device")
          .add(" as a 2-tuple of ints, as the Array API's __dlpack__ says it must be, but found ");
      call_text(w, c);
      return;
    }
    if (first == nullptr) {
      first = &c;
      if (!c.has_max_version && f.consumer_version.major >= 1) {
        auto w = out->set(FindingClass::no_max_version_asked);
        w.add("expected ").add(f.consumer_label).add(" (DLPack ")
            .version(f.consumer_version.major, f.consumer_version.minor)
            .add(") to call __dlpack__ with max_version first but found ");
        call_text(w, c);
        return;
      }
    }
    // The Array API's __dlpack__: the stream "must be an integer larger than or equal to -1"
    // on any device (STRM-2; the bridge records a stream that is no int as -2). A valid one
    // handed to a CPU producer is STRM-1's.
    if (c.stream_given && c.stream < -1) {
      auto w = out->set(FindingClass::bad_stream_value);
      w.add("expected ").add(f.consumer_label)
          .add(" to pass a stream of None or an integer >= -1, as the Array API's __dlpack__ says, "
               "but found ");
      call_text(w, c);
      return;
    }
    if (c.stream_given && f.producer_device.device_type == 1) {
      auto w = out->set(FindingClass::stream_on_cpu);
      w.add("expected stream=None on a CPU producer but found ");
      call_text(w, c);
      return;
    }
    if (previous != nullptr) {
      if (previous->answer == AskCall::Answer::capsule) {
        auto w = out->set(FindingClass::second_dlpack_call);
        w.add("expected one __dlpack__ call once one had returned a capsule but found ");
        call_text(w, *previous).add(" then ");
        call_text(w, c);
        return;
      }
      if (previous->answer != AskCall::Answer::type_error ||
          (c.has_max_version && !previous->has_max_version)) {
        auto w = out->set(FindingClass::retry_after_refusal);
        w.add("expected a second __dlpack__ call only after TypeError, without a keyword the ")
            .add("first had, but found ");
        call_text(w, *previous).add(" then ");
        call_text(w, c);
        return;
      }
    }
    previous = last = &c;
  }
  if (last == nullptr) return;  // it read the object another way, or refused before asking
  // python_spec.rst: the TypeError fallback "is also applicable to handling of the new dl_device
  // and copy keywords": a consumer that gave up with any of them still passed failed it.
  const bool keyword_passed = last->has_max_version || last->dl_device_given || last->copy != -2;
  if (!f.imported && last->answer == AskCall::Answer::type_error && keyword_passed) {
    auto w = out->set(FindingClass::no_version_fallback);
    w.add("expected ").add(f.consumer_label)
        .add(" to call __dlpack__() again without ")
        .add(last->has_max_version ? "max_version" : last->dl_device_given ? "dl_device" : "copy")
        .add(" after the producer's TypeError but it gave up after ");
    call_text(w, *last);
    return;
  }
  // The keywords of the call that was answered (a retry after TypeError may drop them: VER-5).
  const bool fell_back = last != first;
  if (f.caller_copy >= 0) {
    if (last->copy >= 0 && last->copy != f.caller_copy) {
      auto w = out->set(FindingClass::keyword_not_passed_on, Rule::STRM_4);
      w.add("expected copy=").add(f.caller_copy == 1 ? "True" : "False")
          .add(" as the caller asked but found ");
      call_text(w, *last);
      return;
    }
    if (last->copy < 0 && !fell_back) {
      auto w = out->set(FindingClass::keyword_dropped, Rule::STRM_4);
      w.add("the caller asked copy=").add(f.caller_copy == 1 ? "True" : "False")
          .add(" but the consumer called ");
      call_text(w, *last);
      return;
    }
  }
  if (f.caller_device && last->dl_device_given &&
      (last->dl_device.device_type != f.caller_device_value.device_type ||
       last->dl_device.device_id != f.caller_device_value.device_id)) {
    auto w = out->set(FindingClass::keyword_not_passed_on, Rule::STRM_3);
    w.add("expected dl_device=(").num(f.caller_device_value.device_type).add(", ")
        .num(f.caller_device_value.device_id).add(") or None as the caller asked but found ");
    call_text(w, *last);
    return;
  }
}

void judge_write_through(const WriteThroughFacts& f, Finding* out) noexcept {
  out->clear();
  if (f.crossed_versioned && f.read_only_flag) {
    auto w = out->set(f.consumer_has_read_only ? FindingClass::read_only_made_writable
                                               : FindingClass::read_only_ignored);
    w.add("expected ").add(f.consumer_label)
        .add(" to keep a READ_ONLY import from being written but a write through it changed ")
        .add(f.producer_label).add("'s immutable data");
    return;
  }
  if (f.asked_versioned && f.producer_versioned) {
    auto w = out->set(FindingClass::producer_violation, Rule::FLAG_1B);
    w.add("expected ").add(f.producer_label)
        .add(", asked with max_version, to export its immutable data with READ_ONLY but it sent ")
        .add(f.crossed_versioned ? "a versioned capsule without the flag" : "a legacy dltensor")
        .add(", and a write through ").add(f.consumer_label).add(" changed it");
    return;
  }
  out->set(FindingClass::read_only_exported_legacy)
      .add("immutable data of ").add(f.producer_label).add(" crossed as a legacy dltensor, which ")
      .add("cannot say READ_ONLY, and a write through ").add(f.consumer_label).add(" changed it");
}

}  // namespace dlc
