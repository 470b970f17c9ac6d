// Shared by the fuzz targets: the fault handler, the guarded layout of a TensorInput and the
// judge's checks after a consumer ran (the plugin lookup is plugin_lookup.cpp). See
// fuzz_harness.hpp.
#include "fuzz_harness.hpp"

#include "known_bugs.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "abi.h"
#include "device_memory.hpp"
#include "fault.h"
#include "geometry.hpp"
#include "judge.h"
#include "phase.h"
#include "sanitizer_build.h"
#include "suppressions.h"
#include "validate.h"

#if DLC_HAS_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif
#if DLC_HAS_ASAN
#include <sanitizer/asan_interface.h>
#endif

// Present only when libFuzzer is linked in, which owns the sanitizers' death callback.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size)
    __attribute__((weak));
// Present only in the replay main: whether it fuzzes (--mutate) rather than replays.
extern "C" bool dlc_fuzz_mutating() __attribute__((weak));

namespace dlc_fuzz {

dlc::PartyRef g_under_test;

const dlc::PartyRef& under_test() { return g_under_test; }
void announce_under_test(const char* role, const dlc::LoadedPlugin& plugin) {
  g_under_test = {plugin.name(), plugin.header()};
  load_known_bugs();
  // Only when fuzzing (libFuzzer, or the replay main's --mutate): a replay's errors stay one line
  // each.
  if (LLVMFuzzerMutate == nullptr && (dlc_fuzz_mutating == nullptr || !dlc_fuzz_mutating())) {
    return;
  }
  std::fprintf(stderr, "dlconform fuzz: %s %s@%s: %s\n", role, plugin.name().c_str(),
               plugin.header().c_str(),
               plugin.table->description != nullptr ? plugin.table->description : "");
}
namespace {

const TensorInput* g_input = nullptr;
bool g_input_versioned = false;
dlc::Rule g_input_rule = dlc::Rule::none;

// "reproduce: DLCONFORM_CONSUMER=x /path/to/target", built before the first input so that the
// signal handler only writes it; the replay main names the file it is running.
char g_reproduce[1024] = "";
const char* g_input_file = nullptr;
// For a Python importer: the command before python_keywords() that hands the input's capsule to
// it, built through python/reproducers/dlconform_capsule.py, so that a finding is a reproducer in
// one step. Empty for a C importer.
std::string g_python_lead;
// set_input_extra's line and Python keywords, for the current input.
std::string g_extra_line;
std::string g_extra_keywords;

}  // namespace

const TensorInput* current_input() { return g_input; }
void set_input_rule(dlc::Rule rule) { g_input_rule = rule; }

namespace {
dlc::Rule g_input_broken[kMaxEdges];  // known_bug_of's list, bounded as its edge cases are
int g_input_broken_count = 0;
}  // namespace

void set_input_broken(const dlc::Rule* rules, int count) {
  g_input_broken_count = std::min(count, kMaxEdges);
  std::copy_n(rules, g_input_broken_count, g_input_broken);
}

namespace {

// Whether the input in flight breaks `rule` (a MUST rule that binds consumers too).
bool input_breaks(dlc::Rule rule) {
  return std::find(g_input_broken, g_input_broken + g_input_broken_count, rule) !=
         g_input_broken + g_input_broken_count;
}

// Whether print_finding says `f` is a hardening finding: a content fault on an input that breaks
// a rule.
bool hardening_by_input(const dlc::Finding& f) {
  return g_input_broken_count > 0 && dlc::is_content_fault(f.cls);
}

// Says that a finding of class `cls` is a hardening one: it came of a tensor that no `maker`
// makes, for the reason `why` (with `why_rule`, a rule's id, at its end).
void say_hardening(dlc::FindingClass cls, const char* maker, const char* why,
                   const char* why_rule = "") {
  char words[256];
  dlc::SafeText h(words, sizeof words);
  h.add("dlconform fuzz: hardening: ").add(dlc::name_of(cls)).add(" on a tensor no ").add(maker)
      .add(" makes (").add(why).add(why_rule).add("), not a conformance finding\n");
  write_stderr(words);
}

}  // namespace

void note_once(const dlc::Finding& f, const char* context) {
  static bool said[256] = {};
  const size_t index = static_cast<size_t>(f.cls) % std::size(said);
  if (said[index]) return;
  said[index] = true;
  std::fprintf(stderr, "dlconform fuzz: note (not a stop): %s [%s]: %s (%s)\n",
               dlc::name_of(f.cls), dlc::id_of(f.rule), f.words, context);
}

bool python_importer_under_test() { return !g_python_lead.empty(); }

void set_input_extra(const std::string& lead, const std::string& words,
                     const std::string& python_keywords) {
  g_extra_line = lead.empty() ? "" : "dlconform fuzz: " + lead + ": " + words + "\n";
  g_extra_keywords = python_keywords.empty() ? "" : ", " + python_keywords;
}

void write_stderr(const char* text) {
  ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void print_reproducer() {
  if (g_input != nullptr) {
    const std::string line = "dlconform fuzz: input: " + describe(*g_input, g_input_versioned) + "\n";
    write_stderr(line.c_str());
  }
  if (!g_extra_line.empty()) write_stderr(g_extra_line.c_str());
  if (g_input != nullptr && !g_python_lead.empty()) {
    const std::string line = "dlconform fuzz: python: " + g_python_lead +
                             python_keywords(*g_input, g_input_versioned) +
                             (g_input_versioned ? ", versioned=True" : "") + g_extra_keywords +
                             ")\"\n";
    write_stderr(line.c_str());
  }
  write_stderr("dlconform fuzz: ");
  write_stderr(g_reproduce);
  write_stderr(" ");
  write_stderr(g_input_file != nullptr ? g_input_file : "<the crash file libFuzzer writes below>");
  write_stderr("\n");
}

void print_finding(const dlc::Finding& f, const char* signal) {
  char line[768];
  dlc::SafeText t(line, sizeof line);
  t.add("dlconform fuzz: ").add(dlc::name_of(f.cls));
  if (f.rule != dlc::Rule::none) t.add(" [").add(dlc::id_of(f.rule)).add("]");
  t.add(": ");
  if (signal != nullptr) t.add(signal).add(": ");
  t.add(f.words).add("\n");
  write_stderr(line);
  // On an input no conformant producer makes, a content fault is the producer's doing: a
  // hardening finding, under the rule it broke (the finding's own where it is one of them).
  if (hardening_by_input(f)) {
    const dlc::Rule broken = input_breaks(f.rule) ? f.rule : g_input_broken[0];
    say_hardening(f.cls, "conformant producer", "the producer broke ", dlc::id_of(broken));
  }
}

namespace {

// Set once the words of a finding are out (a signal judged, a sanitizer's report named): the
// handlers chained to after them must not add a second, different finding.
volatile sig_atomic_t g_finding_said = 0;

// Whether the tensor in flight has no storage (an invalid host tensor: a 0-byte data block),
// and the rule that says why.
bool g_no_storage = false;
dlc::Rule g_no_storage_rule = dlc::Rule::LAY_10;

dlc::FaultFacts fault_facts(const dlc::SignalFacts& signal) {
  dlc::FaultFacts facts;
  facts.signal = signal;
  facts.block = dlc::host_facts(host(), signal.address);  // device memory too (DEV-3)
  // A read through the data of a tensor with no storage that lands in a block an earlier case
  // freed is a read of data that never existed (NumPy walking strides of [0, -1] backwards from
  // data - 4), not a stale pointer kept since that case. So is a read past the 0-byte block
  // itself. Either is out-of-bounds under the rule that leaves the tensor without storage:
  // TensorFlow reading a float32 of 0 lanes is DT-1's, as the matrix names it.
  if (g_no_storage && facts.block.found &&
      ((facts.block.state == dlc::BlockState::freed && facts.block.cases_ago > 0) ||
       (facts.block.kind == DLC_ALLOC_DATA && facts.block.state == dlc::BlockState::live &&
        facts.block.offset >= static_cast<int64_t>(facts.block.size)))) {
    facts.block.state = dlc::BlockState::no_storage;
  }
  facts.misaligned_data = g_input != nullptr && g_input->misalign % 16 != 0;
  facts.case_rule =
      facts.block.state == dlc::BlockState::no_storage ? g_no_storage_rule : g_input_rule;
  // Only a memory fault has an address (an abort's si_addr holds the sender's pid).
  const bool memory_fault = signal.signal == SIGSEGV || signal.signal == SIGBUS;
  if (memory_fault && !facts.block.found && g_input != nullptr && !in_child()) {
    const dlc::Rule by_field =
        wild_address_rule(*g_input, signal.address, signal.general_protection);
    if (by_field != dlc::Rule::none) facts.case_rule = by_field;
  }
  facts.where = dlc::g_phase.where;
  facts.plugin = dlc::g_phase.plugin;
  return facts;
}

// A touch of a shadow guard (guard.h): ASan reports it as a use of poisoned memory, and the arena
// and the judge name it as they name the page fault it stands for. False for any other report.
bool judged_shadow_guard() {
#if DLC_HAS_ASAN
  if (!host().arena.uses_shadow_guards() || __asan_report_present() == 0) return false;
  const char* description = __asan_get_report_description();
  if (description == nullptr || std::strcmp(description, "use-after-poison") != 0) return false;
  dlc::SignalFacts signal;
  signal.signal = SIGSEGV;
  signal.code = SEGV_ACCERR;
  signal.address = reinterpret_cast<uintptr_t>(__asan_get_report_address());
  signal.ip = reinterpret_cast<uintptr_t>(__asan_get_report_pc());
  signal.is_write = __asan_get_report_access_type() != 0;
  dlc::Finding f;
  dlc::judge_fault(fault_facts(signal), &f);
  if (in_child()) child_stop(f);
  print_finding(f);
  print_reproducer();
  return true;
#else
  return false;
#endif
}

}  // namespace

void on_sanitizer_death() {
  if (in_child()) {
    judged_shadow_guard();  // stops the child when it was a guard
    dlc::Finding f;
    f.set(dlc::FindingClass::sanitizer_report, child_known_rule())
        .add("a sanitizer stopped the process in ").add(dlc::g_phase.where).add(" of ")
        .add(dlc::g_phase.plugin);
    child_stop(f);
  }
  if (g_finding_said != 0) return;  // our signal handler judged it, then chained to the sanitizer's
  g_finding_said = 1;
  if (judged_shadow_guard()) return;
  // An access a NULL field explains (NumPy's memcpy from NULL data + byte_offset, which ASan's
  // interceptor reports before any fault) is named under that field's rule.
  dlc::Rule rule = dlc::Rule::none;
#if DLC_HAS_ASAN
  if (__asan_report_present() != 0 && g_input != nullptr) {
    // A size that came out negative or past any allocation (MLX's memmove, or its malloc, of a
    // span it computes unchecked) has no address a field explains: the storage size overflowed,
    // LAY-10, when the input's does. gcc's ASan reports MLX's as the first, clang's as the second.
    const char* description = __asan_get_report_description();
    if (description != nullptr && (std::strcmp(description, "negative-size-param") == 0 ||
                                   std::strcmp(description, "allocation-size-too-big") == 0 ||
                                   std::strcmp(description, "calloc-overflow") == 0)) {
      rule = input_breaks(dlc::Rule::LAY_10) ? dlc::Rule::LAY_10 : dlc::Rule::none;
    } else {
      rule = wild_address_rule(*g_input,
                               reinterpret_cast<uintptr_t>(__asan_get_report_address()), false);
    }
  }
#endif
  write_stderr("dlconform fuzz: sanitizer-report");
  if (rule != dlc::Rule::none) {
    write_stderr(" [");
    write_stderr(dlc::id_of(rule));
    write_stderr("]");
  }
  write_stderr(": a sanitizer stopped the process in ");
  write_stderr(dlc::g_phase.where);
  write_stderr(" of ");
  write_stderr(dlc::g_phase.plugin);
  write_stderr(" (report above)\n");
  print_reproducer();
}

namespace {

[[maybe_unused]] void on_asan_report(const char*) { on_sanitizer_death(); }

// The blocks of the tensor in flight; the fuzzer's deleter frees them (LIFE-5), so a touch after
// it faults (LIFE-6).
void* g_blocks[6];
int g_block_count = 0;

struct sigaction g_previous_segv, g_previous_bus;
// The signals an abort raises (abort(), std::terminate, __builtin_trap, a division by zero), and
// the handlers before ours (libFuzzer's crash dump, a sanitizer's), to chain to.
constexpr int kAbortSignals[] = {SIGABRT, SIGILL, SIGFPE, SIGTRAP};
struct sigaction g_previous_abort[std::size(kAbortSignals)];

void* keep(void* block) {
  if (block != nullptr) g_blocks[g_block_count++] = block;
  return block;
}

template <class Managed>
void fuzz_deleter(Managed* self) {
  // A second call (or a call on a pointer never handed out) is recorded and touches nothing.
  if (!host().ledger.deleter_called(self)) return;
  dlc::GuardArena::Batch batch(host().arena);  // closed together when the deleter returns
  for (int i = 0; i < g_block_count; ++i) host().arena.free(g_blocks[i]);
}

// The deleters have the real DLPack types, the ones consumers call them through: clang's
// -fsanitize=function checks the function type at every indirect call. They are stored in the
// harness's mirror structs, which have the same layout (asserted in abi.h).
void versioned_deleter_impl(DLManagedTensorVersioned* self) { fuzz_deleter(self); }
void legacy_deleter_impl(DLManagedTensor* self) { fuzz_deleter(self); }
auto versioned_deleter() {
  return reinterpret_cast<void (*)(dlc::abi::ManagedTensorVersioned*)>(versioned_deleter_impl);
}
auto legacy_deleter() {
  return reinterpret_cast<void (*)(dlc::abi::ManagedTensor*)>(legacy_deleter_impl);
}

void on_fault(int sig, siginfo_t* info, void* context) {
  dlc::Finding f;
  dlc::judge_fault(fault_facts(dlc::decode_signal(sig, info, context)), &f);
  if (in_child()) child_stop(f);
  g_finding_said = 1;
  print_finding(f);
  print_reproducer();
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus, nullptr);
  raise(sig);
}

// Whether a sanitizer has reported: with abort_on_error it aborts after its report, which is the
// finding, not an abort of the plugin.
bool sanitizer_reported() {
#if DLC_HAS_ASAN
  if (__asan_report_present() != 0) return true;
#endif
  return g_finding_said != 0;
}

// SIGABRT, SIGILL, SIGFPE, SIGTRAP: judged, as the matrix's worker judges them, only while a
// plugin's code runs; the harness's own abort (die(), after its words) and a sanitizer's go
// straight to the handler before ours.
void on_abort(int sig, siginfo_t* info, void* context) {
  // In a child, every abort is named (and ends it there).
  if (in_child() || (dlc::g_phase.party != dlc::Party::harness && !sanitizer_reported())) {
    dlc::Finding f;
    dlc::judge_fault(fault_facts(dlc::decode_signal(sig, info, context)), &f);
    if (in_child()) child_stop(f);
    g_finding_said = 1;
    print_finding(f, dlc::signal_name(sig));
    print_reproducer();
  }
  for (size_t i = 0; i < std::size(kAbortSignals); ++i) {
    if (kAbortSignals[i] == sig) sigaction(sig, &g_previous_abort[i], nullptr);
  }
  // A fault of the CPU (si_code > 0) recurs on return, with its own context for the handler
  // before ours; abort() and raise() must be sent again (abort() would reset to the default
  // handler, past libFuzzer's), and so must a trap, which returns past its instruction.
  if ((sig == SIGILL || sig == SIGFPE) && info != nullptr && info->si_code > 0) return;
  raise(sig);
}

// The fill pattern of every backed storage, computed once: a build copies it.
const uint8_t* fill_pattern() {
  static const uint8_t* pattern = [] {
    auto* bytes = new uint8_t[kMaxBackedBytes];
    for (uint64_t i = 0; i < kMaxBackedBytes; ++i) bytes[i] = dlc_fill_byte(kFillSeed, i, 0);
    return bytes;
  }();
  return pattern;
}

// The geometry of the last filled build, for expected_data(), and its memo per input.
struct LastFill {
  dlc::geo::Geometry g;
  int64_t ndim = 0;
  int64_t shape[kMaxBackedNdim];
  int64_t strides[kMaxBackedNdim];
  bool strides_given = false;
  uint64_t origin = 0;  // of the first element, from the start of the storage
  uint64_t input_serial = 0;  // of the input `data` was worked out for (0: none yet)
  ExpectedData data;
} g_last_fill;
uint64_t g_input_serial = 0;

}  // namespace

DLC_NO_COVERAGE ExpectedData expected_data(const Built& built) {
  LastFill& f = g_last_fill;
  if (!built.digest_known) return {};
  if (f.input_serial == g_input_serial) return f.data;
  f.data.digest = dlc::geo::digest(f.g, f.ndim, f.shape, f.strides_given ? f.strides : nullptr,
                                   fill_pattern() + f.origin, &f.data.elements);
  f.input_serial = g_input_serial;
  return f.data;
}

dlc::HostState& host() { return dlc::process_host(); }

namespace {

// The Python line: the library's variables, and dlconform_fuzz_importer.replay() called with the
// input's keywords (print_reproducer adds them): the same importer, exporter and read-back as the
// fuzz target's, without the harness.
void set_python_reproducer() {
  std::string words;
  for (const char* name : {"DLCONFORM_PYTHON_MODULE", "DLCONFORM_PYTHON_ADAPTER",
                           "DLCONFORM_PYTHON_IMPORTER"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') words += std::string(name) + "=" + value + " ";
  }
  if (words.empty()) return;  // a C importer
  // dlconform_capsule.py backs a capsule with host memory: a CUDA input needs the target's
  // device memory, so the reproduce line (the input file) is the way to replay it.
  if (device_memory_on()) return;
  const char* python = std::getenv("DLCONFORM_PYTHON");
  g_python_lead = words + "PYTHONPATH=fuzz/python_importer:python:python/reproducers " +
                  (python != nullptr && *python != '\0' ? python : "python3") +
                  " -c \"import dlconform_fuzz_importer as f; f.replay(";
}

}  // namespace

void install_fault_handler() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  dlc::refresh_code_ranges();
  std::string command = "reproduce:";
  for (const char* name : {"DLCONFORM_PLUGIN", "DLCONFORM_CONSUMER", "DLCONFORM_PRODUCER",
                           "DLCONFORM_LEVEL", "DLCONFORM_PLUGIN_DIR", "DLCONFORM_PYTHON",
                           "DLCONFORM_PYTHON_MODULE", "DLCONFORM_PYTHON_ADAPTER",
                           "DLCONFORM_PYTHON_IMPORTER", "DLCONFORM_FUZZ_DEVICE_MEMORY",
                           "DLCONFORM_FUZZ_CUDART"}) {
    if (const char* value = std::getenv(name)) command += std::string(" ") + name + "=" + value;
  }
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  command += " " + (ec ? std::string("<fuzz target>") : exe);
  std::snprintf(g_reproduce, sizeof g_reproduce, "%s", command.c_str());
  set_python_reproducer();
  // The words go after the sanitizer's report. libFuzzer's own death callback writes the crash
  // file and must not be replaced: under libFuzzer, hook ASan's report instead.
#if DLC_HAS_SANITIZER
  if (LLVMFuzzerMutate == nullptr) __sanitizer_set_death_callback(on_sanitizer_death);
#endif
#if DLC_HAS_ASAN
  if (LLVMFuzzerMutate != nullptr) __asan_set_error_report_callback(on_asan_report);
#endif
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous_segv);
  sigaction(SIGBUS, &action, &g_previous_bus);
  action.sa_sigaction = on_abort;
  for (size_t i = 0; i < std::size(kAbortSignals); ++i) {
    sigaction(kAbortSignals[i], &action, &g_previous_abort[i]);
  }
}

