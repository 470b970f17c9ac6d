// report_sample DIR [--clean]: writes DIR/sample.{json,md,html,junit.xml} from a synthetic run
// shaped like the built-in matrix (every scenario, DLPack versions, design variants, a framework
// column), so the format checks and the browser test see what a reader would.
//
// Unless --clean is given, the run also holds the things a report must survive or expose: a few
// unexpected results (a regression, a planted bug no longer caught, a wrong finding class, a
// timeout), a suppressed case, and details with markup, quotes, control characters and invalid
// UTF-8. sample.expect.json records what the checks must find.
#include <cstdio>
#include <string>
#include <vector>

#include "report.h"

namespace {

using dlc::CaseResult;
using dlc::Expectation;
using dlc::Verdict;

const std::vector<std::string> kOld = {"v0.6", "v0.7", "v0.8"};
const std::vector<std::string> kNew = {"v1.0", "v1.1", "v1.2", "v1.3"};
const std::vector<std::string> kVariants = {"variant-append-dltensor", "variant-a0", "variant-a1",
                                            "variant-a2", "variant-a3"};
const std::vector<std::string> kTensors = {
    "f32_8x8", "f64_8x4_transposed", "i16_128_byte_offset", "bool_3x5",
    "c64_4x4", "f32_0x7_zero_size"};

struct Builder {
  std::vector<CaseResult> cases;

