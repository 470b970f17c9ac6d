// The report writers on a synthetic run with hostile strings: every format must stay well-formed
// and its counts must match the cases.
#include "report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "catch.hpp"

namespace {

std::vector<dlc::CaseResult> sample() {
  std::vector<dlc::CaseResult> cases;
  auto add = [&](const char* scenario, const char* ph, const char* ch, dlc::Verdict v,
                 dlc::Expectation e, const char* cls, const char* detail) {
    dlc::CaseResult c;
    c.id = std::string(scenario) + "/p@" + ph + "/c@" + ch + "/" + std::to_string(cases.size());
    c.scenario = scenario;
    c.producer = {"p", ph};
    c.consumer = {"c", ch};
    c.tensor = "t";
    c.verdict = v;
    c.expected = e;
    c.finding_class = cls;
    c.rule_id = *cls ? "LIFE-3" : "";
    c.detail = detail;
    cases.push_back(c);
  };
  using V = dlc::Verdict;
  using E = dlc::Expectation;
  add("S0", "v1.3", "v0.6", V::pass, E::pass, "", "imported correctly");
  add("S0", "v1.3", "v0.6", V::skip, E::skip, "", "producer refused");
  add("raw", "v1.3", "v0.6", V::crash, E::broken, "wild-pointer", "SIGSEGV <b>&\"quoted\"</b>");
  add("S1", "v0.6", "v1.3", V::fail, E::pass, "deleter-called-twice", "a | pipe\nand a newline");
  add("edge", "v1.10", "v1.2", V::timeout, E::pass, "timeout", "bad utf-8 \xff\xfe and \x01 ctl");
  add("edge", "v1.2", "v1.2", V::pass, E::pass, "", "</script><script>alert(1)</script>");
  return cases;
}

dlc::RunInfo info() {
  dlc::RunInfo i;
  i.tool_version = "test";
  i.machine = "machine \"x\"";
  i.plugins = {"p@v1.3 (/a/b.so)"};
  return i;
}

bool python_parses(const std::string& text, const std::string& code) {
  const std::string path = "/tmp/dlconform-report-test-" + std::to_string(getpid());
  std::ofstream(path) << text;
  const int rc = std::system(("python3 -c '" + code + "' " + path).c_str());
  std::remove(path.c_str());
  return rc == 0;
}

}  // namespace

TEST_CASE("report: JSON is valid and its summary counts the cases", "[unit]") {
  const std::string json = dlc::render_json(info(), sample());
  CHECK(python_parses(json,
                      "import json,sys; d=json.load(open(sys.argv[1])); "
                      "assert d[\"summary\"][\"cases\"]==6, d[\"summary\"]; "
                      "assert d[\"summary\"][\"unexpected\"]==2; "
                      "assert d[\"cases\"][3][\"detail\"]==\"a | pipe\\nand a newline\""));
}

TEST_CASE("report: JUnit is well-formed XML with one failure per unexpected case", "[unit]") {
  const std::string xml = dlc::render_junit(info(), sample());
  CHECK(python_parses(xml,
                      "import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); "
                      "assert len(r.findall(\".//failure\"))==2; "
                      "assert len(r.findall(\".//testcase\"))==6"));
}

TEST_CASE("report: Markdown grids mark each cell and escape table syntax", "[unit]") {
  const std::string md = dlc::render_markdown(info(), sample());
  CHECK(md.find("## S0") < md.find("## S1"));
  CHECK(md.find("## S1") < md.find("## raw"));
  CHECK(md.find("✅") != std::string::npos);
  CHECK(md.find("⚠️") != std::string::npos);
  CHECK(md.find("❌") != std::string::npos);
  CHECK(md.find("a \\| pipe and a newline") != std::string::npos);
  // v1.2 sorts before v1.10.
  const std::string edge = md.substr(md.find("## edge"));
  CHECK(edge.find("**v1.2**") < edge.find("**v1.10**"));
}

TEST_CASE("report: HTML escapes text and cannot be closed by a detail string", "[unit]") {
  const std::string html = dlc::render_html(info(), sample());
  CHECK(html.find("<script>alert(1)") == std::string::npos);
  CHECK(html.find("<b>&") == std::string::npos);
  CHECK(html.find("&lt;b&gt;&amp;&quot;quoted&quot;") != std::string::npos);
  CHECK(html.find("\\u003c/script>") != std::string::npos);
  CHECK(html.find("http") == std::string::npos);  // self-contained
}

TEST_CASE("report: atomic write replaces whole files and fails cleanly", "[unit]") {
  const std::string path = "/tmp/dlconform-report-test-atomic.txt";
  std::string error;
  REQUIRE(dlc::write_file_atomic(path, "a long first version of the file\n", &error));
  REQUIRE(dlc::write_file_atomic(path, "short\n", &error));
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  CHECK(s.str() == "short\n");
  std::remove(path.c_str());
  CHECK_FALSE(dlc::write_file_atomic("/proc/no/such/dir/report.json", "x", &error));
  CHECK(error.find("cannot write report /proc/no/such/dir/report.json: ") == 0);
  struct stat st {};
  CHECK(stat("/proc/no/such/dir/report.json.tmp", &st) != 0);
}
