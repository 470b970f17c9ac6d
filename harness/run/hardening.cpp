#include "hardening.h"

#include <cstdio>
#include <iterator>

#include "catalogue.h"

namespace dlc {

namespace {

// The headers a conformant producer may speak, oldest first: a tensor of an unknown producer is
// invalid only when no one of them may make it.
constexpr DLCVersion kHeaders[] = {{0, 6}, {0, 7}, {0, 8}, {1, 0}, {1, 1}, {1, 2}, {1, 3}};

int catalogue_index(std::string_view name) {
  // The catalogue's names hold slashes themselves ("view/nd2/perm10/f32"): try the whole name,
  // then each tail after a slash.
  for (size_t from = 0; from != std::string_view::npos;) {
    const int index = find_tensor(name.substr(from));
    if (index >= 0) return index;
    const size_t slash = name.find('/', from);
    from = slash == std::string_view::npos ? slash : slash + 1;
  }
  return -1;
}

}  // namespace

Rule invalid_tensor_rule(std::string_view name, std::string_view producer_header,
                         std::string* words) {
  const int index = catalogue_index(name);
  if (index < 0) return Rule::none;
  const TensorCase& t = tensor_catalogue()[static_cast<size_t>(index)];
  unsigned major = 0;
  unsigned minor = 0;
  const std::string header(producer_header);
  const bool known = std::sscanf(header.c_str(), "v%u.%u", &major, &minor) == 2;
  const DLCVersion own{major, minor};
  const DLCVersion* begin = known ? &own : std::begin(kHeaders);
  const DLCVersion* end = known ? &own + 1 : std::end(kHeaders);
  Rule broken = Rule::none;
  for (const DLCVersion* v = begin; v != end; ++v) {
    ValidateResult r;
    validate_request(t, *v, DLC_MAX_NDIM, &r);
    const Violation* first = r.first_consumer_must();
    if (first == nullptr) return Rule::none;  // a conformant producer of this header makes it
    if (broken == Rule::none) {
      broken = first->rule;
      if (words != nullptr) *words = first->message;
    }
  }
  return broken;
}

bool mark_hardening(CaseResult& c) {
  if (c.hardening || c.role != "consumer") return false;
  const FindingClass cls = class_from_name(c.finding_class);
  std::string words;
  Rule broken = Rule::none;
  if (c.tensor.rfind("used-capsule/", 0) == 0) {
    // A framework row's __dlpack__ that returns a capsule consumed already: only a producer that
    // breaks LIFE-8 does that, so whatever memory the consumer then misuses is the producer's
    // doing. (A capsule handed to a capsule entry point by its user, "from_dlpack/used-capsule/",
    // is the consumer's to refuse: conformance.)
    if (!is_memory_safety(cls)) return false;
    broken = Rule::LIFE_8;
    words = "its __dlpack__ returned a capsule consumed already (renamed used_dltensor)";
  } else {
    if (!is_content_fault(cls)) return false;
    broken = invalid_tensor_rule(c.tensor, c.producer.header, &words);
  }
  if (broken == Rule::none) return false;
  c.hardening = true;
  c.role = "hardening";
  c.rule_id = id_of(broken);
  c.detail = "hardening: " + c.finding_class + " on an invalid tensor (the producer broke " +
             id_of(broken) + ": " + words + "); " + c.detail;
  return true;
}

}  // namespace dlc