void set_current_input(const TensorInput* in, bool versioned) {
  if (in != nullptr) ++g_input_serial;  // a new input: the expected data is worked out afresh
  g_input = in;
  g_input_versioned = versioned;
  g_input_rule = in != nullptr ? rule_exercised(*in) : dlc::Rule::none;
  set_input_broken(nullptr, 0);  // until the validator has judged it (known_bug_of)
}

void die(const dlc::Finding& finding) {
  if (is_known(finding.rule)) {
    say_known_once(finding.rule, "", finding.words);  // then the fuzzer looks for others
    return;
  }
  if (in_child()) child_stop(finding);
  print_finding(finding);
  print_reproducer();
  std::abort();
}

DLC_NO_COVERAGE Built build_tensor(const TensorInput& in, bool versioned,
                                         uint32_t consumer_major, bool fill) {
  Built b;
  if (in.ndim > kMaxBackedNdim) {
    b.skipped = true;
    return b;
  }
  const bool device_backed = device_memory_on();
  if (device_backed) release_device_memory();  // the last input's: its importer has let go
  host().reset();
  g_block_count = 0;
  dlc::GuardArena& arena = host().arena;
  // Where `data` points, and how much storage backs it: the plan fuzz-show-input rebuilds too.
  const StoragePlan plan = plan_storage(in, versioned, device_backed);
  if (plan.kind == StoragePlan::kSkipped) {
    b.skipped = true;
    return b;
  }
  const dlc::geo::Geometry& g = plan.geometry;
  const bool strides_given = !(in.layout & kStridesNull);
  const size_t dims = in.ndim > 0 ? static_cast<size_t>(in.ndim) : 0;
  // Static, as the harness builds one tensor at a time: in a frame, 16 KiB of arrays cost ASan a
  // clear of their shadow on every return.
  static int64_t shape[kMaxBackedNdim];
  static int64_t strides[kMaxBackedNdim];
  for (size_t i = 0; i < dims; ++i) {
    shape[i] = in.extent(static_cast<int64_t>(i));
    strides[i] = in.stride(static_cast<int64_t>(i));
  }
  const uint64_t byte_offset = plan.byte_offset;
  uint8_t* data = nullptr;
  uint8_t* data_block = nullptr;
  if (plan.kind == StoragePlan::kBacked) {
    data_block = static_cast<uint8_t*>(keep(arena.alloc(plan.bytes, 1, DLC_ALLOC_DATA)));
    if (fill && data_block != nullptr) std::memcpy(data_block, fill_pattern(), plan.bytes);
    data = data_block + plan.data_offset;
    b.data_backed = !plan.on_device || dlc::abi::is_host_accessible(in.device.device_type);
    if (plan.on_device) {  // the same bytes in CUDA memory: the host block stays the reference
      data = static_cast<uint8_t*>(copy_to_device(data_block, plan.bytes, in.device.device_type,
                                                  host().devices)) +
             plan.data_offset;
    }
    if (fill) {
      LastFill& f = g_last_fill;
      f.g = g;
      f.ndim = in.ndim;
      std::memcpy(f.shape, shape, 8 * dims);
      f.strides_given = strides_given && !g.packed_subbyte;
      if (f.strides_given) std::memcpy(f.strides, strides, 8 * dims);
      f.origin = plan.data_offset + byte_offset;
      b.digest_known = true;
    }
  } else if (plan.kind == StoragePlan::kNull) {
    data = nullptr;
  } else if (plan.kind == StoragePlan::kDevice) {
    data = static_cast<uint8_t*>(arena.device_poison(4096));  // DEV-3: never read on the host
  } else if (plan.on_device) {
    // invalid: nothing to read
    data = static_cast<uint8_t*>(copy_to_device(nullptr, 0, in.device.device_type,
                                                host().devices));
  } else {
    data = static_cast<uint8_t*>(keep(arena.alloc(0, 1, DLC_ALLOC_DATA)));  // invalid: nothing
  }
  g_no_storage = plan.kind == StoragePlan::kEmpty;
  // Why it has none: a negative ndim (LAY-1: no axes to count, dpnp reads its value from
  // range(-1)), an element of no bytes (DT-1: lanes or bits of 0), else a storage size that
  // overflows or a negative extent (LAY-10). A read through it is named by that, whatever else
  // the input breaks first (torch reading NULL strides of an overflowing shape is LAY-10's).
  g_no_storage_rule = in.ndim < 0                                  ? dlc::Rule::LAY_1
                      : in.dtype.lanes == 0 || in.dtype.bits == 0 ? dlc::Rule::DT_1
                                                                  : dlc::Rule::LAY_10;

  dlc::abi::Tensor t{};
  t.data = data;
  t.device = in.device;
  t.ndim = in.ndim;
  t.dtype = in.dtype;
  t.byte_offset = byte_offset;
  if (!(in.layout & kShapeNull)) {
    t.shape = static_cast<int64_t*>(keep(arena.alloc(8 * dims, 8, DLC_ALLOC_SHAPE)));
    if (dims > 0) std::memcpy(t.shape, shape, 8 * dims);
  }
  if (strides_given) {
    t.strides = static_cast<int64_t*>(keep(arena.alloc(8 * dims, 8, DLC_ALLOC_STRIDES)));
    if (dims > 0) std::memcpy(t.strides, strides, 8 * dims);
  }
  b.deleter_null = (in.layout & kDeleterNull) != 0;
  dlc::abi::StructKind kind = dlc::abi::StructKind::legacy;
  if (versioned && in.version.major != consumer_major) {
    dlc::abi::FrozenHead head{in.version, nullptr, b.deleter_null ? nullptr : versioned_deleter()};
    void* m = keep(arena.alloc(sizeof head, 8, DLC_ALLOC_STRUCT));
    std::memcpy(m, &head, sizeof head);
    b.managed = m;
    kind = dlc::abi::StructKind::foreign_major;
  } else if (versioned) {
    auto* m = static_cast<dlc::abi::ManagedTensorVersioned*>(
        keep(arena.alloc(sizeof(dlc::abi::ManagedTensorVersioned), 8, DLC_ALLOC_STRUCT)));
    m->version = in.version;
    m->manager_ctx = nullptr;
    m->deleter = b.deleter_null ? nullptr : versioned_deleter();
    m->flags = in.flags;
    m->dl_tensor = t;
    b.managed = m;
    kind = dlc::abi::StructKind::versioned;
  } else {
    auto* m = static_cast<dlc::abi::ManagedTensor*>(
        keep(arena.alloc(sizeof(dlc::abi::ManagedTensor), 8, DLC_ALLOC_STRUCT)));
    m->dl_tensor = t;
    m->manager_ctx = nullptr;
    m->deleter = b.deleter_null ? nullptr : legacy_deleter();
    b.managed = m;
  }
  arena.tag_struct(b.managed, kind);
  if (versioned && (in.flags & dlc::abi::kFlagReadOnly) && data_block != nullptr &&
      !plan.on_device) {
    arena.protect_read_only(data_block);  // FLAG-1: a write faults
  }
  host().ledger.produced(b.managed);
  b.handoff = {versioned ? "dltensor_versioned" : "dltensor", b.managed};
  return b;
}

