#include "suppressions.h"

#include "catch.hpp"
#include "sanitizer_build.h"

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

TEST_CASE("suppressions: an entry seen only under the sanitizers is stale only in their build",
          "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions(
      "LAY-8 crash consumer torch@2.13* overflows its buffer [sanitizers] [repro: x.py]\n"
      "LAY-8 crash consumer torch@2.13* overflows its buffer [repro: x.py]\n",
      "env.txt", &s, &error));
  std::vector<dlc::CaseResult> cases = {finding("torch", "LAY-8")};
  cases[0].consumer = {"torch", "torch@2.13.0"};
  cases[0].verdict = dlc::Verdict::pass;  // the plain allocator: no overflow seen
  CHECK(dlc::apply_suppressions(s, cases) == 0);
  CHECK(dlc::is_stale(s.entries[0], cases) == bool(DLC_HAS_ASAN));
  CHECK(dlc::is_stale(s.entries[1], cases));
}

TEST_CASE("suppressions: a malformed line is refused with its line number", "[unit]") {
  dlc::Suppressions s;
  std::string error;
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3 my-consumer why\nlife3 x y\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:2: expected a rule id such as LIFE-3 (or *) but found 'life3'");
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:1: expected RULE CLASS ROLE PARTY REASON but found only the rule LIFE-3");
  CHECK_FALSE(dlc::parse_suppressions("LAY-8 crash,wrong-dat consumer torch why\n", "s.txt", &s,
                                      &error));
  CHECK(error == "s.txt:1: expected finding classes of findings.def (deleter-never-called, "
                 "wrong-data, ...) before the role consumer but found 'wrong-dat'");
  CHECK_FALSE(dlc::parse_suppressions("LAY-8 crash consumer\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:1: expected a party after LAY-8 crash consumer but found none");
  CHECK_FALSE(dlc::parse_suppressions("LAY-8 crash consumer torch cases=\n", "s.txt", &s, &error));
  CHECK(error == "s.txt:1: expected a glob over case ids after cases= but found none");
  CHECK_FALSE(dlc::parse_suppressions("LAY-8 crash consumer torch cases=x/*\n", "s.txt", &s,
                                      &error));
  CHECK(error.find("expected a reason or an upstream link after LAY-8 crash consumer torch "
                   "cases=x/* but found none") != std::string::npos);
  CHECK_FALSE(dlc::parse_suppressions("LIFE-3 my-consumer   \n", "s.txt", &s, &error));
  CHECK(error.find("expected a reason or an upstream link") != std::string::npos);
  CHECK_FALSE(dlc::load_suppressions("/nonexistent/known.txt", &s, &error));
  CHECK(error == "cannot read suppression file /nonexistent/known.txt");
}

namespace {

dlc::CaseResult blamed(const std::string& consumer, const std::string& rule, const std::string& cls,
                       const std::string& role) {
  dlc::CaseResult r = finding(consumer, rule, cls);
  r.role = role;
  return r;
}

}  // namespace

TEST_CASE("suppressions: an entry of the new form hides its rule, class, role and party only",
          "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions(
      "# RULE CLASS ROLE PARTY [cases=GLOB] REASON\n"
      "DT-1 accepted-invalid,wrong-data consumer my-consumer takes 0 lanes\n"
      "LAY-8 crash consumer torch cases=pairs/* aborts on negative strides\n",
      "known.txt", &s, &error));
  REQUIRE(s.entries.size() == 2);
  CHECK(s.entries[0].classes == std::vector<std::string>{"accepted-invalid", "wrong-data"});
  CHECK(s.entries[0].role == dlc::Role::consumer);
  CHECK(s.entries[0].reason == "takes 0 lanes");
  CHECK(s.entries[1].cases == "pairs/*");
  CHECK(s.entries[1].label() == "LAY-8 crash consumer torch cases=pairs/*");

  std::vector<dlc::CaseResult> cases = {
      blamed("my-consumer", "DT-1", "accepted-invalid", "consumer"),   // 0: known
      blamed("my-consumer", "DT-1", "wrong-data", "consumer"),         // 1: known
      blamed("my-consumer", "DT-1", "rejected-valid", "consumer"),     // 2: a class not named
      blamed("my-consumer", "DT-1", "producer-violation", "producer"),  // 3: another role
      blamed("torch", "LAY-8", "crash", "consumer"),                   // 4: not under pairs/
      blamed("torch", "LAY-8", "crash", "consumer")};                  // 5: known
  cases[3].producer = {"my-consumer", "v1.3"};  // the same name as a producer: not the consumer
  cases[5].id = "pairs/frameworks/numpy@2.4/torch@2.13/f32_reversed";
  CHECK(dlc::apply_suppressions(s, cases) == 3);
  CHECK(cases[0].known);
  CHECK(cases[0].known_by == "known.txt:2");
  CHECK(cases[1].known);
  CHECK_FALSE(cases[2].known);
  CHECK_FALSE(cases[3].known);
  CHECK_FALSE(cases[4].known);
  CHECK(cases[5].known);
  CHECK(cases[5].known_by == "known.txt:3");
  CHECK(s.entries[0].matched_classes.at("accepted-invalid consumer") == 1);
  CHECK(s.entries[0].matched_classes.at("wrong-data consumer") == 1);
  // The class it met without naming it is an error of the entry, and the case stays unexpected.
  CHECK(s.entries[0].unnamed_classes.at("rejected-valid consumer") == 1);
  const std::vector<dlc::SuppressionNotice> notices = dlc::suppression_notices(s, cases);
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].kind == dlc::SuppressionNotice::Kind::unnamed_class);
  CHECK(notices[0].text ==
        "known.txt:2: error: DT-1 accepted-invalid,wrong-data consumer my-consumer also meets "
        "findings of classes it does not name, which stay unexpected: rejected-valid consumer "
        "(1), first edge/p@v1.3/my-consumer@v1.3/f32");
  const std::vector<dlc::SuppressionUse> uses = dlc::suppression_uses(s, cases);
  REQUIRE(uses.size() == 2);
  CHECK(uses[1].cases == std::vector<std::string>{cases[5].id});
  CHECK_FALSE(uses[1].old_form);
}

