// The record the framework driver prints for each case, parsed back.
#include "frameworks.h"

#include "catch.hpp"

TEST_CASE("frameworks: a record is parsed, a malformed one refused", "[unit]") {
  dlc::CaseResult r;
  REQUIRE(dlc::parse_framework_record(
      "framework/numpy@2.4.6/dlconform-consumer@v1.3/f32_2x3\tframework\tnumpy\tnumpy-2.4.6\t"
      "dlconform-consumer\tv1.3\tf32_2x3\tpass\t\t\timported",
      &r));
  CHECK(r.id == "framework/numpy@2.4.6/dlconform-consumer@v1.3/f32_2x3");
  CHECK(r.producer.header == "numpy-2.4.6");
  CHECK(r.verdict == dlc::Verdict::pass);
  CHECK(r.expected == dlc::Expectation::pass);
  CHECK(r.detail == "imported");
  dlc::CaseResult skip;
  REQUIRE(dlc::parse_framework_record(
      "framework/mlx/unavailable\tframework\tmlx\t-\t-\t-\t-\tskip\t\t\tnot installed", &skip));
  CHECK(skip.expected == dlc::Expectation::skip);
  dlc::CaseResult bad;
  CHECK_FALSE(dlc::parse_framework_record("not a record", &bad));
  CHECK_FALSE(dlc::parse_framework_record("id\tframework\tp\th\tc\th\tt\tmaybe\t\t\t", &bad));
}
