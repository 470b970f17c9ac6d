// The report writers on a synthetic run with hostile strings: every format stays well-formed,
// its counts match the cases, and a report file is either the old one or the new one.
#include "report.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "report_model.h"
#include "report_text.h"

namespace {

using dlc::CaseResult;
using dlc::Expectation;
using dlc::Verdict;

// ---- a tiny strict JSON parser (RFC 8259), so the test needs no Python -----------------------

struct Json {
  enum Kind { null, boolean, number, string, array, object } kind = null;
  bool b = false;
  double n = 0;
  std::string s;
  std::vector<Json> items;
  // Keys and values side by side: a std::pair holding the incomplete Json does not compile with
  // libstdc++ 12 under clang 14, while a vector of an incomplete type is allowed (C++17).
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json& operator[](const std::string& key) const {
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] == key) return values[i];
    }
    throw std::runtime_error("no key " + key);
  }
  bool has(const std::string& key) const {
    for (const std::string& k : keys) {
      if (k == key) return true;
    }
    return false;
  }
  const Json& operator[](size_t i) const { return items.at(i); }
};

class Parser {
 public:
  explicit Parser(std::string_view text) : t_(text) {}

  Json document() {
    Json v = value();
    space();
    if (i_ != t_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error("JSON: " + why + " at offset " + std::to_string(i_));
  }
  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r'))
      ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  Json value() {
    space();
    if (i_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[i_];
    if (c == '{') {
      v.kind = Json::object;
      ++i_;
      if (eat('}')) return v;
      do {
        space();
        std::string key = string();
        expect(':');
        v.keys.push_back(std::move(key));
        v.values.push_back(value());
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.kind = Json::array;
      ++i_;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::string;
      v.s = string();
    } else if (literal("true") || literal("false")) {
      v.kind = Json::boolean;
      v.b = t_[i_ - 1] == 'e' && t_[i_ - 2] == 'u';
    } else if (literal("null")) {
      v.kind = Json::null;
    } else {
      v.kind = Json::number;
      v.n = number();
    }
    return v;
  }
  double number() {
    const size_t start = i_;
    auto digits = [&] {
      const size_t from = i_;
      while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) ++i_;
      if (i_ == from) fail("digit expected");
    };
    if (t_[i_] == '-') ++i_;
    if (i_ < t_.size() && t_[i_] == '0') {
      ++i_;
    } else {
      digits();
    }
    if (i_ < t_.size() && t_[i_] == '.') {
      ++i_;
      digits();
    }
    if (i_ < t_.size() && (t_[i_] == 'e' || t_[i_] == 'E')) {
      ++i_;
      if (i_ < t_.size() && (t_[i_] == '+' || t_[i_] == '-')) ++i_;
      digits();
    }
    return std::stod(std::string(t_.substr(start, i_ - start)));
  }
  std::string string() {
    if (i_ >= t_.size() || t_[i_] != '"') fail("string expected");
    ++i_;
    std::string out;
    while (true) {
      if (i_ >= t_.size()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(t_[i_++]);
      if (c == '"') break;
      if (c < 0x20) fail("raw control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (i_ >= t_.size()) fail("unterminated escape");
      const char e = t_[i_++];
      const std::string_view simple = "\"\\/bfnrt", meaning = "\"\\/\b\f\n\r\t";
      if (const size_t k = simple.find(e); k != std::string_view::npos) {
        out += meaning[k];
      } else if (e == 'u') {
        if (i_ + 4 > t_.size()) fail("short \\u escape");
        const unsigned cp = std::stoul(std::string(t_.substr(i_, 4)), nullptr, 16);
        i_ += 4;
        if (cp >= 0xD800 && cp <= 0xDFFF) fail("surrogate escape (never written by dlconform)");
        if (cp < 0x80) {
          out += static_cast<char>(cp);
        } else if (cp < 0x800) {
          out += static_cast<char>(0xC0 | (cp >> 6));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
          out += static_cast<char>(0xE0 | (cp >> 12));
          out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          out += static_cast<char>(0x80 | (cp & 0x3F));
        }
      } else {
        fail("bad escape");
      }
    }
    if (dlc::report::valid_utf8(out) != out) fail("invalid UTF-8 in string");
    return out;
  }

  std::string_view t_;
  size_t i_ = 0;
};

Json parse_json(const std::string& text) { return Parser(text).document(); }

// ---- the synthetic run
// ---------------------------------------------------------------------------

CaseResult make(const std::string& scenario, const std::string& ph, const std::string& ch,
                Verdict v, Expectation e, const std::string& cls = "", const std::string& rule = "",
                const std::string& detail = "") {
  static int serial = 0;
  CaseResult c;
  c.scenario = scenario;
  c.producer = {"prod", ph};
  c.consumer = {"cons", ch};
  c.tensor = "t" + std::to_string(serial++);
  c.id = scenario + "/prod@" + ph + "/cons@" + ch + "/" + c.tensor;
  c.verdict = v;
  c.expected = e;
  c.finding_class = cls;
  c.rule_id = rule;
  c.detail = detail;
  c.seconds = 0.25;
  return c;
}

const char kNasty[] = "a | pipe\nnew line \"quoted\" <b>&amp;</b> \x01\x1f tab\t \xff\xfe end";

// 12 cases: 7 as expected (3 pass, 2 expected-broken, 2 skip), 4 unexpected, 1 known.
std::vector<CaseResult> sample() {
  using V = Verdict;
  using E = Expectation;
  std::vector<CaseResult> cases = {
      make("S1", "v0.6", "v1.3", V::pass, E::pass, "", "", "imported correctly"),
      make("S0", "v1.3", "v0.6", V::pass, E::pass),
      make("S0", "v1.3", "v0.6", V::skip, E::skip, "", "", "producer refused (FLAG-1)"),
      make("raw", "v1.3", "v0.6", V::crash, E::broken, "bad-function-pointer", "LAY-3",
           "old consumer reads the versioned struct as legacy: deleter at offset 56 is not a "
           "deleter"),
      make("raw", "v1.3", "v0.6", V::crash, E::broken, "bad-function-pointer", "LAY-3",
           "old consumer reads the versioned struct as legacy: deleter at offset 56 is not a "
           "deleter"),
      make("raw", "v1.3", "v1.3", V::skip, E::skip),
      make("S1", "v0.6", "v1.2", V::fail, E::pass, "deleter-called-twice", "LIFE-3", kNasty),
      make("edge", "v1.10", "v1.2", V::timeout, E::pass, "timeout", "", "killed after 10 s"),
      make("edge", "v1.2", "v1.2", V::pass, E::pass, "", "", "</script><script>alert(1)</script>"),
      make("planted", "v1.3", "v1.3", V::fail, E::broken, "wrong-data", "LAY-4", "caught late"),
      make("planted", "v1.3", "v0.6", V::pass, E::broken, "", "", "imported correctly"),
      make("S0", "v1.1", "v0.7", V::fail, E::pass, "capsule-not-renamed", "LIFE-1",
           "still named dltensor"),
  };
  cases[9].expected_class = "use-after-delete";  // found the wrong class: unexpected
  cases.back().known = true;
  return cases;
}

dlc::RunInfo info() {
  dlc::RunInfo i;
  i.tool_version = "test";
  i.started_at = "2026-11-22T12:43:58Z";
  i.machine = "machine \"x\" <y>";
  i.wall_seconds = 12.5;
  i.jobs = 4;
  i.details = true;
  i.parties = {{"p@v1.3", "producer", "every dtype (declared)", "/a/b.so", true}};
  return i;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t occurrences(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The cells of the grid row `row` under the Markdown heading "## scenario", by column label.
std::map<std::string, std::string> markdown_row(const std::string& md, const std::string& scenario,
                                                const std::string& row) {
  const size_t section = md.find("\n## " + scenario + "\n");
  REQUIRE(section != std::string::npos);
  std::istringstream lines(md.substr(section));
  std::string line, header;
  std::vector<std::string> columns;
  auto split = [](const std::string& l) {
    std::vector<std::string> parts;
    std::string part;
    for (size_t i = 1; i < l.size(); ++i) {  // skip the leading '|'
      if (l[i] == '|' && l[i - 1] != '\\') {
        const size_t a = part.find_first_not_of(' '), b = part.find_last_not_of(' ');
        parts.push_back(a == std::string::npos ? "" : part.substr(a, b - a + 1));
        part.clear();
      } else {
        part += l[i];
      }
    }
    return parts;
  };
  std::map<std::string, std::string> cells;
  while (std::getline(lines, line)) {
    if (line.rfind("| producer", 0) == 0) columns = split(line);
    if (line.rfind("| **" + row + "** |", 0) == 0) {
      const std::vector<std::string> parts = split(line);
      for (size_t k = 1; k < parts.size() && k < columns.size(); ++k) cells[columns[k]] = parts[k];
      break;
    }
  }
  return cells;
}

}  // namespace

TEST_CASE("report: as_expected follows the expectation", "[report]") {
  using V = Verdict;
  using E = Expectation;
  CHECK(make("S0", "a", "b", V::pass, E::pass).as_expected());
  CHECK_FALSE(make("S0", "a", "b", V::skip, E::pass).as_expected());
  CHECK(make("S0", "a", "b", V::skip, E::skip).as_expected());
  CHECK_FALSE(make("S0", "a", "b", V::pass, E::skip).as_expected());
  for (V v : {V::fail, V::crash, V::timeout}) {
    CHECK(make("S0", "a", "b", v, E::broken, "x").as_expected());
    CaseResult c = make("S0", "a", "b", v, E::broken, "x");
    c.expected_class = "y";
    CHECK_FALSE(c.as_expected());
    c.expected_class = "x";
    CHECK(c.as_expected());
  }
  CHECK_FALSE(make("S0", "a", "b", V::pass, E::broken).as_expected());
  CHECK(std::string(dlc::to_string(V::timeout)) == "timeout");
  CHECK(std::string(dlc::to_string(E::broken)) == "broken");
}

TEST_CASE("report: JSON strings escape what they must and repair invalid UTF-8", "[report]") {
  using dlc::json_string;
  CHECK(json_string("a\"b\\c/") == "\"a\\\"b\\\\c/\"");
  CHECK(json_string("\n\r\t\b\f\x01\x1f\x7f") == "\"\\n\\r\\t\\b\\f\\u0001\\u001f\x7f\"");
  // Non-ASCII passes through as UTF-8.
  CHECK(json_string("é → 😀") == "\"é → 😀\"");
  CHECK(json_string(std::string_view("a\0b", 3)) == "\"a\\u0000b\"");  // embedded NUL
  CHECK(json_string("\xff") == "\"\xEF\xBF\xBD\"");                    // stray byte
  CHECK(json_string("\xC0\xAF") == "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");    // overlong '/'
  CHECK(json_string("\xED\xA0\x80") ==                                 // a surrogate
        "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  CHECK(json_string("\xE2\x82x") == "\"\xEF\xBF\xBDx\"");  // truncated: one U+FFFD, then 'x'
  CHECK(json_string("\xF4\x90\x80\x80") ==                 // above U+10FFFF
        "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
  CHECK(json_string("\xE2\x80\xA8") == "\"\\u2028\"");  // valid JSON, but not valid JavaScript
  CHECK(dlc::report::script_quote("</script>&") == "\"\\u003c/script\\u003e\\u0026\"");
}

TEST_CASE("report: numbers ignore the locale and JSON gets no NaN", "[report]") {
  using dlc::report::fixed_number;
  using dlc::report::human_duration;
  using dlc::report::json_number;
  CHECK(json_number(0.25) == "0.25");
  CHECK(json_number(1e-6) == "1e-06");
  CHECK(json_number(NAN) == "null");
  CHECK(json_number(INFINITY) == "null");
  CHECK(fixed_number(2.656, 2) == "2.66");
  CHECK(human_duration(2.656) == "2.66 s");
  CHECK(human_duration(245) == "4 min 05 s");
  CHECK(human_duration(7620) == "2 h 07 min");
  CHECK(human_duration(NAN) == "0.00 s");
}

TEST_CASE("report: JSON parses and its summary counts the cases", "[report]") {
  const std::vector<CaseResult> cases = sample();
  dlc::RunInfo i = info();
  i.wall_seconds = NAN;  // must not produce an unparsable document
  const Json doc = parse_json(dlc::render_json(i, cases));
  CHECK(doc["tool"].s == "dlconform");
  CHECK(doc["run"]["tool_version"].s == "test");
  CHECK(doc["run"]["wall_seconds"].kind == Json::null);
  CHECK(doc["run"]["jobs"].n == 4);
  CHECK(doc["run"]["parties"][0]["label"].s == "p@v1.3");
  CHECK(doc["run"]["parties"][0]["path"].s == "/a/b.so");
  // Without run details: no time, no machine, no paths, so that a committed report diffs cleanly.
  i.details = false;
  const Json plain = parse_json(dlc::render_json(i, cases));
  CHECK_FALSE(plain["run"].has("started_at"));
  CHECK_FALSE(plain["run"].has("wall_seconds"));
  CHECK_FALSE(plain["run"]["parties"][0].has("path"));
  CHECK_FALSE(plain["cases"][0].has("seconds"));
  const std::string md = dlc::render_markdown(i, cases);
  CHECK(md.find("2026-11-22") == std::string::npos);
  CHECK(md.find("/a/b.so") == std::string::npos);
  CHECK(dlc::render_junit(i, cases).find("timestamp") == std::string::npos);
  const Json& s = doc["summary"];
  CHECK(s["cases"].n == 12);
  CHECK(s["as_expected"].n == 7);
  CHECK(s["unexpected"].n == 4);
  CHECK(s["known"].n == 1);
  CHECK(s["by_verdict"]["pass"].n == 4);
  CHECK(s["by_verdict"]["fail"].n == 3);
  CHECK(s["by_verdict"]["crash"].n == 2);
  CHECK(s["by_verdict"]["timeout"].n == 1);
  CHECK(s["by_verdict"]["skip"].n == 2);

  const Json& list = doc["cases"];
  REQUIRE(list.items.size() == cases.size());
  for (size_t k = 0; k < cases.size(); ++k) CHECK(list[k]["id"].s == cases[k].id);  // input order
  const Json& nasty = list[6];
  CHECK(nasty["detail"].s ==
        "a | pipe\nnew line \"quoted\" <b>&amp;</b> \x01\x1f tab\t \xEF\xBF\xBD\xEF\xBF\xBD end");
  CHECK(nasty["producer"]["header"].s == "v0.6");
  CHECK(nasty["consumer"]["name"].s == "cons");
  CHECK(nasty["verdict"].s == "fail");
  CHECK(nasty["expected"].s == "pass");
  CHECK(nasty["rule_id"].s == "LIFE-3");
  CHECK(nasty["as_expected"].b == false);
  CHECK(nasty["seconds"].n == 0.25);
  CHECK(list[9]["expected_class"].s == "use-after-delete");
  CHECK(list[11]["known"].b == true);
  // One case per line: diffs between runs stay readable.
  CHECK(occurrences(dlc::render_json(info(), cases), "\n    {\"id\": ") == cases.size());
}

TEST_CASE("report: every format survives an empty run", "[report]") {
  const std::vector<CaseResult> none;
  const Json doc = parse_json(dlc::render_json(info(), none));
  CHECK(doc["summary"]["cases"].n == 0);
  CHECK(doc["cases"].items.empty());
  CHECK(dlc::render_markdown(info(), none).find("All 0 cases as expected") != std::string::npos);
  CHECK(dlc::render_junit(info(), none).find("<testsuites name=\"dlconform\" tests=\"0\"") !=
        std::string::npos);
  CHECK(dlc::render_html(info(), none).find("\"cases\":[]") != std::string::npos);
}

TEST_CASE("report: scenarios and headers sort for a reader", "[report]") {
  using dlc::report::header_less;
  using dlc::report::natural_less;
  CHECK(natural_less("v1.2", "v1.10"));
  CHECK_FALSE(natural_less("v1.10", "v1.2"));
  CHECK(natural_less("numpy-2.1", "numpy-10.0"));
  CHECK(natural_less("x99999999999999999999999", "x100000000000000000000000"));  // no overflow
  CHECK((natural_less("v01", "v1") != natural_less("v1", "v01")));               // strict order
  CHECK(header_less("v1.3", "variant-a0"));
  CHECK(header_less("variant-a3", "numpy-2.1"));
  CHECK(header_less("variant-a0", "variant-a1"));
  CHECK(header_less("v0.6", "v0.10"));

  std::vector<CaseResult> cases;
  for (const char* s : {"zeta", "planted", "used-capsule", "native", "S2", "edge", "S0", "raw",
                        "negotiation", "S1", "alpha", "S0"}) {
    cases.push_back(make(s, "v1.0", "v1.0", Verdict::pass, Expectation::pass));
  }
  const std::vector<std::string> order = dlc::report::scenario_order(cases);
  CHECK(order == std::vector<std::string>{"S0", "S1", "S2", "raw", "negotiation", "edge",
                                          "used-capsule", "planted", "alpha", "native", "zeta"});
}

TEST_CASE("report: a broken cell is explained by its most common finding", "[report]") {
  using V = Verdict;
  using E = Expectation;
  std::vector<CaseResult> cases = {
      make("raw", "v1.3", "v0.6", V::crash, E::broken, "bad-function-pointer", "LAY-3",
           "deleter at offset 56 is not a deleter"),
      make("raw", "v1.3", "v0.6", V::crash, E::broken, "wild-pointer", "LAY-2", "elsewhere"),
      make("raw", "v1.3", "v0.6", V::crash, E::broken, "bad-function-pointer", "LAY-3",
           "deleter at offset 56 is not a deleter"),
      make("raw", "v1.3", "v0.6", V::pass, E::pass),
  };
  const auto grids = dlc::report::build_grids(cases);
  REQUIRE(grids.size() == 1);
  const dlc::report::Cell& cell = grids[0].at(0, 0);
  CHECK(cell.state() == dlc::report::CellState::expected_broken);
  CHECK(dlc::report::cell_title(cell) + ": " + dlc::report::reason_sentence(cell) ==
        "v1.3 → v0.6 (raw): deleter at offset 56 is not a deleter (LAY-3); "
        "bad-function-pointer in 2 of 4 cases, and 1 other finding");

  // An unexpected case outranks any number of expected-broken ones, and says what was expected.
  cases.push_back(make("raw", "v1.3", "v0.6", V::pass, E::broken, "", "", "imported correctly"));
  cases.back().expected_class = "wild-pointer";
  const auto again = dlc::report::build_grids(cases);
  CHECK(again[0].at(0, 0).state() == dlc::report::CellState::unexpected);
  CHECK(dlc::report::reason_sentence(again[0].at(0, 0)) ==
        "passed, but wild-pointer was expected: imported correctly; 1 of 5 cases");
}

TEST_CASE("report: Markdown grids mark each cell and escape table syntax", "[report]") {
  const std::string md = dlc::render_markdown(info(), sample());
  CHECK(md.find("❌ **4 unexpected results.**") != std::string::npos);
  CHECK(md.find("| 12 | 7 | 4 | 1 | 12.5 s |") != std::string::npos);
  for (const char* s : {"S0", "S1", "raw", "edge", "planted"}) {
    CHECK(md.find(std::string("\n## ") + s + "\n") != std::string::npos);
  }
  CHECK(md.find("## S0") < md.find("## S1"));
  CHECK(md.find("## S1") < md.find("## raw"));
  CHECK(md.find("## raw") < md.find("## edge"));
  CHECK(md.find("## edge") < md.find("## planted"));
  CHECK(md.find("## planted") < md.find("## Unexpected results"));

  CHECK(markdown_row(md, "S0", "v1.3")["v0.6"] == "✅");       // a pass and an expected skip
  CHECK(markdown_row(md, "S0", "v1.1")["v0.7"] == "⚠️");  // known (suppressed)
  CHECK(markdown_row(md, "S1", "v0.6")["v1.3"] == "✅");
  CHECK(markdown_row(md, "S1", "v0.6")["v1.2"] == "❌");
  CHECK(markdown_row(md, "raw", "v1.3")["v0.6"] == "⚠️");
  CHECK(markdown_row(md, "raw", "v1.3")["v1.3"] == "➖");
  CHECK(markdown_row(md, "S0", "v1.3")["v0.7"].empty());      // no cases for that pair
  CHECK(markdown_row(md, "planted", "v1.3")["v1.3"] == "❌");  // wrong finding class
  // v1.2 sorts before v1.10 in rows.
  const std::string edge = md.substr(md.find("## edge"));
  CHECK(edge.find("**v1.2**") < edge.find("**v1.10**"));

  CHECK(md.find(
            "- ⚠️ **v1.3 → v0.6** (raw): old consumer reads the versioned struct as legacy: "
            "deleter at offset 56 is not a deleter (LAY-3); bad-function-pointer in 2 of 2 "
            "cases\n") != std::string::npos);
  // The hostile detail stays inside its table cell and renders literally.
  CHECK(md.find("a \\| pipe new line \"quoted\" \\<b\\>\\&amp;\\</b\\>  tab  \xEF\xBF\xBD\xEF\xBF"
                "\xBD end |") != std::string::npos);
  CHECK(md.find('\x01') == std::string::npos);
  const std::string unexpected = md.substr(md.find("## Unexpected results"));
  CHECK(occurrences(unexpected, "\n| S") + occurrences(unexpected, "\n| edge") +
            occurrences(unexpected, "\n| planted") ==
        4);
  CHECK(unexpected.find("wrong-data (expected use-after-delete)") != std::string::npos);
}

TEST_CASE("report: Markdown caps the unexpected list", "[report]") {
  std::vector<CaseResult> cases;
  for (int i = 0; i < 250; ++i) {
    cases.push_back(make("S0", "v1.3", "v0.6", Verdict::fail, Expectation::pass, "wrong-data"));
  }
  const std::string md = dlc::render_markdown(info(), cases);
  CHECK(occurrences(md, "\n| S0/prod@v1.3/cons@v0.6/") == 200);
  CHECK(md.find("… and 50 more; the JSON report lists every case.") != std::string::npos);
}

TEST_CASE("report: JUnit has one failure per unexpected case and only legal XML", "[report]") {
  const std::string xml = dlc::render_junit(info(), sample());
  CHECK(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", 0) == 0);
  CHECK(occurrences(xml, "<testsuite ") == 5);
  CHECK(occurrences(xml, "<testcase ") == 12);
  CHECK(occurrences(xml, "<failure ") == 4);
  CHECK(occurrences(xml, "<skipped") == 3);
  CHECK(xml.find("<testsuites name=\"dlconform\" tests=\"12\" failures=\"4\" errors=\"0\" "
                 "skipped=\"3\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"dlconform.S1.prod@v0.6\" name=\"cons@v1.2 t") !=
        std::string::npos);
  CHECK(xml.find("<skipped message=\"known: capsule-not-renamed (LIFE-1): still named "
                 "dltensor\"/>") != std::string::npos);
  CHECK(xml.find("type=\"deleter-called-twice\">a | pipe&#10;new line &quot;quoted&quot; "
                 "&lt;b&gt;&amp;amp;&lt;/b&gt;  tab&#9; \xEF\xBF\xBD\xEF\xBF\xBD end</failure>") !=
        std::string::npos);
  // No control character survives; even tabs and newlines inside values are references.
  CHECK(std::find_if(xml.begin(), xml.end(), [](char ch) {
          return static_cast<unsigned char>(ch) < 0x20 && ch != '\n';
        }) == xml.end());
  CHECK(dlc::report::valid_utf8(xml) == xml);
}

TEST_CASE("report: HTML escapes every text and needs nothing from the network", "[report]") {
  const std::string html = dlc::render_html(info(), sample());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script>alert(1)") == std::string::npos);
  CHECK(html.find("<b>&amp;") == std::string::npos);
  CHECK(occurrences(html, "<script") == 2);  // the data block and the code
  CHECK(occurrences(html, "</script>") == 2);
  CHECK(html.find("\\u003c/script\\u003e\\u003cscript\\u003ealert(1)") != std::string::npos);
  CHECK(html.find("machine &quot;x&quot; &lt;y&gt;") != std::string::npos);
  for (const char* external : {"http://", "https://", "src=", "<link", "@import", "url("}) {
    CHECK(html.find(external) == std::string::npos);
  }
  CHECK(html.find("4 unexpected results") != std::string::npos);
  CHECK(occurrences(html, "<section class=\"card\">") == 5);
  CHECK(html.find("deleter at offset 56 is not a deleter (LAY-3)") != std::string::npos);
  CHECK(dlc::report::valid_utf8(html) == html);
}

TEST_CASE("report: atomic write replaces whole files and fails cleanly", "[report]") {
  char dir_template[] = "/tmp/dlconform-report-test-XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const std::string path = dir + "/report.json";
  auto leftovers = [&] {
    std::vector<std::string> names;
    std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
    while (dirent* e = readdir(d.get())) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    return names;
  };
  std::string error;

  SECTION("a second write replaces a longer first one entirely, keeping its mode") {
    REQUIRE(dlc::write_file_atomic(path, "a long first version of the file\n", &error));
    REQUIRE(chmod(path.c_str(), 0640) == 0);
    REQUIRE(dlc::write_file_atomic(path, std::string_view("sh\0rt\n", 6), &error));
    CHECK(read(path) == std::string("sh\0rt\n", 6));
    struct stat st {};
    REQUIRE(stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    CHECK(leftovers() == std::vector<std::string>{"report.json"});
  }
  SECTION("a missing folder: false, the path in the message, nothing left behind") {
    const std::string bad = "/proc/nonexistent/x";
    CHECK_FALSE(dlc::write_file_atomic(bad, "x", &error));
    CHECK(error == "cannot write report /proc/nonexistent/x: No such file or directory");
    struct stat st {};
    CHECK(stat(bad.c_str(), &st) != 0);
  }
  SECTION("a path under a regular file") {
    REQUIRE(dlc::write_file_atomic(path, "plain file\n", &error));
    const std::string bad = path + "/x.json";
    CHECK_FALSE(dlc::write_file_atomic(bad, "x", &error));
    CHECK(error == "cannot write report " + bad + ": Not a directory");
    CHECK(read(path) == "plain file\n");
    CHECK(leftovers() == std::vector<std::string>{"report.json"});
  }
  SECTION("a directory in the way: the rename fails and the temporary file is removed") {
    REQUIRE(mkdir(path.c_str(), 0755) == 0);
    CHECK_FALSE(dlc::write_file_atomic(path, "x", &error));
    CHECK(error.rfind("cannot write report " + path + ": ", 0) == 0);
    CHECK(leftovers() == std::vector<std::string>{"report.json"});
    rmdir(path.c_str());
  }
  SECTION("the error pointer may be null") {
    CHECK_FALSE(dlc::write_file_atomic("/proc/nonexistent/x", "x", nullptr));
  }
  std::remove(path.c_str());
  rmdir(dir.c_str());
}
