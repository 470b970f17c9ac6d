// The judge: every verdict of the matrix, the fuzz targets and the Python bridge comes from here.
// Each part takes the facts one exchange produced and returns at most one Finding {class, rule,
// words}; none allocates, and judge_fault() is async-signal-safe.
//
//   judge_handoff    what a producer handed over for a request: the capsule, the version it chose
//                    (VER-4, VER-1), the flags the request implies (FLAG-1b, FLAG-2), LAY-5, the
//                    reference validator, and every field and value against the request.
//   judge_refusal    a producer that refused a request.
//   judge_lifecycle  the ledger after the consumer ran: renamed capsule (LIFE-1), exactly one
//                    deleter call (LIFE-3), no call on a pointer never handed out.
//   judge_import     what the consumer imported against the truth: accepted-invalid,
//                    rejected-valid, wrong metadata, wrong data (LAY-4).
//   judge_fault      a fatal signal, from the arena's facts about the address.
//   judge_ownership  allocations a party made or freed during the exchange (LIFE-5).
#pragma once

#include <cstdint>

#include "abi.h"
#include "device_ledger.h"
#include "dlconform/plugin.h"
#include "fault.h"
#include "finding.h"
#include "guard.h"
#include "validate.h"

namespace dlc {

// ---- The producer's side ----------------------------------------------------------------------

struct ExpectedTensor {
  const DLCTensorSpec* spec = nullptr;  // what was asked for
  // The producer may make the tensor its own way (byte_offset folded into data, NULL strides for
  // compact data before 1.2, NULL data when empty): only the logical tensor is compared.
  bool compare_fields = true;
  bool digest_known = false;  // a host tensor whose values are known
  uint64_t digest = 0;        // what reading every element in logical order gives
  uint64_t elements = 0;
  // What the values read as when the producer stored them in another element encoding than
  // DLPack's (the other byte order, sub-byte elements one per byte): a digest equal to this one
  // breaks DT-3, not LAY-4. `encoding` names it ("in the other byte order").
  bool encoding_digest_known = false;
  uint64_t encoding_digest = 0;
  const char* encoding = "";
  // The request is a valid tensor for the producer's version: the validator must accept what
  // comes back. False for the invalid tensors a mock makes on purpose.
  bool request_valid = true;
};

struct HandoffFacts {
  const DLCRequest* request = nullptr;  // as made (after any TypeError fallback)
  DLCHandoff handoff{};                 // as handed over
  DLCVersion producer_version{};        // the version the producer says it emits (VER-1)
  bool negotiation_only = false;        // the harness only asked: check VER-4 and VER-1
  ExpectedTensor expected;              // for exchanges: the tensor that was asked for
};

// VER-4 for any answer; for exchanges also the producer checks against the request.
void judge_handoff(const HandoffFacts& facts, Finding* out) noexcept;

struct RefusalFacts {
  const DLCRequest* request = nullptr;  // as made (after any TypeError fallback)
  int rc = DLC_ERR_BUFFER;              // what produce() returned
  const char* error = "";
  DLCVersion producer_version{};        // the version it emits; major 0 for a legacy producer
  bool negotiation_only = false;        // the harness asked for max_version only
  // The tensor is inside the producer's profile and valid: refusing it is a finding.
  bool in_profile = false;
  Rule tensor_rule = Rule::none;
};

// A refusal is a finding where the rules oblige the producer to answer: a versioned producer
// asked with max_version of its own major or newer (VER-4), TypeError from a producer that knows
// max_version (VER-5), or a tensor inside its own profile.
void judge_refusal(const RefusalFacts& facts, Finding* out) noexcept;

// ---- The consumer's side ----------------------------------------------------------------------

struct LifecycleFacts {
  const char* offered_name = nullptr;  // the capsule name handed over; NULL for a raw exchange
  const char* name_after = nullptr;    // the name after consume() and release()
  bool imported = false;               // consume() returned DLC_OK
  const char* consumer_error = "";
  bool deleter_expected = true;        // the struct has a deleter (LIFE-4)
  uint32_t consumer_calls = 0;         // deleter calls on the struct during consume/release
  const char* first_call_where = nullptr;
  const char* second_call_where = nullptr;
  uint32_t stray_calls = 0;            // deleter calls on pointers never handed out
  const char* stray_where = nullptr;
  const char* consumer_label = "";     // "strict-consumer@v1.3"
  // A versioned struct of another major than 1: a consumer "must call the deleter" (VER-2, MUST),
  // where LIFE-3's "should call the deleter" weighs SHOULD.
  bool other_major = false;
};

void judge_lifecycle(const LifecycleFacts& facts, Finding* out) noexcept;

// A consumed capsule released by its consumer (the Python bridge): its producer's destructor
// must leave the deleter alone, since the name is used_* (LIFE-2, python_spec.rst).
struct DestructorFacts {
  const char* used_name = "";        // the capsule's name when it was released
  uint32_t calls_before = 0;         // deleter calls on the struct before the release
  uint32_t calls_after = 0;          // and after it: the destructor's are the difference
};

void judge_destructor(const DestructorFacts& facts, Finding* out) noexcept;

// A capsule consumed already, handed to a consumer again (LIFE-8). The Python bridge judges its
// frameworks' second imports with the same classes: accepted-invalid [LIFE-8] for an import,
// deleter-called-twice [LIFE-3] for a deleter call the first importer still owes.
// A capsule under a name that is no DLPack name ("DLTensor", none) is judged the same way,
// under LIFE-1: it is no tensor to take.
struct UsedCapsuleFacts {
  const char* used_name = "";        // "used_dltensor_versioned"
  bool foreign_name = false;         // used_name is no DLPack name at all (LIFE-1)
  bool imported = false;             // consume() returned DLC_OK
  const char* consumer_error = "";
  uint32_t consumer_calls = 0;       // deleter calls during consume/release
  const char* first_call_where = nullptr;
  const char* consumer_label = "";
};

void judge_used_capsule(const UsedCapsuleFacts& facts, Finding* out) noexcept;

struct ImportFacts {
  int rc = DLC_OK;                  // consume() result
  const char* consumer_error = "";
  bool raw = false;
  // The reference verdict for a consumer of this version (truth_known false for raw exchanges).
  bool truth_known = false;
  const ValidateResult* truth = nullptr;
  // A conformant consumer with this profile must import it (refusing is rejected-valid), unless
  // the truth puts its storage size in LAY-10's band (truth->size_band): then either answer is
  // right.
  bool must_accept = false;
  // The consumer asked with a max_version of major 1 or more and got a legacy struct, which a
  // legacy producer may answer with (VER-4): a refusal of it breaks VER-4, not the tensor's rule.
  bool legacy_answer_to_versioned_ask = false;
  Rule tensor_rule = Rule::none;
  const DLCTensorSpec* spec = nullptr;  // the tensor that was made
  const DLCObservation* observation = nullptr;
  bool digest_known = false;
  uint64_t digest = 0;
  uint64_t elements = 0;
  // The tensor's known misreadings (TensorCase::misreadings): wrong data equal to one of them is
  // filed under its rule, other wrong data under LAY-4.
  const KnownMisreading* misreadings = nullptr;
  size_t misreading_count = 0;
  const char* consumer_label = "";
};

void judge_import(const ImportFacts& facts, Finding* out) noexcept;

// A Python importer's refusal of a valid tensor on a device it cannot access (DEV-3: BufferError
// recommended; another exception is a SHOULD-level deviation, wrong-refusal-exception).
struct DeviceRefusalFacts {
  int32_t device_type = 0;
  const char* consumer_error = "";  // "RuntimeError: ...": the exception's name first
  bool buffer_error = false;        // the exception is a BufferError or a subclass of it
  const char* consumer_label = "";
};

void judge_device_refusal(const DeviceRefusalFacts& facts, Finding* out) noexcept;

// ---- Faults ----------------------------------------------------------------------------------

struct FaultFacts {
  SignalFacts signal;
  BlockFacts block;           // what the arena knows of signal.address
  bool raw = false;           // a raw, type-erased exchange (no capsule name said the layout)
  bool misaligned_data = false;  // the tensor's data is not 16-byte aligned
  Rule case_rule = Rule::none;   // the rule the case's tensor exercises
  const char* where = "";        // "consume()"
  const char* plugin = "-";      // "planted-oob-shape@v1.3"
  Role role = Role::none;        // the party whose code ran (the phase's)
};

// Async-signal-safe.
void judge_fault(const FaultFacts& facts, Finding* out) noexcept;

// A worker that died without a fault the handler could name: the sanitizer's or the runtime's own
// last words (may be empty).
void judge_death(int signal, int exit_status, bool timed_out, double timeout_seconds,
                 const char* last_words, Rule case_rule, Finding* out) noexcept;

// ---- Ownership (LIFE-5) ----------------------------------------------------------------------

struct OwnershipFacts {
  // Bytes the producer allocated during produce() that are still live after its deleter ran.
  uint64_t producer_leaked_bytes = 0;
  uint32_t producer_leaked_blocks = 0;
  const char* producer_leak_site = nullptr;  // "libfoo.so+0x1234 (foo_export)" of the first
  // Frees a consumer made of memory it did not allocate (the producer's, the harness's).
  uint32_t consumer_foreign_frees = 0;
  uint64_t consumer_foreign_bytes = 0;
  const char* consumer_free_site = nullptr;
  const char* producer_label = "";
  const char* consumer_label = "";
};

void judge_ownership(const OwnershipFacts& facts, Finding* out) noexcept;

// ---- Device memory: streams (STRM-1, STRM-2) and device allocators (LIFE-5) ------------------

struct StreamFacts {
  int32_t device_type = 1;  // of the tensor (what __dlpack_device__ says)
  bool has_stream = false;  // the consumer passed a stream other than None
  int64_t stream = 0;
  // The consumer's values are the storage as it was before the producer's pending write landed
  // (every byte still the producer's fill pattern): it read too early.
  bool read_before_write = false;
  // The tensor is a host copy the consumer asked for (dl_device=(1, 0)): the producer made it, and
  // had to synchronise first.
  bool host_copy = false;
  const char* consumer_label = "";
  const char* producer_label = "";
};

// The consumer's ask, before anything is produced: a stream on the CPU (STRM-1), a stream value
// the device does not allow (STRM-2: 0 on CUDA, 1 and 2 on ROCm, anything below -1).
void judge_stream_ask(const StreamFacts& facts, Finding* out) noexcept;
// After the import: values read before the producer's pending write landed (STRM-1). The words
// blame the consumer when its ask explains it (no stream, or -1 without synchronising itself),
// else the producer (it did not make the consumer's stream wait).
void judge_stream_read(const StreamFacts& facts, Finding* out) noexcept;

struct DeviceMemoryFacts {
  bool deleter_ran = false;    // the producer's deleter was called
  DeviceLedger::Verdict ledger;  // what the device ledger saw allocated and freed
  const char* producer_label = "";
};

// LIFE-5 for device memory: the deleter frees every device allocation with its own allocator.
void judge_device_memory(const DeviceMemoryFacts& facts, Finding* out) noexcept;

}  // namespace dlc

