// The JUnit XML report, for the test tabs of CI systems: one <testsuite> per scenario, one
// <testcase> per case. Only cases that are not as expected fail; a known incompatibility
// reproduced on purpose passes and says so in <system-out>, a suppressed case is skipped.
#include "report.h"
#include "report_model.h"
#include "report_text.h"

namespace dlc {
namespace {

using report::Outcome;
using report::xml_escape;

// "crash (expected pass): wild-pointer (LAY-3)": what a CI tab shows in its failure list.
std::string failure_message(const CaseResult& c) {
  std::string m = std::string(to_string(c.verdict)) + " (expected " + to_string(c.expected);
  if (!c.expected_class.empty()) m += " with " + c.expected_class;
  m += ")";
  if (!c.finding_class.empty()) m += ": " + c.finding_class;
  if (!c.rule_id.empty()) m += " (" + c.rule_id + ")";
  // Not a conformance failure: the consumer's fault on a tensor its producer made invalid.
  if (c.hardening) m = "hardening, the producer broke " + c.rule_id + ": " + m;
  return m;
}

std::string finding(const CaseResult& c) {
  std::string f = c.finding_class.empty() ? to_string(c.verdict) : c.finding_class;
  if (!c.rule_id.empty()) f += " (" + c.rule_id + ")";
  if (!c.detail.empty()) f += ": " + c.detail;
  return f;
}

void testcase(const CaseResult& c, bool details, std::string* o) {
  *o += "    <testcase classname=\"" +
        xml_escape("dlconform." + c.scenario + "." + c.producer.name + "@" + c.producer.header) +
        "\" name=\"" + xml_escape(c.consumer.name + "@" + c.consumer.header + " " + c.tensor) +
        "\" time=\"" + report::fixed_number(!details || c.seconds < 0 ? 0 : c.seconds, 6) + "\"";
  switch (report::outcome_of(c)) {
    case Outcome::pass:
      *o += "/>\n";
      return;
    case Outcome::expected_broken:
      *o += "><system-out>" + xml_escape("reproduced as expected: " + finding(c)) +
            "</system-out></testcase>\n";
      return;
    case Outcome::skip:
      *o +=
          c.detail.empty() ? "><skipped/>" : "><skipped message=\"" + xml_escape(c.detail) + "\"/>";
      *o += "</testcase>\n";
      return;
    case Outcome::known:
      *o += "><skipped message=\"" + xml_escape("known: " + finding(c)) + "\"/></testcase>\n";
      return;
    case Outcome::unexpected:
      *o += "><failure message=\"" + xml_escape(failure_message(c)) + "\" type=\"" +
            xml_escape((c.hardening ? "hardening " : "") +
                       (c.finding_class.empty() ? to_string(c.verdict) : c.finding_class)) +
            "\">" +
            xml_escape(c.detail) + "</failure></testcase>\n";
      return;
  }
}

std::string counts(size_t tests, size_t failures, size_t skipped, double seconds) {
  return "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"0\" skipped=\"" + std::to_string(skipped) + "\" time=\"" +
         report::fixed_number(seconds, 3) + "\"";
}

}  // namespace

std::string render_junit(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept {
  try {
    const report::Summary s = report::summarise(cases);
    std::string o =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dlconform\" " +
        counts(s.cases, s.unexpected, s.by_outcome[static_cast<size_t>(Outcome::skip)] + s.known,
               info.details ? info.wall_seconds : 0) +
        ">\n";
    for (const std::string& scenario : report::scenario_order(cases)) {
      std::vector<const CaseResult*> members;
      size_t failures = 0, skipped = 0;
      double seconds = 0;
      for (const CaseResult& c : cases) {
        if (c.scenario != scenario) continue;
        members.push_back(&c);
        const Outcome outcome = report::outcome_of(c);
        failures += outcome == Outcome::unexpected;
        skipped += outcome == Outcome::skip || outcome == Outcome::known;
        if (info.details && c.seconds > 0) seconds += c.seconds;
      }
      o += "  <testsuite name=\"" + xml_escape(scenario) + "\" " +
           counts(members.size(), failures, skipped, seconds);
      if (info.details) o += " timestamp=\"" + xml_escape(info.started_at) + "\"";
      o += ">\n";
      for (const CaseResult* c : members) testcase(*c, info.details, &o);
      o += "  </testsuite>\n";
    }
    o += "</testsuites>\n";
    return o;
  } catch (...) {  // std::bad_alloc: nothing sensible can be written
    return {};
  }
}

}  // namespace dlc
