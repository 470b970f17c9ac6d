// Hardening findings: a consumer's content fault on a tensor no conformant producer of its
// header makes is the producer's doing (the rule it broke), and nothing else is.
#include "hardening.h"

#include "catch.hpp"
#include "suppressions.h"

namespace {

dlc::CaseResult consumer_finding(const std::string& tensor, const std::string& cls,
                                 const std::string& producer_header = "v1.3") {
  dlc::CaseResult r;
  r.id = "edge/versioned-producer@" + producer_header + "/my-consumer@v1.3/" + tensor;
  r.tensor = tensor;
  r.producer = {"versioned-producer", producer_header};
  r.consumer = {"my-consumer", "v1.3"};
  r.verdict = cls == "crash" ? dlc::Verdict::crash : dlc::Verdict::fail;
  r.finding_class = cls;
  r.rule_id = "LAY-1";
  r.role = "consumer";
  r.detail = "SIGSEGV in consume()";
  return r;
}

}  // namespace

TEST_CASE("hardening: a content fault on an invalid tensor is the producer's broken rule",
          "[unit]") {
  dlc::CaseResult c = consumer_finding("shape_overflow_int64", "crash");
  REQUIRE(dlc::mark_hardening(c));
  CHECK(c.hardening);
  CHECK(c.role == "hardening");
  CHECK(c.rule_id == "LAY-10");
  CHECK(c.detail.rfind("hardening: crash on an invalid tensor (the producer broke LAY-10: ", 0) ==
        0);
  CHECK(c.detail.find("SIGSEGV in consume()") != std::string::npos);
  CHECK_FALSE(dlc::mark_hardening(c));  // once

  // A framework row's tensor carries the entry point it went through.
  dlc::CaseResult prefixed =
      consumer_finding("utils.dlpack.from_dlpack/dtype_zero_lanes", "out-of-bounds");
  REQUIRE(dlc::mark_hardening(prefixed));
  CHECK(prefixed.rule_id == "DT-1");
}

TEST_CASE("hardening: the same fault on a valid tensor stays a conformance finding", "[unit]") {
  dlc::CaseResult valid = consumer_finding("f32_8x8", "out-of-bounds");
  CHECK_FALSE(dlc::mark_hardening(valid));
  CHECK_FALSE(valid.hardening);
  CHECK(valid.role == "consumer");
  CHECK(valid.rule_id == "LAY-1");

  // Judged by the producer's header: a bool is valid from a producer of 1.3, not from one of
  // 0.6, whose header has no code for it.
  dlc::CaseResult new_header = consumer_finding("dtype_bool", "crash", "v1.3");
  CHECK_FALSE(dlc::mark_hardening(new_header));
  dlc::CaseResult old_header = consumer_finding("dtype_bool", "crash", "v0.6");
  CHECK(dlc::mark_hardening(old_header));
  // NULL strides in a 1.3 struct break a producer's LAY-5, yet the validator reads them as
  // compact (the sentence binds producers): a consumer's fault there stays its own.
  dlc::CaseResult null_strides = consumer_finding("f32_8x8_null_strides", "crash", "v1.3");
  CHECK_FALSE(dlc::mark_hardening(null_strides));
  // A producer of no known header: invalid only when no header allows it.
  dlc::CaseResult unknown = consumer_finding("dtype_bool", "crash", "2.13.0");
  CHECK_FALSE(dlc::mark_hardening(unknown));
  dlc::CaseResult unknown_invalid = consumer_finding("shape_overflow_int64", "crash", "2.13.0");
  CHECK(dlc::mark_hardening(unknown_invalid));
}

TEST_CASE("hardening: ownership defects, producers' findings and unknown tensors are untouched",
          "[unit]") {
  // A second deleter call is the consumer's whatever the tensor holds.
  dlc::CaseResult twice = consumer_finding("shape_overflow_int64", "deleter-called-twice");
  CHECK_FALSE(dlc::mark_hardening(twice));
  dlc::CaseResult refused = consumer_finding("shape_overflow_int64", "accepted-invalid");
  CHECK_FALSE(dlc::mark_hardening(refused));
  dlc::CaseResult producer = consumer_finding("shape_overflow_int64", "crash");
  producer.role = "producer";
  CHECK_FALSE(dlc::mark_hardening(producer));
  dlc::CaseResult unknown = consumer_finding("no_such_tensor", "crash");
  CHECK_FALSE(dlc::mark_hardening(unknown));
}

TEST_CASE("hardening: a used capsule a __dlpack__ returns is the producer's; one a user hands "
          "a capsule entry point is the consumer's",
          "[unit]") {
  dlc::CaseResult through_dunder = consumer_finding("used-capsule/versioned", "use-after-delete");
  REQUIRE(dlc::mark_hardening(through_dunder));
  CHECK(through_dunder.rule_id == "LIFE-8");
  dlc::CaseResult capsule_path =
      consumer_finding("nd.from_dlpack/used-capsule/versioned", "use-after-delete");
  CHECK_FALSE(dlc::mark_hardening(capsule_path));
  dlc::CaseResult refusal = consumer_finding("used-capsule/versioned", "wrong-refusal-exception");
  CHECK_FALSE(dlc::mark_hardening(refusal));
}

TEST_CASE("hardening: its own suppression role and its own exit bit", "[unit]") {
  dlc::CaseResult hardening = consumer_finding("shape_overflow_int64", "crash");
  REQUIRE(dlc::mark_hardening(hardening));
  dlc::CaseResult conformance = consumer_finding("f32_8x8", "crash");
  conformance.rule_id = "LAY-10";
  std::vector<dlc::CaseResult> cases = {hardening, conformance};
  CHECK(dlc::findings_exit_bits(cases, false) == (16 | 8));
  CHECK(dlc::findings_exit_bits({hardening}, false) == 16);

  dlc::Suppressions s;
  std::string error;
  REQUIRE(dlc::parse_suppressions("LAY-10 crash hardening my-consumer aborts on an overflow\n",
                                  "known.txt", &s, &error));
  CHECK(s.entries[0].label() == "LAY-10 crash hardening my-consumer");
  CHECK(dlc::apply_suppressions(s, cases) == 1);
  CHECK(cases[0].known);
  CHECK_FALSE(cases[1].known);  // the consumer's own crash on a valid tensor is not hidden
  CHECK(dlc::findings_exit_bits(cases, false) == 8);

  dlc::Suppressions consumer_entry;
  REQUIRE(dlc::parse_suppressions("LAY-10 crash consumer my-consumer aborts\n", "known.txt",
                                  &consumer_entry, &error));
  std::vector<dlc::CaseResult> only_hardening = {hardening};
  CHECK(dlc::apply_suppressions(consumer_entry, only_hardening) == 0);
}