  CaseResult& add(const std::string& scenario, const std::string& producer, const std::string& ph,
                  const std::string& consumer, const std::string& ch, const std::string& tensor,
                  Verdict verdict, Expectation expected) {
    CaseResult c;
    c.scenario = scenario;
    c.producer = {producer, ph};
    c.consumer = {consumer, ch};
    c.tensor = tensor;
    c.id = scenario + "/" + producer + "@" + ph + "/" + consumer + "@" + ch + "/" + tensor;
    c.verdict = verdict;
    c.expected = expected;
    c.seconds = 0.0005 + 0.0001 * static_cast<double>(cases.size() % 17);
    cases.push_back(c);
    return cases.back();
  }
  void pass(const std::string& scenario, const std::string& producer, const std::string& ph,
            const std::string& consumer, const std::string& ch, const std::string& tensor) {
    add(scenario, producer, ph, consumer, ch, tensor, Verdict::pass, Expectation::pass).detail =
        "imported correctly";
  }
  void broken(const std::string& scenario, const std::string& producer, const std::string& ph,
              const std::string& consumer, const std::string& ch, const std::string& tensor,
              Verdict verdict, const char* cls, const char* rule, const std::string& detail) {
    CaseResult& c = add(scenario, producer, ph, consumer, ch, tensor, verdict, Expectation::broken);
    c.finding_class = cls;
    c.rule_id = rule;
    c.detail = detail;
  }
};

// Whether an old consumer reads a raw struct of this layout correctly (the RFC's S0 verdicts).
bool legacy_prefix_intact(const std::string& layout) {
  return layout == "v0.6" || layout == "variant-a1" || layout == "variant-a2" ||
         layout == "variant-a3";
}

std::vector<CaseResult> sample(bool clean) {
  Builder b;
  for (const std::string& p : kNew) {
    for (const std::string& c : kOld) {
      for (const std::string& t : kTensors) {
        b.pass("S0", "versioned-producer", p, "legacy-consumer", c, t);
      }
      auto& s = b.add("S0", "versioned-producer", p, "legacy-consumer", c, "f32_8x8_read_only",
                      Verdict::skip, Expectation::skip);
      s.detail = "producer refused: a legacy struct cannot say READ_ONLY (FLAG-1)";
    }
  }
  for (const std::string& p : kOld) {
    for (const std::string& c : kNew) {
      for (const std::string& t : kTensors) {
        b.pass("S1", "legacy-producer", p, "versioned-consumer", c, t);
      }
    }
  }
  for (const std::string& p : kNew) {
    for (const std::string& c : kNew) {
      for (const std::string& t : kTensors) {
        b.pass("S2", "legacy-producer", p, "legacy-consumer", c, t);
      }
    }
  }
  // Raw pointers: an old consumer only survives layouts that keep the deleter at offset 56.
  std::vector<std::string> raw_producers = {"v0.6", "v1.3"};
  raw_producers.insert(raw_producers.end(), kVariants.begin(), kVariants.end());
  for (const std::string& p : raw_producers) {
    for (const char* c : {"v0.6", "v0.8", "v1.3"}) {
      const std::string layout = p == "v1.3" ? "versioned" : p;
      for (const char* t : {"f32_8x8", "i16_128_byte_offset"}) {
        if (std::string(c) == "v1.3" && p == "v1.3") {
          b.pass("raw", "versioned-producer", p, "versioned-consumer", c, t);
        } else if (legacy_prefix_intact(layout)) {
          b.pass("raw", p == "v0.6" ? "legacy-producer" : p, p, "legacy-consumer", c, t);
        } else if (layout == "versioned") {
          b.broken("raw", "versioned-producer", p, "legacy-consumer", c, t, Verdict::crash,
                   "bad-function-pointer", "LAY-3",
                   "old consumer reads the versioned struct as legacy: deleter at offset 56 is "
                   "not a deleter");
        } else {
          b.broken("raw", p, p, "legacy-consumer", c, t, Verdict::crash, "wild-pointer", "LAY-2",
                   "SIGSEGV: the deleter moved to offset 64; offset 56 holds manager_ctx");
        }
      }
    }
  }
  for (const std::string& p : kNew) {
    for (const char* mv : {"none", "0.8", "1.0", "1.3", "2.0"}) {
      b.pass("negotiation", "versioned-producer", p, "harness", "reference",
             std::string("max_version_") + mv);
    }
  }
  const std::vector<std::string> edge_tensors = {"f32_8x8_null_strides",
                                                 "f32_0d_null_shape",
                                                 "f32_8x8_negative_strides",
                                                 "f32_8x8_broadcast_strides",
                                                 "dtype_unknown_code_99",
                                                 "device_unknown_99",
                                                 "f8e4m3fn_16",
                                                 "f4e2m1fn_32_padded",
                                                 "f32_8x8_unknown_flag_bit"};
  for (const char* p : {"v0.8", "v1.0", "v1.2", "v1.3"}) {
    for (const char* c : {"v0.6", "v1.0", "v1.3", "numpy-2.1", "torch-2.11"}) {
      for (const std::string& t : edge_tensors) {
        if (t == "f4e2m1fn_32_padded" && std::string(p) != "v1.3") {
          b.add("edge", "versioned-producer", p, "strict-consumer", c, t, Verdict::skip,
                Expectation::skip)
              .detail = "producer refused: sub-byte padding needs DLPack 1.1 (FLAG-3)";
        } else {
          b.pass("edge", "versioned-producer", p, "strict-consumer", c, t);
        }
      }
    }
  }
  const char* planted[][3] = {{"planted-double-delete", "deleter-called-twice", "LIFE-3"},
                              {"planted-no-delete", "deleter-never-called", "LIFE-3"},
                              {"planted-early-delete", "use-after-delete", "LIFE-6"},
                              {"planted-write-read-only", "write-to-read-only", "FLAG-1"},
                              {"planted-read-past-legacy", "struct-overread", "LAY-2"}};
  for (const auto& [name, cls, rule] : planted) {
    CaseResult& c = b.add("planted", "versioned-producer", "v1.3", name, "v1.3", "f32_8x8",
                          Verdict::fail, Expectation::broken);
    c.finding_class = c.expected_class = cls;
    c.rule_id = rule;
    c.detail = std::string("caught: ") + cls;
  }
  // A native pair, a scenario outside the fixed order.
  for (const std::string& t : kTensors) {
    b.pass("native", "versioned-producer", "v1.3", "versioned-consumer", "v1.3", t);
  }

  if (clean) return b.cases;

  // What a report must expose...
  CaseResult& regression = b.cases[b.cases.size() / 3];  // somewhere in the middle
  regression.verdict = Verdict::crash;
  regression.finding_class = "use-after-delete";
  regression.rule_id = "LIFE-6";
  regression.detail = "SIGSEGV: read shape[1] <after> the deleter ran & freed it; \"quoted\"";
  for (CaseResult& c : b.cases) {
    if (c.id == "S1/legacy-producer@v0.7/versioned-consumer@v1.2/c64_4x4") {
      c.verdict = Verdict::fail;
      c.finding_class = "wrong-data";
      c.rule_id = "LAY-4";
      c.detail = "element [1,2]: expected 3+4i but found 0|0 </script><b>bold</b>\nsecond line";
    } else if (c.id ==
               "edge/versioned-producer@v1.3/strict-consumer@torch-2.11/f32_0d_null_shape") {
      c.verdict = Verdict::timeout;
      c.finding_class = "timeout";
      c.detail = "killed after 10 s; last output: \x01\x02 bad utf-8 \xff\xfe \xed\xa0\x80 done";
    } else if (c.scenario == "planted" && c.consumer.name == "planted-no-delete") {
      c.verdict = Verdict::pass;  // the bug is no longer caught
      c.finding_class.clear();
      c.detail = "imported correctly";
    } else if (c.scenario == "planted" && c.consumer.name == "planted-early-delete") {
      c.finding_class = "wrong-data";  // caught, but as the wrong class
      c.detail = "element [0,0]: expected 1 but found 0";
    } else if (c.id == "S0/versioned-producer@v1.1/legacy-consumer@v0.7/bool_3x5") {
      c.verdict = Verdict::fail;
      c.finding_class = "capsule-not-renamed";
      c.rule_id = "LIFE-1";
      c.detail = "capsule still named 'dltensor' after import";
      c.known = true;  // suppressed: a known framework issue
    }
  }
  return b.cases;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || (argc == 3 && std::string(argv[2]) != "--clean") || argc > 3) {
    std::fprintf(stderr, "usage: report_sample DIR [--clean]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const bool clean = argc == 3;
  const std::vector<CaseResult> cases = sample(clean);
  dlc::RunInfo info;
  info.tool_version = "0.1.0-sample";
  info.started_at = "2026-11-22T12:43:58Z";
  info.machine = "Linux 6.1 x86_64, gcc 12.2.0 <sample & \"test\">";
  info.wall_seconds = 2.66;
  info.jobs = 8;
  info.details = true;
  info.parties = {
      {"versioned-producer@v1.3", "producer", "every dtype · every device · strides all (declared)",
       "/opt/dlc/versioned-producer-v1_3.so", true},
      {"legacy-consumer@v0.6", "consumer", "f32 · cpu · strides positive · ndim <= 8 (default)",
       "/opt/dlc/legacy-consumer-v0_6.so", true}};
  info.notes = {"mlx: not installed in this environment <sample & note>"};

  size_t unexpected = 0, known = 0;
  for (const CaseResult& c : cases) {
    known += c.known;
    unexpected += !c.known && !c.as_expected();
  }
  const std::string expect = "{\"cases\": " + std::to_string(cases.size()) +
                             ", \"unexpected\": " + std::to_string(unexpected) +
                             ", \"known\": " + std::to_string(known) + "}\n";
  const std::pair<const char*, std::string> files[] = {
      {"sample.json", dlc::render_json(info, cases)},
      {"sample.md", dlc::render_markdown(info, cases)},
      {"sample.html", dlc::render_html(info, cases)},
      {"sample.junit.xml", dlc::render_junit(info, cases)},
      {"sample.expect.json", expect}};
  for (const auto& [name, content] : files) {
    std::string error;
    if (!dlc::write_file_atomic(dir + "/" + name, content, &error)) {
      std::fprintf(stderr, "report_sample: %s\n", error.c_str());
      return 1;
    }
  }
  return 0;
}
