// What every dlconform fuzz target shares: finding plugins, the fault handler, the guarded layout
// of a TensorInput, and the hand-off to a consumer. Every verdict comes from the judge
// (harness/judge), so a defect gets the same class and rule here as in the matrix. A finding is
// printed in words first ("dlconform fuzz: <class> [<rule>]: <words>"), then the input and the
// command that replays it; abort() or the re-raised signal then lets libFuzzer (or the replay
// main) record the crash.
#pragma once

#include <cstdint>
#include <string>

#include "dlconform/plugin.h"
#include "finding.h"
#include "host.h"
#include "plugin_loader.h"
#include "profile.h"
#include "tensor_input.hpp"

namespace dlc_fuzz {

// The harness state every plugin of this process was created with.
dlc::HostState& host();

// One line saying what is under test, "dlconform fuzz: consumer NAME@HEADER: DESCRIPTION"
// (tools/fuzz-campaign reads the version from it); printed under libFuzzer only.
void announce_under_test(const char* role, const dlc::LoadedPlugin& plugin);

// "dlc-<name>.so" of a built-in plugin, looked up in $DLCONFORM_PLUGIN_DIR, then a
// dlconform-plugins folder next to the executable (an OSS-Fuzz $OUT), then the build tree's
// consumers/, consumers/zoo/ and producers/ (or the installed plugin folder). Exits with status 1
// and one line naming the folders searched when there is none.
std::string builtin_plugin_path(const std::string& name);

// Loads `path` and calls create(); on failure prints why and exits with status 1 (a set-up
// error, not a finding).
dlc::LoadedPlugin load_or_exit(const std::string& path, uint32_t role);

// $OUT/dlconform-plugins/dlc-adapter.so next to the executable (a framework's adapter built in by
// tools/oss-fuzz-build.sh), or "" when there is none.
std::string adapter_beside_executable();

// The consumer under test: $DLCONFORM_PLUGIN (a path), else the built-in $DLCONFORM_CONSUMER,
// else the adapter beside the executable, else `default_name`.
dlc::LoadedPlugin load_consumer_under_test(const char* default_name);
// The arena's guards (guard.h): ASan's shadow where every reader is compiled with this target's
// sanitizers (the built-in consumers) and the build has ASan, pages otherwise, or always pages
// with DLCONFORM_GUARDS=pages. Call before the first tensor is built.
void choose_guards(bool every_reader_instrumented);

// "planted-oob-shape@v1.3", kept for the life of the process (the phase points at it).
const char* label(const dlc::LoadedPlugin& plugin);

// SIGSEGV/SIGBUS: judge the fault, print the words, then hand the signal on to whoever handled
// it before (libFuzzer's crash dump) or die. Call from every input: only the first call installs
// (after libFuzzer has installed its own handlers, so ours runs first).
void install_fault_handler();

// The input being run, for the words of a finding.
void set_current_input(const TensorInput* in, bool versioned);

// Prints the finding and the current input, then aborts; unless $DLCONFORM_KNOWN (a suppression
// file) lists the finding's rule for the plugin under test: then it says so once and returns.
void die(const dlc::Finding& finding);

// The rule a touch of a wild address breaks, where the input's NULL pointers explain it: element
// i of a NULL shape or NULL strides lies at 8 * i, and a NULL data's elements around
// byte_offset. Named by the field, not by the input's rule, so that one bug is one finding
// however the fuzzer reached it. Rule::none where no NULL field explains the address. A
// general-protection fault (a non-canonical pointer, whose address the kernel reports as 0) is
// LAY-4 for a byte_offset of 2^47 or more, LAY-10 for elements 2^47 bytes or more from the
// first, else Rule::none.
dlc::Rule wild_address_rule(const TensorInput& in, uintptr_t address, bool general_protection);

// The rule a fuzz input exercises, for findings that carry their case's rule (a rejected valid
// tensor): the same rule the matrix's catalogue gives a tensor of that shape.
dlc::Rule rule_exercised(const TensorInput& in);

// The valid edge cases the input exercises, each a rule a known bug may name, whatever else it
// has (a padded flag does not hide the negative stride that aborts torch): more than kManyDims
// dimensions (LAY-1: a rank limit; TensorFlow aborts past 254), a storage size of
// 2^63 bytes or more (LAY-10's band, which a consumer may refuse), NULL strides (LAY-5), 0-d
// (LAY-6), zero-size (LAY-7), LAY-8's strides (0 or less on an extent above 1; on an extent-1
// dimension, any other than the row-major compact one), misalignment (LAY-9), a NULL deleter
// (LIFE-4: JAX refuses one), device memory (DEV-3), in that order; rule_exercised takes the
// first. Returns how many, at most kMaxEdges.
constexpr int kMaxEdges = 10;
// More dimensions than this is an edge case of its own (LAY-1): NumPy 1.x takes 32.
constexpr int64_t kManyDims = 32;
int valid_edges(const TensorInput& in, dlc::Rule* out);

// A TensorInput laid out in exact-size guarded blocks.
struct Built {
  bool skipped = false;  // valid, but too large to back with memory within a fuzzing budget
  DLCHandoff handoff{};  // "dltensor" or "dltensor_versioned"
  void* managed = nullptr;
  bool deleter_null = false;
  bool data_backed = false;  // host memory that a reader may walk
  // With `fill`: what a correct reader reports (LAY-4) can be known; expected_data() works it
  // out when a judge needs it.
  bool digest_known = false;
};

// What a correct reader of the last tensor build_tensor filled reports: dlc_digest over every
// element in logical row-major order (or over the packed bytes of a sub-byte type), read from
// the fill pattern. Computed on first use for an input (only an import needs it), once for all
// the consumers of a differential input.
struct ExpectedData {
  uint64_t digest = 0;
  uint64_t elements = 0;
};
ExpectedData expected_data(const Built& built);

// Lays `in` out as a DLManagedTensorVersioned (`versioned`) or DLManagedTensor. Every array is
// its own exact-size block ending at a guard page; shape and strides hold exactly ndim entries;
// a valid host tensor's data spans exactly what its geometry reaches (and is write-protected if
// READ_ONLY is set); an invalid one gets a 0-byte data block; a non-CPU one a pointer that faults
// on any host access. A versioned struct whose major differs from `consumer_major` has only
// version, manager_ctx and deleter (VER-2: nothing else may be touched). With `fill`, the storage
// holds the dlc_fill_byte pattern so that a misread changes the digest. Resets the host first.
Built build_tensor(const TensorInput& in, bool versioned, uint32_t consumer_major, bool fill);

// Counts an input (call once per input, first thing). At exit the process says how many inputs
// had a known bug, how many of those ran in a child and how many were left out, and appends the
// counts to $DLCONFORM_FUZZ_STATS when set (tools/fuzz-campaign sums them).
void count_input();

// The rule of a known bug ($DLCONFORM_KNOWN) this input would run into in `consumer`: one of its
// MUST violations that the importer is known to accept, or, for a valid tensor, a valid edge
// case it exercises (NULL strides, 0-d, zero-size, negative or zero strides, misalignment: LAY-5
// to LAY-9) that the importer is known to mishandle, such as torch's abort on negative strides.
// Rule::none otherwise, and for the rule a replay of a filed finding must show.
// With `valid`: whether the tensor breaks no MUST rule that binds consumers (the same validation).
dlc::Rule known_bug_of(const dlc::LoadedPlugin& consumer, const Built& built,
                       bool* valid = nullptr);

// Hands an input with a known bug to `consumer` without letting the bug end this process: in a
// forked child while children have taken less than $DLCONFORM_KNOWN_CHILDREN of the time (a
// share from 0 to 1; default 0.1 under libFuzzer, 1 in a replay), else the input is left out.
// Coverage comes only from the inputs run in this process. A finding in the child that the known
// bug does not explain (another rule) stops this process as if it had been found here.
void run_known(const dlc::LoadedPlugin& consumer, Built& built, dlc::Rule known);

// Whether the input lies inside what a consumer's capability profile declares it takes (its
// dtypes, devices, strides, features, max_ndim; read-only data when it needs write access; no
// unknown flag bits): only there must it import a valid tensor, as in the matrix.
bool inside_profile(const dlc::Profile& consumer, const TensorInput& in, bool versioned);

// What a consumer did with a hand-off.
struct Outcome {
  int rc = DLC_ERR_INTERNAL;
  bool taken = false;  // renamed the capsule to used_* (LIFE-1)
  const char* offered = nullptr;  // the capsule name handed over
  DLCObservation obs{};
  char error[512] = {};
};

// Hands `built` to `consumer` (consume, then release), then has the judge check the lifecycle
// (LIFE-1, LIFE-3) and, when the consumer imported a host tensor whose digest is known, the data
// (LAY-4). Dies in words on a finding.
Outcome run_consumer(const dlc::LoadedPlugin& consumer, Built& built);
// run_consumer's two halves: the hand-off alone, and the judgement of what it did.
Outcome hand_to(const dlc::LoadedPlugin& consumer, Built& built);
void judge_outcome(const dlc::LoadedPlugin& consumer, const Built& built, const Outcome& out);

// A SHOULD or INFO finding: said once per class for the process, with `context` (the input in
// words), never a stop: a fuzz target stops on MUST findings only.
void note_once(const dlc::Finding& finding, const char* context);

// Whether the consumer under test is a Python library's importer (the python-importer plugin).
bool python_importer_under_test();

// After a consumer was handed a valid tensor `in`: where it is a Python importer that refused it
// on a device outside its profile, the exception's name is judged (DEV-3: BufferError
// recommended) and said as a note.
void note_device_refusal(const dlc::LoadedPlugin& consumer, const TensorInput& in,
                         const Outcome& out);

// What a finding says of the input besides the tensor, for a target whose input has more (the
// protocol around a Python capsule): a line "dlconform fuzz: <lead>: <words>" after the input
// line, and keywords added to the Python line ("protocol=b'...'"). Empty strings: none.
void set_input_extra(const std::string& lead, const std::string& words,
                     const std::string& python_keywords);

// The body of both import targets: decode, lay out as a versioned or a legacy struct, hand to
// `consumer`, check. A versioned struct of any major but the consumer's own (1 for a 0.x
// consumer) is foreign to it (VER-2).
void import_one(const dlc::LoadedPlugin& consumer, const uint8_t* data, size_t size,
                bool versioned);

}  // namespace dlc_fuzz

// The libFuzzer entry points of an import target: the consumer under test loaded once, every
// input through import_one(), the edge-value mutator aimed at the consumer's own version.
#define DLC_FUZZ_IMPORT_TARGET(versioned)                                                        \
  namespace {                                                                                   \
  dlc::LoadedPlugin g_consumer;                                                                 \
  }                                                                                             \
  extern "C" size_t dlc_fuzz_max_input_bytes() { return dlc_fuzz::kMaxInputBytes; }             \
  extern "C" int LLVMFuzzerInitialize(int*, char***) {                                          \
    g_consumer = dlc_fuzz::load_consumer_under_test("strict-consumer-v1_3");                    \
    return 0;                                                                                   \
  }                                                                                             \
  extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {                     \
    dlc_fuzz::import_one(g_consumer, data, size, versioned);                                    \
    return 0;                                                                                   \
  }                                                                                             \
  extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,        \
                                            unsigned int seed) {                                \
    return dlc_fuzz::custom_mutate(data, size, max_size, seed,                                  \
                                   {g_consumer.table->dlpack_version, false});                  \
  }
