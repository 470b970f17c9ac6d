#include "suppressions.h"

#include "catch.hpp"

namespace {

dlc::CaseResult finding(const std::string& consumer, const std::string& rule,
                        const std::string& cls = "rejected-valid") {
  dlc::CaseResult r;
  r.finding_class = cls;
  r.id = "edge/p@v1.3/" + consumer + "@v1.3/f32";
  r.producer = {"versioned-producer", "v1.3"};
  r.consumer = {consumer, "v1.3"};
  r.verdict = dlc::Verdict::fail;
  r.expected = dlc::Expectation::pass;
  r.rule_id = rule;
  return r;
}

}  // namespace

TEST_CASE("suppressions: an entry marks a matching finding known, and only it", "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions("# team decisions\n"
                                  "LIFE-3  my-consumer   https://example.org/issues/1\n"
                                  "\n"
                                  "LAY-9   torch@*       aligned copies only  # trailing note\n",
                                  "known.txt", &s, &error));
  REQUIRE(s.entries.size() == 2);
  CHECK(s.entries[1].reason == "aligned copies only");
  CHECK(s.entries[1].line == 4);

  std::vector<dlc::CaseResult> cases = {finding("my-consumer", "LIFE-3"),
                                        finding("my-consumer", "LIFE-1"),
                                        finding("other-consumer", "LIFE-3"),
                                        finding("torch", "LAY-9")};
  cases.push_back(finding("my-consumer", "LIFE-3"));
  cases.back().verdict = dlc::Verdict::pass;  // as expected: nothing to suppress
  CHECK(dlc::apply_suppressions(s, cases) == 2);
  CHECK(cases[0].known);
  CHECK_FALSE(cases[1].known);  // another rule
  CHECK_FALSE(cases[2].known);  // another plugin
  CHECK(cases[3].known);        // torch@v1.3 matches torch@*
  CHECK_FALSE(cases[4].known);
  CHECK(s.entries[0].matched == 1);
}

TEST_CASE("suppressions: two entries for one release both count the case, neither is stale",
          "[unit]") {
  dlc::Suppressions s;
  std::string error;
  dlc::Suppressions b;
  REQUIRE(dlc::parse_suppressions("LAY-8 torch@2.13* aborts on negative strides\n", "env-a.txt", &s,
                                  &error));
  REQUIRE(dlc::parse_suppressions("LAY-8 torch@2.13* the same torch in environment b\n",
                                  "env-b.txt", &b, &error));
  s.entries.push_back(b.entries[0]);
  std::vector<dlc::CaseResult> cases = {finding("torch", "LAY-8")};
  cases[0].consumer = {"torch", "torch@2.13.0"};
  CHECK(dlc::apply_suppressions(s, cases) == 1);
  CHECK(s.entries[0].matched == 1);
  CHECK(s.entries[1].matched == 1);
}

TEST_CASE("suppressions: a malformed line is refused with its line number", "[unit]") {
  dlc::Suppressions s;
  std::string error;
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3 my-consumer why\nlife3 x y\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:2: expected a rule id such as LIFE-3 (or *) but found 'life3'");
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:1: expected RULE PARTY REASON but found only the rule LIFE-3");
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3 my-consumer   \n", "s.txt", &s, &error));
  CHECK(error.find("expected a reason or an upstream link") != std::string::npos);
  CHECK_FALSE(dlc::load_suppressions("/nonexistent/known.txt", &s, &error));
  CHECK(error == "cannot read suppression file /nonexistent/known.txt");
}

TEST_CASE("suppressions: a case's severity reads the rule table", "[unit]") {
  CHECK(dlc::severity_of_case(finding("c", "LAY-9")) == dlc::Severity::should);
  CHECK(dlc::severity_of_case(finding("c", "FLAG-1b", "producer-violation")) ==
        dlc::Severity::should);
  CHECK(dlc::severity_of_case(finding("c", "LIFE-3")) == dlc::Severity::must);
  CHECK(dlc::severity_of_case(finding("c", "")) == dlc::Severity::must);
  // A planted bug no longer caught has no finding at all: MUST.
  CHECK(dlc::severity_of_case(finding("c", "", "")) == dlc::Severity::must);
  // A suppression names rules the table knows, FLAG-1b included.
  dlc::Suppressions s;
  std::string error;
  CHECK(dlc::parse_suppressions("FLAG-1b numpy@* exports read-only data as legacy\n", "s", &s,
                                &error));
  CHECK_FALSE(dlc::parse_suppressions("LAY-99 x y\n", "s", &s, &error));
}

TEST_CASE("suppressions: exit bits separate MUST findings, non-strict ones and known ones",
          "[unit]") {
  std::vector<dlc::CaseResult> cases = {finding("c", "LAY-9")};
  CHECK(dlc::findings_exit_bits(cases, false) == 4);
  cases.push_back(finding("c", "LIFE-3"));
  CHECK(dlc::findings_exit_bits(cases, false) == 12);
  CHECK(dlc::findings_exit_bits(cases, true) == 0);
  cases[1].known = true;
  CHECK(dlc::findings_exit_bits(cases, false) == 4);
  cases[0].verdict = dlc::Verdict::pass;
  CHECK(dlc::findings_exit_bits(cases, false) == 0);
  cases.push_back(finding("c", ""));  // a crash cites no rule: MUST
  cases.back().verdict = dlc::Verdict::crash;
  CHECK(dlc::findings_exit_bits(cases, false) == 8);
  cases.back().rule_id = "LAY-9";  // a crash on a misaligned tensor is still a crash
  CHECK(dlc::findings_exit_bits(cases, false) == 8);
}