Outcome run_consumer(const dlc::LoadedPlugin& consumer, Built& built) {
  const Outcome out = hand_to(consumer, built);
  judge_outcome(consumer, built, out);
  return out;
}

Outcome hand_to(const dlc::LoadedPlugin& consumer, Built& built) {
  Outcome out;
  const char* who = label(consumer);
  const char* const offered = built.handoff.name;
  DLCRequest request{};
  request.has_max_version = consumer.table->has_max_version;
  request.max_version = consumer.table->max_version;
  request.copy = -1;
  if (g_input != nullptr) {  // what was made, as the matrix's request says it (dtype, ndim)
    request.tensor.dtype = g_input->dtype;
    request.tensor.ndim = g_input->ndim;
  }
  {
    dlc::ScopedPhase phase("consume()", who, dlc::Party::consumer);
    out.rc = consumer.table->consume(consumer.state, &built.handoff, &request, &out.obs, out.error,
                                     sizeof out.error);
  }
  if (consumer.table->release != nullptr) {
    dlc::ScopedPhase phase("release()", who, dlc::Party::consumer);
    consumer.table->release(consumer.state);
  }
  out.error[sizeof out.error - 1] = '\0';
  const char* name = built.handoff.name;
  out.taken = name != nullptr && std::strncmp(name, "used_", 5) == 0;
  out.offered = offered;
  return out;
}

