// The records the framework driver prints, parsed back; environments resolved.
#include "frameworks.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

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
  CHECK(r.role == "producer");  // dlconform's own consumer is never the one blamed
  // A case whose values nobody could read is a skip of its own, never a judged pass.
  dlc::CaseResult unread;
  REQUIRE(dlc::parse_framework_record(
      "id\tpairs\ta\ta@1\tb\tb@2\tt\tskip\t\t\t\tnot judged: values not read", &unread));
  CHECK(unread.expected == dlc::Expectation::skip);
  CHECK(unread.as_expected());
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

TEST_CASE("frameworks: an environment's variables are read and prefix the driver", "[unit]") {
  std::vector<std::pair<std::string, std::string>> vars;
  std::string error;
  REQUIRE(dlc::parse_environment_file(
      "OCL_ICD_FILENAMES=/v/oneapi/lib/libintelocl.so\n"
      "\n"
      "# written by tools/dev\n"
      "LD_LIBRARY_PATH=/v/oneapi/lib:/opt/it's here\r\n"
      "EMPTY=\n"
      "A_2=x=y",
      &vars, &error));
  REQUIRE(vars.size() == 4);
  CHECK(vars[0] == std::make_pair(std::string("OCL_ICD_FILENAMES"),
                                  std::string("/v/oneapi/lib/libintelocl.so")));
  CHECK(vars[1].second == "/v/oneapi/lib:/opt/it's here");
  CHECK(vars[2] == std::make_pair(std::string("EMPTY"), std::string()));
  CHECK(vars[3] == std::make_pair(std::string("A_2"), std::string("x=y")));
  CHECK(dlc::environment_prefix(vars) ==
        "OCL_ICD_FILENAMES='/v/oneapi/lib/libintelocl.so' "
        "LD_LIBRARY_PATH='/v/oneapi/lib:/opt/it'\\''s here' EMPTY='' A_2='x=y' ");
  CHECK(dlc::environment_prefix({}).empty());

  CHECK_FALSE(dlc::parse_environment_file("GOOD=1\nno equals sign\n", &vars, &error));
  CHECK(error == "line 2: expected VAR=VALUE but found 'no equals sign'");
  CHECK_FALSE(dlc::parse_environment_file("2BAD=1\n", &vars, &error));
  CHECK(error == "line 1: expected VAR=VALUE but found '2BAD=1'");
  CHECK_FALSE(dlc::parse_environment_file("=1\n", &vars, &error));
}

TEST_CASE("frameworks: an environment's variables reach the resolved environment", "[unit]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("dlc-envs-test-" + std::to_string(getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "envs");
  fs::create_directories(root / "venvs" / "overlay" / "bin");
  const std::string pins =
      "# overlay: a test\n# environment: A={env}/lib\n# with: frameworks\nsix==1.17.0\n";
  std::ofstream(root / "envs" / "overlay.txt") << pins;
  std::ofstream(root / "venvs" / "overlay" / ".dlconform-pins") << pins;
  std::ofstream(root / "venvs" / "overlay" / "bin" / "python") << "";
  setenv("DLCONFORM_ENVS_DIR", (root / "envs").c_str(), 1);
  setenv("DLCONFORM_ENV_DIR", (root / "venvs").c_str(), 1);
  dlc::FrameworkEnv plain = dlc::resolve_framework_env("overlay");
  CHECK(plain.python == (root / "venvs" / "overlay" / "bin" / "python").string());
  CHECK(plain.environment.empty());
  std::ofstream(root / "venvs" / "overlay" / ".dlconform-environment")
      << "A=" << (root / "venvs" / "overlay" / "lib").string() << "\n";
  dlc::FrameworkEnv with_vars = dlc::resolve_framework_env("overlay");
  REQUIRE(with_vars.environment.size() == 1);
  CHECK(with_vars.environment[0].second == (root / "venvs" / "overlay" / "lib").string());
  std::ofstream(root / "venvs" / "overlay" / ".dlconform-environment") << "not a variable\n";
  dlc::FrameworkEnv bad = dlc::resolve_framework_env("overlay");
  CHECK(bad.python.empty());
  CHECK(bad.why.find("expected VAR=VALUE") != std::string::npos);
  // The pins files of $DLCONFORM_ENVS_DIR are what `all` stands for.
  const std::vector<std::string> all = dlc::all_framework_envs();
  CHECK(all == std::vector<std::string>{"debian", "overlay"});
  CHECK(dlc::resolve_framework_env("frameworks").why ==
        "no framework environment named frameworks (expected " + (root / "envs").string() +
            "/frameworks.txt)");
  unsetenv("DLCONFORM_ENVS_DIR");
  unsetenv("DLCONFORM_ENV_DIR");
  fs::remove_all(root);
}
