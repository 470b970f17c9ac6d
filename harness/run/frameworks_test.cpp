// The records the framework driver prints, parsed back; environments resolved.
#include "frameworks.h"

#include <algorithm>

#include "catch.hpp"

TEST_CASE("frameworks: a case record is parsed, a malformed one refused", "[unit]") {
  dlc::CaseResult r;
  REQUIRE(dlc::parse_framework_record(
      "framework/numpy@2.4.6/dlconform-consumer@v1.3/f32_2x3\tframework\tnumpy\tnumpy@2.4.6\t"
      "dlconform-consumer\tv1.3\tf32_2x3\tfail\tproducer-violation\tFLAG-1b\tSHOULD\twords",
      &r));
  CHECK(r.id == "framework/numpy@2.4.6/dlconform-consumer@v1.3/f32_2x3");
  CHECK(r.producer.header == "numpy@2.4.6");
  CHECK(r.verdict == dlc::Verdict::fail);
  CHECK(r.expected == dlc::Expectation::pass);
  CHECK(r.finding_class == "producer-violation");
  CHECK(r.rule_id == "FLAG-1b");
  CHECK(r.severity == "SHOULD");
  CHECK(r.detail == "words");
  dlc::CaseResult pass;
  REQUIRE(dlc::parse_framework_record("id\tpairs\ta\ta@1\tb\tb@2\tt\tpass\t\t\t\tok", &pass));
  CHECK(pass.finding_class.empty());
  dlc::CaseResult bad;
  CHECK_FALSE(dlc::parse_framework_record("not a record", &bad));
  CHECK_FALSE(dlc::parse_framework_record("id\tpairs\ta\ta@1\tb\tb@2\tt\tmaybe\t\t\t\t", &bad));
}

TEST_CASE("frameworks: environments resolve, or say what creates them", "[unit]") {
  const dlc::FrameworkEnv none = dlc::resolve_framework_env("no-such-env");
  CHECK(none.python.empty());
  CHECK(none.why == "no framework environment named no-such-env (expected envs/no-such-env.txt)");
  setenv("DLCONFORM_ENV_DIR", "/nonexistent/venvs", 1);
  const dlc::FrameworkEnv missing = dlc::resolve_framework_env("mxnet");
  CHECK(missing.python.empty());
  CHECK(missing.why.find("run `tools/dev envs mxnet`") != std::string::npos);
  const std::vector<std::string> all = dlc::all_framework_envs();
  CHECK(all.front() == "debian");
  CHECK(std::find(all.begin(), all.end(), "frameworks") != all.end());
}