namespace {

// Whether the input in flight is a CUDA tensor that device memory does not back (one on a
// device other than 0).
bool unbacked_device() {
  return g_input != nullptr && dlc::abi::is_cuda_memory(g_input->device.device_type) &&
         !device_memory_backs(*g_input);
}

}  // namespace

void judge_outcome(const dlc::LoadedPlugin& consumer, const Built& built, const Outcome& out) {
  const char* who = label(consumer);
  if (device_memory_on()) {
    // Device memory has no guard pages: a kernel or copy outside the tensor's memory shows as an
    // error the runtime keeps, which also leaves the process unable to go on.
    if (const char* fault = device_fault()) {
      const bool unbacked = unbacked_device();
      dlc::Finding f;
      if (std::strstr(fault, "Misaligned") != nullptr) {
        // A device load at an address its width does not divide: the importer relied on an
        // alignment the tensor's data need not have (LAY-9), inside the memory it was given.
        f.set(dlc::FindingClass::misaligned_access)
            .add("expected an alignment check before a device access but found ").add(fault)
            .add(" after ").add(who).add(" imported the tensor");
      } else if (unbacked) {
        // The tensor names a CUDA device the harness gives no memory on: its data is a pointer
        // no device owns. Reading it on a device the importer has means it took the tensor for
        // that device's (torch narrows device_id to its 8-bit device index).
        f.set(dlc::FindingClass::out_of_bounds, dlc::Rule::DEV_3)
            .add("the CUDA runtime reported ").add(fault).add(" after ").add(who)
            .add(" imported a tensor on CUDA device ").num(g_input->device.device_id)
            .add(", which has no memory here (device 0 only): it read the data pointer on a ")
            .add("device it has instead of refusing the tensor");
      } else {
        f.set(dlc::FindingClass::out_of_bounds, g_input_rule)
            .add("the CUDA runtime reported ").add(fault).add(" after ").add(who)
            .add(" imported the tensor: a device read or write outside the memory it was given");
      }
      f.role = dlc::Role::consumer;
      print_finding(f);
      // Hardening too, said once: print_finding has said so where the input also breaks a rule.
      if (unbacked && !hardening_by_input(f)) {
        say_hardening(f.cls, "producer here", "it names a CUDA device with no memory");
      }
      print_reproducer();
      std::abort();
    }
  }
  const char* const offered = out.offered;
  const char* name = built.handoff.name;
  const dlc::DeleterLedger& ledger = host().ledger;
  const dlc::DeleterLedger::Entry* entry = ledger.find(built.managed);
  // The deleter may run on a thread of the importer's own (LIFE-7): JAX's runtime releases an
  // imported buffer a moment after the array dies. An import taken and released but not deleted
  // yet gets up to 200 ms, as the matrix gives it, before it counts as a leak.
  if (out.rc == DLC_OK && out.taken && !built.deleter_null && entry != nullptr) {
    for (int waited_us = 0; __atomic_load_n(&entry->calls, __ATOMIC_ACQUIRE) == 0 &&
                            waited_us < 200000;
         waited_us += 100) {
      usleep(100);
    }
  }
  dlc::LifecycleFacts lf;
  lf.offered_name = offered;
  lf.name_after = name;
  lf.imported = out.rc == DLC_OK;
  lf.consumer_error = out.error;
  lf.deleter_expected = !built.deleter_null;
  lf.consumer_calls = entry != nullptr ? entry->calls : 0;
  lf.first_call_where = entry != nullptr ? entry->where[0] : nullptr;
  lf.second_call_where = entry != nullptr ? entry->where[1] : nullptr;
  lf.stray_calls = ledger.stray_calls();
  lf.stray_where = ledger.stray_where();
  lf.consumer_label = who;
  lf.other_major = g_input != nullptr && g_input_versioned && g_input->version.major != 1;
  dlc::Finding f;
  dlc::judge_lifecycle(lf, &f);
  if (f.fails()) die(f);
  dlc::ImportFacts imp;
  imp.rc = out.rc;
  imp.consumer_error = out.error;
  imp.observation = &out.obs;
  // Only an import is compared with the data.
  if (built.digest_known && out.rc == DLC_OK && !out.obs.data_not_read) {
    const ExpectedData expected = expected_data(built);
    imp.digest_known = true;
    imp.digest = expected.digest;
    imp.elements = expected.elements;
  }
  imp.consumer_label = who;
  dlc::judge_import(imp, &f);
  if (f.fails()) die(f);
}

