#include "hardening.h"

#include "catalogue.h"

namespace dlc {

Rule invalid_tensor_rule(std::string_view name, std::string* words) {
  // The catalogue's names hold slashes themselves ("view/nd2/perm10/f32"): try the whole name,
  // then each tail after a slash.
  int index = -1;
  for (size_t from = 0; index < 0 && from != std::string_view::npos;) {
    index = find_tensor(name.substr(from));
    const size_t slash = name.find('/', from);
    from = slash == std::string_view::npos ? slash : slash + 1;
  }
  if (index < 0) return Rule::none;
  ValidateResult r;
  validate_request(tensor_catalogue()[static_cast<size_t>(index)], DLCVersion{1, 3},
                   DLC_MAX_NDIM, &r);
  const Violation* v = r.first_must();
  if (v == nullptr) return Rule::none;
  if (words != nullptr) *words = v->message;
  return v->rule;
}

void mark_hardening(std::vector<CaseResult>& cases) {
  for (CaseResult& c : cases) {
    if (c.finding_class.empty() || c.role != "consumer") continue;
    if (!is_memory_safety(class_from_name(c.finding_class))) continue;
    std::string words;
    const Rule broken = invalid_tensor_rule(c.tensor, &words);
    if (broken == Rule::none) continue;
    c.hardening = true;
    c.role = "hardening";
    c.detail = std::string("hardening: ") + c.finding_class + " on an invalid tensor (the " +
               "producer broke " + id_of(broken) + ": " + words + "); " + c.detail;
  }
}

}  // namespace dlc