TEST_CASE("suppressions: two entries of one party, one class each, are no error of each other",
          "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions("LAY-4 wrong-data consumer mxnet ignores byte_offset\n"
                                  "LAY-4 rejected-valid consumer mxnet refuses extent-1 views\n",
                                  "k.txt", &s, &error));
  std::vector<dlc::CaseResult> cases = {blamed("mxnet", "LAY-4", "wrong-data", "consumer"),
                                        blamed("mxnet", "LAY-4", "rejected-valid", "consumer")};
  CHECK(dlc::apply_suppressions(s, cases) == 2);
  CHECK(s.entries[0].unnamed_classes.empty());
  CHECK(s.entries[1].unnamed_classes.empty());
  CHECK(dlc::suppression_notices(s, cases).empty());
}

TEST_CASE("suppressions: an entry of the old form still loads, and a warning names what it hid",
          "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions("DT-1 my-consumer takes 0 lanes\n", "old.txt", &s, &error));
  REQUIRE(s.entries.size() == 1);
  CHECK(s.entries[0].old_form());
  CHECK(s.entries[0].party == "my-consumer");
  CHECK(s.entries[0].reason == "takes 0 lanes");
  std::vector<dlc::CaseResult> cases = {
      blamed("my-consumer", "DT-1", "accepted-invalid", "consumer"),
      blamed("my-consumer", "DT-1", "wrong-data", "consumer")};
  CHECK(dlc::apply_suppressions(s, cases) == 2);
  const std::vector<dlc::SuppressionNotice> notices = dlc::suppression_notices(s, cases);
  REQUIRE(notices.size() == 1);
  CHECK(notices[0].kind == dlc::SuppressionNotice::Kind::old_form);
  CHECK(notices[0].text ==
        "old.txt:1: warning: DT-1 my-consumer is in the old form (rule and party only); it "
        "matched accepted-invalid consumer (1), wrong-data consumer (1): name them (RULE CLASS "
        "ROLE PARTY REASON)");
}

TEST_CASE("suppressions: the fuzzers find an entry by rule, role and party", "[unit]") {
  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions("LAY-10 accepted-invalid consumer tvm-ffi why\n"
                                  "LAY-4 producer-violation producer tvm-ffi why\n",
                                  "k.txt", &s, &error));
  const dlc::PartyRef tvm{"tvm-ffi", "v1.3"};
  CHECK(dlc::find_suppression(s, "LAY-10", dlc::Role::consumer, tvm) == &s.entries[0]);
  CHECK(dlc::find_suppression(s, "LAY-4", dlc::Role::consumer, tvm) == nullptr);
  CHECK(dlc::find_suppression(s, "LAY-10", dlc::Role::consumer, {"other", "v1.3"}) == nullptr);
}

TEST_CASE("suppressions: a case's severity reads the rule table", "[unit]") {
  CHECK(dlc::severity_of_case(finding("c", "LAY-9")) == dlc::Severity::should);
  CHECK(dlc::severity_of_case(finding("c", "FLAG-1b", "producer-violation")) ==
        dlc::Severity::should);
  CHECK(dlc::severity_of_case(finding("c", "LIFE-1")) == dlc::Severity::must);
  CHECK(dlc::severity_of_case(finding("c", "LIFE-3", "deleter-never-called")) ==
        dlc::Severity::should);
  CHECK(dlc::severity_of_case(finding("c", "LIFE-3", "deleter-called-twice")) ==
        dlc::Severity::must);
  CHECK(dlc::severity_of_case(finding("c", "LAY-5", "rejected-valid")) ==
        dlc::Severity::should);  // a sub-clause of its own (clauses.def)
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
  cases.push_back(finding("c", "LIFE-1"));
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