namespace dlc {

// ---- How a consumer asks (Python's from_dlpack) ---------------------------------------------

// One call a consumer made on the object it was handed, in order.
struct AskCall {
  enum class Kind : uint8_t { device, dlpack };
  enum class Answer : uint8_t { capsule, type_error, buffer_error, other_error };
  Kind kind = Kind::dlpack;
  bool has_max_version = false;
  DLCVersion max_version{};
  bool max_version_malformed = false;  // passed, but no 2-tuple of ints (a list, an int)
  bool stream_given = false;  // a stream other than None was passed
  int64_t stream = 0;
  int copy = -2;              // -2 not passed, -1 None, 0 False, 1 True
  bool dl_device_given = false;  // a dl_device other than None was passed
  DLCDevice dl_device{};
  bool dl_device_malformed = false;  // passed, but no 2-tuple of ints
  Answer answer = Answer::capsule;
};

struct AskFacts {
  const AskCall* calls = nullptr;
  size_t count = 0;
  DLCDevice producer_device{1, 0};  // what __dlpack_device__ answers
  DLCVersion consumer_version{1, 3};  // the header its importer follows (VER-5 binds from 1.0)
  int caller_copy = -1;               // what the consumer's own caller asked: -1 None, 0, 1
  bool caller_device = false;         // the caller asked for a device ...
  DLCDevice caller_device_value{};    // ... this one
  bool imported = false;              // from_dlpack returned an array
  const char* consumer_label = "";
};

// VER-5 (max_version first, as a 2-tuple; a second question only after TypeError, and none after
// a capsule), STRM-1 (no stream on the CPU), STRM-3 (dl_device as a 2-tuple) and STRM-3/STRM-4
// (dl_device and copy as the caller asked).
void judge_asks(const AskFacts& facts, Finding* out) noexcept;

// ---- A write through the consumer's import of immutable data (FLAG-1, FLAG-1b) -------------

struct WriteThroughFacts {
  bool crossed_versioned = false;     // a dltensor_versioned capsule crossed
  bool read_only_flag = false;        // ... with READ_ONLY set
  bool asked_versioned = false;       // the consumer's call carried max_version >= 1.0
  bool producer_versioned = true;     // the producer speaks DLPack 1.0 or later
  bool consumer_has_read_only = false;  // the consumer library has read-only arrays
  const char* producer_label = "";
  const char* consumer_label = "";
};

// Called only when the write went through and changed the producer's immutable data: whose rule
// that breaks.
void judge_write_through(const WriteThroughFacts& facts, Finding* out) noexcept;

}  // namespace dlc
