// The judge of one exchange. Order of checks:
//  1. the producer answers the request (VER-4, with the TypeError fallback of VER-5);
//  2. what it handed over is checked (capsule name, version, LAY-5);
//  3. the reference validator decides whether the tensor is valid for this consumer's version;
//  4. the consumer imports and releases it;
//  5. the ledger must show exactly one deleter call (LIFE-3), the capsule must be renamed (LIFE-1);
//  6. an import must match the tensor that was made (digest over every element, LAY-4), an
//     invalid tensor must not be imported, and a must-accept tensor must not be refused.
#include "exchange.h"

#include <cstring>
#include <string>

#include "fill.hpp"
#include "validate.h"

namespace dlc {
namespace {

struct Outcome {
  Verdict verdict = Verdict::pass;
  std::string finding_class;
  std::string rule;
  std::string detail;
};

Outcome finding(const char* finding_class, const std::string& rule, const std::string& detail) {
  return Outcome{Verdict::fail, finding_class, rule, detail};
}

}  // namespace

void delete_unclaimed(const DLCHandoff& h) {
  if (h.name == nullptr || h.pointer == nullptr) return;
  if (std::strcmp(h.name, "dltensor") == 0) {
    auto* m = static_cast<abi::ManagedTensor*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  } else if (std::strcmp(h.name, "dltensor_versioned") == 0) {
    auto* m = static_cast<abi::ManagedTensorVersioned*>(h.pointer);
    if (m->deleter != nullptr) m->deleter(m);
  }
}

namespace {

bool has_deleter(const DLCHandoff& h, bool versioned) {
  if (versioned) return static_cast<abi::ManagedTensorVersioned*>(h.pointer)->deleter != nullptr;
  return static_cast<abi::ManagedTensor*>(h.pointer)->deleter != nullptr;
}

std::string text(DLCVersion v) { return std::to_string(v.major) + "." + std::to_string(v.minor); }

// Negotiation cases: the harness is the consumer and checks the answer against VER-4.
Outcome judge_negotiation(const Participant& producer, const CaseDef& c, int rc,
                          const DLCHandoff& h, const std::string& producer_error) {
  const DLCVersion own = producer.plugin.table->dlpack_version;
  const bool legacy_caller = !c.has_max_version || c.max_version.major < 1;
  if (rc != DLC_OK) {
    if (rc == DLC_ERR_BUFFER && legacy_caller &&
        producer.plugin.name() == "future-major-producer") {
      return Outcome{Verdict::pass, "", "VER-4",
                     "BufferError for a legacy caller: " + producer_error};
    }
    return finding("negotiation-refused", "VER-4",
                   "expected a tensor for max_version=" +
                       (c.has_max_version ? text(c.max_version) : std::string("None")) +
                       " but the producer failed: " + producer_error);
  }
  const bool versioned = std::strcmp(h.name, "dltensor_versioned") == 0;
  if (legacy_caller && versioned) {
    return finding("versioned-to-legacy-caller", "VER-4",
                   "expected capsule dltensor for a legacy caller but found dltensor_versioned");
  }
  if (!legacy_caller && !versioned) {
    return finding("negotiation-downgrade", "VER-4",
                   "expected dltensor_versioned for max_version=" + text(c.max_version) +
                       " but found " + h.name);
  }
  if (versioned) {
    const auto* m = static_cast<abi::ManagedTensorVersioned*>(h.pointer);
    if (m->version.major > c.max_version.major) {
      return finding("unsupported-version-returned", "VER-4",
                     "expected a version the caller supports (<= " + text(c.max_version) +
                         ") but found " + text({m->version.major, m->version.minor}));
    }
    if (m->version.major == own.major && m->version.minor != own.minor &&
        producer.plugin.name() != "future-minor-producer") {
      return finding("wrong-version-field", "VER-1",
                     "expected the producer's own version " + text(own) + " but found " +
                         text({m->version.major, m->version.minor}));
    }
  }
  return Outcome{Verdict::pass, "", "VER-4", std::string("answered with ") + h.name};
}

Outcome judge_exchange(const Participant& producer, const Participant& consumer,
                       const TensorCase& t, const CaseDef& c, const DLCHandoff& h_in,
                       const DLCRequest& request) {
  HostState& host = process_host();
  DLCHandoff h = h_in;
  const bool raw = c.raw;
  const bool versioned = !raw && std::strcmp(h.name, "dltensor_versioned") == 0;
  const DLCVersion consumer_version = consumer.plugin.table->dlpack_version;

  // 2. What the producer handed over.
  if (!raw) {
    if (!request.has_max_version && versioned) {
      delete_unclaimed(h);
      return finding("versioned-to-legacy-caller", "VER-4",
                     "expected capsule dltensor for a caller without max_version but found "
                     "dltensor_versioned");
    }
    if (versioned) {
      const auto* m = static_cast<abi::ManagedTensorVersioned*>(h.pointer);
      // copy=True obliges the producer to copy and say so (STRM-4, FLAG-2). Another major's
      // flags are not ours to read (VER-2).
      const uint64_t flags = m->version.major == 1 ? m->flags : 0;
      if (request.copy == 1 && m->version.major == 1 && (flags & abi::kFlagIsCopied) == 0) {
        delete_unclaimed(h);
        return finding("producer-violation", "FLAG-2",
                       "expected IS_COPIED after copy=True but the flags are " +
                           std::to_string(flags));
      }
      // Only a major-1 struct has a dl_tensor to look at (VER-2).
      const bool v12_or_later = m->version.major == 1 && m->version.minor >= 2;
      const int32_t ndim = v12_or_later ? m->dl_tensor.ndim : 0;
      if (v12_or_later && ndim != 0 && m->dl_tensor.strides == nullptr) {
        delete_unclaimed(h);
        return finding("producer-violation", "LAY-5",
                       "expected strides != NULL for ndim=" + std::to_string(ndim) +
                           " (DLPack >= 1.2) but the producer emitted NULL");
      }
    }
  }

  // 3. The truth: is this tensor valid for a consumer of this version?
  ValidateResult truth;
  bool truth_known = !raw;
  if (truth_known) {
    ValidateOptions options;
    options.level = Level::standard;
    options.consumer_version = consumer_version.major == 0 && consumer.plugin.table->has_max_version
                                   ? DLCVersion{1, 3}
                                   : consumer_version;
    if (!consumer.builtin) options.consumer_version = {1, 3};
    options.max_ndim = 32;
    truth = validate(h, options);
  }
  const bool deleter_expected = raw || has_deleter(h, versioned);
  const void* managed = h.pointer;

  // 4. Import and release.
  DLCObservation obs{};
  char error[512] = {};
  const DLCPlugin& ct = *consumer.plugin.table;
  const int rc = ct.consume(consumer.plugin.state, &h, &request, &obs, error, sizeof error);
  if (ct.release != nullptr) ct.release(consumer.plugin.state);
  const bool unclaimed = !raw && h.name != nullptr && std::strncmp(h.name, "used_", 5) != 0;
  if (unclaimed) delete_unclaimed(h);

  // 5. Lifecycle.
  const uint32_t calls = host.ledger.calls(managed);
  if (host.ledger.stray_calls() > 0) {
    return finding("deleter-called-twice", "LIFE-3",
                   "a deleter ran on a struct that was already deleted or never produced");
  }
  if (deleter_expected && calls == 0) {
    return finding("deleter-never-called", "LIFE-3",
                   std::string("expected exactly one deleter call after ") +
                       (rc == DLC_OK ? "release" : "a rejection") + " but found none (leak)");
  }
  if (calls > 1) {
    return finding("deleter-called-twice", "LIFE-3",
                   "expected exactly one deleter call but found " + std::to_string(calls));
  }
  if (rc == DLC_OK && !raw && unclaimed) {
    return finding(
        "capsule-not-renamed", "LIFE-1",
        std::string("expected the capsule renamed to used_* on import but found ") + h.name);
  }

  // 6. The import itself.
  if (rc != DLC_OK) {
    if (rc != DLC_ERR_BUFFER) {
      return finding("consumer-error", "",
                     std::string("consume() returned ") + std::to_string(rc) + ": " + error);
    }
    // A raw exchange of a layout the reader should understand must import (the RFC verdicts).
    const bool raw_refusal =
        raw && t.must_accept && producer.plugin.name() != "future-major-producer";
    if (raw_refusal) {
      return finding("rejected-valid", t.rule,
                     std::string("a raw exchange of a valid tensor was refused: ") + error);
    }
    if (truth_known && truth.accepted && t.must_accept) {
      return finding("rejected-valid", t.rule, std::string("a valid tensor was refused: ") + error);
    }
    return Outcome{Verdict::pass, "", "", std::string("refused cleanly: ") + error};
  }
  if (truth_known && !truth.accepted) {
    const Violation* v = truth.first_must();
    return finding("accepted-invalid", v != nullptr ? v->rule : "",
                   std::string("imported an invalid tensor: ") + (v ? v->message : ""));
  }
  const DLCTensorSpec& spec = t.spec;
  if (obs.ndim != spec.ndim) {
    return finding("wrong-metadata", "LAY-1",
                   "expected ndim " + std::to_string(spec.ndim) + " but the consumer saw " +
                       std::to_string(obs.ndim));
  }
  for (int i = 0; i < spec.ndim && i < 32; ++i) {
    if (obs.shape[i] != spec.shape[i]) {
      return finding("wrong-metadata", "LAY-1",
                     "expected shape[" + std::to_string(i) +
                         "] = " + std::to_string(spec.shape[i]) + " but the consumer saw " +
                         std::to_string(obs.shape[i]));
    }
  }
  if (obs.dtype.code != spec.dtype.code || obs.dtype.bits != spec.dtype.bits ||
      obs.dtype.lanes != spec.dtype.lanes) {
    return finding("wrong-metadata", "LAY-1", "the consumer saw a different dtype");
  }
  if (spec.device.device_type == 1 && !obs.data_not_read) {
    uint64_t count = 0;
    const uint64_t digest = dlc_fill::expected_digest(spec, &count);
    if (obs.digest != digest || obs.elements_read != count) {
      return finding("wrong-data", "LAY-4",
                     "expected " + std::to_string(count) +
                         " elements with the producer's values "
                         "but the consumer read " +
                         std::to_string(obs.elements_read) +
                         " with a different digest (byte_offset or strides misread?)");
    }
  }
  return Outcome{Verdict::pass, "", "", "imported correctly"};
}

}  // namespace

HostState& process_host() {
  static HostState* host = new HostState();  // never destroyed: deleters may run late
  return *host;
}

bool create_plugin_states(std::vector<Participant>& participants, std::string* error) {
  for (Participant& p : participants) {
    if (p.plugin.table->create == nullptr) continue;
    char message[512] = {};
    const int rc =
        p.plugin.table->create(&process_host().table, &p.plugin.state, message, sizeof message);
    if (rc != DLC_OK) {
      *error = p.plugin.path + ": create() failed with code " + std::to_string(rc) + ": " + message;
      return false;
    }
  }
  return true;
}

void run_exchange(const std::vector<Participant>& participants, CaseDef& c) noexcept {
  HostState& host = process_host();
  host.reset();
  const Participant& producer = participants[c.producer];
  const TensorCase& t = tensor_catalogue()[c.tensor];
  DLCRequest request{};
  request.tensor = t.spec;
  request.copy = t.copy;
  request.raw = c.raw ? 1 : 0;
  if (c.override_request) {
    request.has_max_version = c.has_max_version;
    request.max_version = c.max_version;
  } else if (c.consumer >= 0 && !c.raw) {
    request.has_max_version = participants[c.consumer].plugin.table->has_max_version;
    request.max_version = participants[c.consumer].plugin.table->max_version;
  }

  // 1. Produce, with the TypeError fallback a consumer owes old producers (VER-5).
  DLCHandoff h{};
  char error[512] = {};
  const DLCPlugin& pt = *producer.plugin.table;
  int rc = pt.produce(producer.plugin.state, &request, &h, error, sizeof error);
  std::string fallback;
  if (rc == DLC_ERR_TYPE && !c.raw && !c.override_request) {
    request.has_max_version = 0;
    request.copy = -1;
    request.has_dl_device = 0;
    error[0] = '\0';
    rc = pt.produce(producer.plugin.state, &request, &h, error, sizeof error);
    fallback = " (after the TypeError fallback of VER-5)";
  }
  Outcome outcome;
  if (c.consumer < 0) {
    outcome = judge_negotiation(producer, c, rc, h, error);
    if (rc == DLC_OK) delete_unclaimed(h);
  } else if (rc != DLC_OK) {
    outcome =
        Outcome{Verdict::skip, "", "", std::string("producer refused") + fallback + ": " + error};
  } else {
    outcome = judge_exchange(producer, participants[c.consumer], t, c, h, request);
    if (!fallback.empty() && outcome.verdict == Verdict::pass) outcome.detail += fallback;
  }
  c.result.verdict = outcome.verdict;
  c.result.finding_class = outcome.finding_class;
  c.result.rule_id = outcome.rule;
  c.result.detail = outcome.detail;
}

}  // namespace dlc