void note_device_refusal(const dlc::LoadedPlugin& consumer, const TensorInput& in,
                         const Outcome& out) {
  if (out.rc != DLC_ERR_BUFFER || !python_importer_under_test()) return;
  const DLCProfile* declared = consumer.declared_profile();
  if (declared == nullptr || dlc::takes_device(dlc::profile_from_table(*declared),
                                               in.device.device_type)) {
    return;
  }
  dlc::DeviceRefusalFacts facts;
  facts.device_type = in.device.device_type;
  facts.consumer_error = out.error;
  facts.buffer_error = std::strncmp(out.error, "BufferError", 11) == 0;
  facts.consumer_label = label(consumer);
  dlc::Finding f;
  dlc::judge_device_refusal(facts, &f);
  if (f.any()) note_once(f, describe(in, g_input_versioned).c_str());
}

bool inside_profile(const dlc::Profile& consumer, const TensorInput& in, bool versioned) {
  if (in.ndim < 0 || in.ndim > DLC_MAX_NDIM) return false;
  if (versioned && (consumer.features & DLC_FEATURE_LEGACY_STRUCT_ONLY)) return false;
  dlc::TensorCase t;
  DLCTensorSpec& s = t.spec;
  s.dtype = in.dtype;
  s.ndim = in.ndim;
  for (size_t i = 0; i < static_cast<size_t>(in.ndim) && i < DLC_MAX_NDIM; ++i) {
    s.shape[i] = in.extent(static_cast<int64_t>(i));
    s.strides[i] = in.stride(static_cast<int64_t>(i));
  }
  s.has_strides = (in.layout & kStridesNull) == 0;
  s.misalign = in.misalign;
  s.byte_offset = in.byte_offset % 4096;  // as build_tensor backs it
  s.device = in.device;
  if (versioned && (in.flags & dlc::abi::kFlagReadOnly)) s.options |= DLC_SPEC_READ_ONLY;
  s.extra_flags = versioned ? in.flags & ~dlc::abi::kKnownFlags : 0;
  return dlc::consumer_supports(consumer, t);
}

}  // namespace dlc_fuzz

// Called by the replay main before each file, so that a finding names the file to replay.
extern "C" void dlc_fuzz_set_input_file(const char* path) { dlc_fuzz::g_input_file = path; }
