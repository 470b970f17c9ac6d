// The real-frameworks report (reports/frameworks.md): who was tested in which roles, the pair grid
// of each framework environment, the alignment checks, what __dlpack__ answers, the C exchange
// API, and every finding with the reproducer that shows it. It reads only the cases of the
// framework scenarios (framework, pairs, negotiation, xapi, asks, immutable, xapi-consumer),
// whose ids are SCENARIO/ENV/...; how each consumer asks and a write into immutable data get a
// table each.
#include <algorithm>
#include <map>
#include <set>

#include "report.h"
#include "report_text.h"

namespace dlc {
namespace {

using report::markdown_escape;

bool is_framework_scenario(const std::string& s) {
  return s == "framework" || s == "pairs" || s == "negotiation" || s == "xapi" || s == "asks" ||
         s == "immutable" || s == "xapi-consumer";
}

// "pairs/frameworks/numpy@2.4.6/torch@2.13.0/f32_T" -> "frameworks".
std::string environment_of(const CaseResult& c) {
  const size_t a = c.id.find('/');
  if (a == std::string::npos) return "";
  const size_t b = c.id.find('/', a + 1);
  return b == std::string::npos ? "" : c.id.substr(a + 1, b - a - 1);
}

bool is_finding(const CaseResult& c) {
  return (c.verdict == Verdict::fail || c.verdict == Verdict::crash ||
          c.verdict == Verdict::timeout) &&
         c.expected == Expectation::pass;
}

// The framework a finding is about: the case's blamed role (judge/blame.h).
const PartyRef& at_fault(const CaseResult& c) {
  return c.role == "producer" ? c.producer : c.consumer;
}

// The "[repro: a.py b.py]" of a suppression reason, as links; the reason without it.
void split_reason(const std::string& reason, std::string* words, std::string* repro) {
  const size_t at = reason.find("[repro:");
  *words = reason.substr(0, at);
  while (!words->empty() && words->back() == ' ') words->pop_back();
  repro->clear();
  if (at == std::string::npos) return;
  const size_t end = reason.find(']', at);
  std::string list = reason.substr(at + 7, end == std::string::npos ? std::string::npos
                                                                   : end - at - 7);
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && list[i] == ' ') ++i;
    size_t j = i;
    while (j < list.size() && list[j] != ' ') ++j;
    if (j > i) {
      const std::string file = list.substr(i, j - i);
      if (!repro->empty()) *repro += ", ";
      *repro += "[" + file + "](../python/reproducers/" + file + ")";
    }
    i = j;
  }
}

// The evidence a plugin's suppression cites: reproducers, a matrix case, a fuzz seed.
std::string evidence(const std::string& reason) {
  std::string words, out;
  split_reason(reason, &words, &out);
  for (const char* tag : {"[case: ", "[fuzz: "}) {
    const size_t at = reason.find(tag);
    if (at == std::string::npos) continue;
    const size_t end = reason.find(']', at);
    const std::string what = reason.substr(at + 7, end == std::string::npos ? std::string::npos
                                                                             : end - at - 7);
    if (!out.empty()) out += ", ";
    out += tag[1] == 'c' ? "matrix case `" + what + "`"
                         : "fuzz input [" + what + "](../corpus/" + what + ")";
  }
  return out;
}

// The real C/C++ importers and exporters run as plugins (frameworks/): every finding of theirs,
// one row per plugin, rule and class.
// The findings of one party, rule and class, and the cases behind them.
struct FindingRow {
  size_t cases = 0;
  std::string reason, sample;  // the first case's suppression reason, and "id: detail"
  bool known = true;
  void add(const CaseResult& c) {
    ++cases;
    known &= c.known;
    if (reason.empty()) reason = c.known_reason;
    if (sample.empty()) sample = c.id + ": " + c.detail;
  }
};
using FindingRows = std::map<std::tuple<std::string, std::string, std::string>, FindingRow>;

// "| party | rule | class | cases | what happens | last |"; what happens is `words`, or the first
// case when the reason says nothing.
std::string finding_line(const FindingRows::key_type& key, const FindingRow& r,
                         const std::string& words, const std::string& last) {
  const auto& [party, rule, cls] = key;
  return "| " + markdown_escape(party) + " | " + rule + " | " + (r.known ? "" : "❌ ") + cls +
         " | " + std::to_string(r.cases) + " | " + markdown_escape(words.empty() ? r.sample : words) +
         " | " + (last.empty() ? "none yet" : last) + " |\n";
}

std::string plugin_findings(const RunInfo& info, const std::vector<CaseResult>& cases) {
  std::set<std::string> plugins;
  for (const PartyInfo& p : info.parties) {
    if (!p.builtin && p.profile.find("environment ") == std::string::npos) {
      plugins.insert(p.label.substr(0, p.label.find('@')));
    }
  }
  if (plugins.empty()) return "";
  struct Tally {
    size_t cases = 0, as_expected = 0, known = 0, unexpected = 0;
  };
  std::map<std::string, Tally> tally;
  FindingRows rows;
  for (const CaseResult& c : cases) {
    if (is_framework_scenario(c.scenario)) continue;
    for (const PartyRef* party : {&c.producer, &c.consumer}) {
      if (plugins.count(party->name) == 0) continue;
      Tally& t = tally[party->name];
      ++t.cases;
      if (c.as_expected()) ++t.as_expected;
      if (!c.as_expected()) c.known ? ++t.known : ++t.unexpected;
      if (c.as_expected() || c.severity == "INFO") continue;
      // The plugin in the case that is at fault: the other party is a built-in mock.
      const bool producer_side = c.finding_class == "producer-violation" ||
                                 c.finding_class == "export-refused";
      if ((party == &c.producer) != producer_side) continue;
      rows[{party->name, c.rule_id, c.finding_class}].add(c);
    }
  }
  std::string o =
      "\n## Real C/C++ importers and exporters as plugins\n\n"
      "The frameworks' C and C++ APIs under their Python entry points (`frameworks/`), as "
      "shipped in the wheels, in the matrix against the mock producers and consumers. Each "
      "finding is listed, with its evidence, in `suppressions/adapters.txt` (Debian's libtorch: "
      "`suppressions/libtorch-debian.txt`).\n\n"
      "| plugin | cases | as expected | known findings | unexpected |\n|---|--:|--:|--:|--:|\n";
  for (const auto& [name, t] : tally) {
    o += "| " + markdown_escape(name) + " | " + std::to_string(t.cases) + " | " +
         std::to_string(t.as_expected) + " | " + std::to_string(t.known) + " | " +
         std::to_string(t.unexpected) + " |\n";
  }
  o += "\n| plugin | rule | finding | cases | what happens | evidence |\n"
       "|---|---|---|--:|---|---|\n";
  for (const auto& [key, r] : rows) {
    std::string words, repro;
    split_reason(r.reason, &words, &repro);
    const size_t tag = words.find(" [");
    if (tag != std::string::npos) words.resize(tag);
    o += finding_line(key, r, words, evidence(r.reason));
  }
  if (rows.empty()) o += "| – | – | – | 0 | no finding | – |\n";
  return o;
}

// A finding's mark in a cell: ⓘ noted at INFO, ⚠️ known, ❌ unexpected.
std::string finding_mark(const CaseResult& c) {
  return c.severity == "INFO" ? "ⓘ " : c.known ? "⚠️ " : "❌ ";
}

// What a negotiation case answered, in a few characters.
std::string short_answer(const CaseResult& c) {
  std::string d = c.detail;
  std::string cell;
  if (d.rfind("dltensor_versioned ", 0) == 0) cell = d.substr(19);
  else if (d.rfind("dltensor", 0) == 0) cell = "legacy";
  else if (d.rfind("TypeError", 0) == 0) cell = "TypeError";
  else if (d.rfind("BufferError", 0) == 0) cell = "BufferError";
  else if (d.rfind("(", 0) == 0) cell = d.substr(0, d.find(')') + 1);
  else if (const size_t e = d.find("Error"); e != std::string::npos && e < 24 &&
           d.find(' ') > e) {
    cell = d.substr(0, e + 5);  // "RuntimeError for {...}": the exception's name
  }
  else if (c.verdict == Verdict::pass && !c.finding_class.empty()) cell = c.finding_class;
  else if (c.verdict == Verdict::pass) cell = d.substr(0, std::min<size_t>(d.size(), 24));
  if (!c.finding_class.empty()) cell += (cell.empty() ? "" : " ") + finding_mark(c) + c.rule_id;
  return cell;
}

// A pair's cell: equal/total, the DLPack that crossed, refusals and findings.
struct PairCell {
  int total = 0, equal = 0, refused = 0, skipped = 0;
  std::map<std::string, int> crossed;  // "legacy", "versioned 1.0"
  std::set<std::string> known, unexpected;
};

std::string render(const PairCell& p) {
  if (p.total == 0) return "";
  std::string out = std::to_string(p.equal) + "/" + std::to_string(p.total - p.skipped);
  std::string most;
  int best = 0;
  for (const auto& [kind, n] : p.crossed) {
    if (n > best) best = n, most = kind;
  }
  if (!most.empty()) out += " · " + (most == "legacy" ? most : most.substr(10));
  if (p.refused > 0) out += " · " + std::to_string(p.refused) + " refused";
  for (const std::string& r : p.unexpected) out += " · ❌ " + r;
  for (const std::string& r : p.known) out += " · ⚠️ " + r;
  return out;
}

// How a consumer handled an under-aligned NumPy array (LAY-9).
std::string alignment_cell(const CaseResult& c) {
  if (c.verdict == Verdict::crash) return "💥 crash";
  if (c.verdict == Verdict::timeout) return "⏱ hang";
  if (!c.finding_class.empty() && c.severity != "INFO") {
    return finding_mark(c) + c.finding_class;
  }
  if (c.detail.find("zero-copy") != std::string::npos) return "zero-copy";
  if (c.detail.find("copied") != std::string::npos) return "copied";
  if (c.detail.find("refused") != std::string::npos) return "refused";
  return markdown_escape(c.detail.substr(0, 20));
}

// The calls a consumer made ("[calls: ...]" of an asks case), shortened for a table cell.
std::string calls_cell(const CaseResult& c) {
  if (c.verdict == Verdict::skip) return "n/a";
  std::string calls;
  if (const size_t at = c.detail.rfind("[calls: "); at != std::string::npos) {
    calls = c.detail.substr(at + 8);
    if (!calls.empty() && calls.back() == ']') calls.pop_back();
  }
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"__dlpack_device__()", "device()"}, {"__dlpack__", "dlpack"},
           {", dl_device=None", ""}, {"dl_device=None, ", ""}, {", copy=None", ""},
           {"copy=None", ""}, {"max_version=", "mv "}, {" -> ", " → "}}) {
    for (size_t i = calls.find(from); i != std::string::npos; i = calls.find(from, i)) {
      calls.replace(i, from.size(), to);
      i += to.size();
    }
  }
  std::string cell = markdown_escape(calls);
  if (c.detail.rfind("refused", 0) == 0) cell += " → refused";
  if (!c.finding_class.empty()) {
    cell = finding_mark(c) + c.rule_id + " " + c.finding_class + ": " + cell;
  }
  return cell;
}

// Whether a consumer's import shares the producer's memory (asks/*/memory/*).
std::string memory_cell(const CaseResult& c) {
  if (c.verdict == Verdict::skip) return "n/a";
  if (!c.finding_class.empty()) return finding_mark(c) + c.rule_id + " " + c.finding_class;
  if (c.detail.rfind("refused", 0) == 0) return "refused";
  if (c.detail.rfind("the producer's copy", 0) == 0) return "shares the producer's copy";
  return c.detail.rfind("shared", 0) == 0 ? "shared" : "copied";
}

// What a write through a consumer's import of immutable data did.
std::string write_through_cell(const CaseResult& c) {
  if (c.verdict == Verdict::skip) return "n/a";
  if (c.verdict == Verdict::crash) return "💥 crash";
  if (!c.finding_class.empty()) {
    return finding_mark(c) + c.rule_id + " changed";
  }
  for (const char* what : {"refused", "copied", "imported read-only"}) {
    if (c.detail.find(what) != std::string::npos) {
      const std::string w = what;
      return w == "imported read-only" ? "read-only" : w;
    }
  }
  return markdown_escape(c.detail.substr(0, 20));
}

template <typename Cell>
void table(const std::vector<std::string>& rows, const std::vector<std::string>& cols,
           const std::string& corner, Cell cell, std::string* o) {
  *o += "| " + corner + " |";
  for (const std::string& c : cols) *o += " " + markdown_escape(c) + " |";
  *o += "\n|---|";
  for (size_t i = 0; i < cols.size(); ++i) *o += "---|";
  *o += "\n";
  for (const std::string& r : rows) {
    *o += "| **" + markdown_escape(r) + "** |";
    for (const std::string& c : cols) *o += " " + cell(r, c) + " |";
    *o += "\n";
  }
}

// One cell per (row, column) of a map of maps: the rows are its keys, in order; `missing` where a
// row has no such column.
using Grid = std::map<std::string, std::map<std::string, std::string>>;

void grid_table(const Grid& grid, const std::vector<std::string>& cols, const std::string& corner,
                const std::string& missing, std::string* o) {
  std::vector<std::string> rows;
  for (const auto& entry : grid) rows.push_back(entry.first);
  table(
      rows, cols, corner,
      [&](const std::string& r, const std::string& c) {
        const auto& cells = grid.at(r);
        const auto it = cells.find(c);
        return it == cells.end() ? missing : it->second;
      },
      o);
}

}  // namespace

std::string render_frameworks_markdown(const RunInfo& info,
                                       const std::vector<CaseResult>& cases) noexcept {
  try {
    std::vector<const CaseResult*> mine;
    for (const CaseResult& c : cases) {
      if (is_framework_scenario(c.scenario)) mine.push_back(&c);
    }
    std::set<std::string> environments, projects;
    size_t findings = 0, known = 0, unexpected = 0, as_expected = 0;
    for (const CaseResult* c : mine) {
      environments.insert(environment_of(*c));
      if (c->as_expected()) ++as_expected;
      if (is_finding(*c)) {
        ++findings;
        c->known ? ++known : ++unexpected;
      }
    }
    for (const PartyInfo& p : info.parties) {
      if (p.profile.find("environment ") != std::string::npos) {
        projects.insert(p.label.substr(0, p.label.find('@')));
      }
    }
    std::string o = "# Real frameworks through DLPack\n\n";
    o += std::string(unexpected == 0 ? "✅" : "❌") + " **" + std::to_string(mine.size()) +
         " cases in " + std::to_string(environments.size()) + " framework environments, " +
         std::to_string(projects.size()) + " frameworks: " + std::to_string(as_expected) +
         " as expected, " + std::to_string(known) + " known findings (suppressed, with " +
         "reproducers), " + std::to_string(unexpected) + " unexpected.**\n\n";
    o += "Made by `tools/dev main` (`dlconform matrix --framework all`, the environments of "
         "`envs/`). Each framework is a producer (its `__dlpack__` or own exporter into "
         "dlconform's strict consumer, for every tensor it can make), a consumer (its "
         "`from_dlpack` fed mock producers built against DLPack 0.6, 0.8, 1.0, 1.3 and a future "
         "major, through the tensor catalogue), and both sides of every pair that shares a "
         "process. The judge is the one of the matrix and the fuzzers (`harness/judge`).\n";

    // Who was tested.
    o += "\n## Frameworks\n\n| framework | environment | cases as producer | cases as "
         "consumer | what its importer must take (declared profile) |\n|---|---|--:|--:|---|\n";
    for (const PartyInfo& p : info.parties) {
      const size_t env_at = p.profile.find("environment ");
      if (env_at == std::string::npos) continue;
      const std::string env = p.profile.substr(env_at + 12);
      size_t as_producer = 0, as_consumer = 0;
      for (const CaseResult* c : mine) {
        if (environment_of(*c) != env) continue;
        as_producer += c->producer.header == p.label;
        as_consumer += c->consumer.header == p.label;
      }
      std::string profile = p.profile.substr(0, p.profile.find(" (declared"));
      o += "| " + markdown_escape(p.label) + " | " + markdown_escape(env) + " | " +
           std::to_string(as_producer) + " | " + std::to_string(as_consumer) + " | " +
           markdown_escape(profile) + " |\n";
    }
    for (const std::string& note : info.notes) o += "\n- " + markdown_escape(note);
    if (!info.notes.empty()) o += "\n";

    // The pair grids, one per environment (only frameworks in one process meet).
    o += "\n## Every pair: producer (rows) into consumer (columns)\n\n"
         "Each cell: tensors whose values crossed equal / tensors tried, the DLPack that "
         "crossed (legacy or the versioned struct's version), how many the consumer refused "
         "(allowed outside its profile), and findings by rule (⚠️ known, ❌ unexpected). "
         "Tensors: contiguous, transposed, stepped, reversed, offset, broadcast, read-only, 0-d, "
         "zero-size, int64, bool; NumPy also sends under-aligned arrays (next section).\n";
    for (const std::string& env : environments) {
      std::map<std::pair<std::string, std::string>, PairCell> cells;
      std::set<std::string> producers, consumers;
      for (const CaseResult* c : mine) {
        if (c->scenario != "pairs" || environment_of(*c) != env) continue;
        producers.insert(c->producer.header);
        consumers.insert(c->consumer.header);
        PairCell& p = cells[{c->producer.header, c->consumer.header}];
        ++p.total;
        if (c->verdict == Verdict::skip) ++p.skipped;
        const size_t colon = c->detail.find(':');
        const std::string head = colon == std::string::npos ? "" : c->detail.substr(0, colon);
        if (c->verdict == Verdict::pass && c->detail.find("equal values") != std::string::npos) {
          ++p.equal;
          ++p.crossed[head];
        } else if (c->verdict == Verdict::pass && c->detail.find("refused") != std::string::npos) {
          ++p.refused;
        }
        if (is_finding(*c) && c->severity != "INFO") {
          (c->known ? p.known : p.unexpected).insert(c->rule_id.empty() ? c->finding_class
                                                                         : c->rule_id);
        }
      }
      if (cells.empty()) continue;
      o += "\n### Environment " + markdown_escape(env) + "\n\n";
      table(
          {producers.begin(), producers.end()}, {consumers.begin(), consumers.end()},
          "producer ↓ consumer →",
          [&](const std::string& r, const std::string& c) {
            auto it = cells.find({r, c});
            return it == cells.end() ? std::string() : render(it->second);
          },
          &o);
    }

    // Alignment: NumPy's under-aligned arrays to every consumer.
    std::vector<std::string> align_tensors = {"f32_misaligned_8", "f32_misaligned_4",
                                              "f32_misaligned_2", "f32_misaligned_1",
                                              "f64_odd_offset", "f32_odd_offset",
                                              "i16_odd_offset", "u8_odd_offset"};
    Grid align;
    for (const CaseResult* c : mine) {
      if (c->scenario != "pairs" || c->producer.name != "numpy") continue;
      if (std::find(align_tensors.begin(), align_tensors.end(), c->tensor) == align_tensors.end()) {
        continue;
      }
      align[c->consumer.header + " (" + environment_of(*c) + ")"][c->tensor] = alignment_cell(*c);
    }
    if (!align.empty()) {
      o += "\n## Alignment (LAY-9): NumPy arrays whose data is only 8, 4, 2 or 1-byte aligned\n\n"
           "`f32_misaligned_N`: a uint8 buffer viewed as float32 at an offset, aligned to N "
           "bytes only; `T_odd_offset`: a view one element into an array, aligned to its element "
           "size only. What each consumer does: reads them in place (zero-copy), copies, "
           "refuses, crashes or reads wrong values.\n\n";
      grid_table(align, align_tensors, "consumer", "", &o);
    }

    // Negotiation.
    const std::vector<std::string> asks = {
        "max_version=none", "max_version=0.8", "max_version=1.0", "max_version=1.3",
        "max_version=2.0",  "max_version=bare-int", "copy=True",  "copy=False",
        "dl_device=cpu",    "stream=None",     "stream=1",        "stream=-1",
        "__dlpack_device__"};
    Grid answers;
    for (const CaseResult* c : mine) {
      if (c->scenario == "negotiation") {
        answers[c->producer.header][c->tensor] = markdown_escape(short_answer(*c));
      }
    }
    if (!answers.empty()) {
      o += "\n## Negotiation: what `__dlpack__` answers\n\n"
           "`legacy`: a `dltensor` capsule; `1.3`: a `dltensor_versioned` capsule of that "
           "version; an exception's name when it raised one. `max_version=2.0` must still get "
           "a struct the caller supports (VER-4); `max_version=bare-int` passes `1`, no 2-tuple: "
           "any exception passes, an export is noted ⓘ; `dl_device=cpu` is the array's own device "
           "(STRM-3); `stream=1` and `stream=-1` to a CPU array are refused (STRM-1: only "
           "None is accepted); `__dlpack_device__` must answer (1, 0) on the CPU (DEV-2). ⚠️ known "
           "finding, ❌ unexpected, ⓘ an allowed deviation noted at INFO.\n\n";
      grid_table(answers, asks, "producer", "–", &o);
    }

    // How each consumer asks.
    const std::vector<std::string> asked = {
        "plain",      "after-type-error", "after-buffer-error",  "copy=True",
        "copy=False", "device=cpu",       "bad-input/no-dlpack", "bad-input/not-a-capsule",
        "memory/default", "memory/copy=True", "memory/copy=False"};
    Grid calls;
    for (const CaseResult* c : mine) {
      if (c->scenario != "asks") continue;
      calls[c->consumer.header][c->tensor] =
          c->tensor.rfind("memory/", 0) == 0 ? memory_cell(*c) : calls_cell(*c);
    }
    if (!calls.empty()) {
      o += "\n## How each consumer asks: the calls its `from_dlpack` makes on the producer\n\n"
           "Each consumer is handed a recording producer (a mock of DLPack 1.3; for "
           "`after-type-error` one of 0.8, whose `__dlpack__` has the old signature; for "
           "`after-buffer-error` one that cannot export). Every call is kept in order: "
           "`device()` is `__dlpack_device__()`, `dlpack(...)` a `__dlpack__` call with the "
           "keywords it passed (`mv` is max_version; keywords passed as None are left out), and "
           "what it raised. `copy=True`, `copy=False` and `device=cpu` are the consumer's own "
           "caller's keywords, which it should pass on. The judge: VER-5 (max_version first; a "
           "second call only after TypeError, none after a capsule), STRM-1 (no stream on the "
           "CPU), STRM-3 and STRM-4 (dl_device and copy as asked; one not passed on is noted "
           "ⓘ). `bad-input/no-dlpack` hands `from_dlpack` None, `bad-input/not-a-capsule` an "
           "object whose `__dlpack__` returns an int: any exception passes, a crash fails, an "
           "array returned is noted ⓘ. `memory/*`: whether its array shares the memory that "
           "crossed (by its data pointer, else a write), with no keyword, copy=True (must copy "
           "unless the producer did) and copy=False (must not). n/a: its from_dlpack takes no "
           "such keyword.\n\n";
      grid_table(calls, asked, "consumer", "–", &o);
    }

    // Immutable data: FLAG-1b on the producer's export, and a write through each consumer; one
    // table per environment (only frameworks in one process meet).
    const std::string own_export = "its export, asked for 1.3";
    std::map<std::string, Grid> immutable;  // environment -> producer -> column
    std::map<std::string, std::set<std::string>> writers;
    for (const CaseResult* c : mine) {
      if (c->scenario != "immutable") continue;
      auto& row = immutable[environment_of(*c)][c->producer.header];
      if (c->tensor == "flag-1b") {
        row[own_export] =
            c->verdict == Verdict::skip ? "n/a"
            : !c->finding_class.empty()
                ? finding_mark(*c) + c->rule_id + " " +
                      (c->detail.find("dltensor,") != std::string::npos ? "legacy" : "no flag")
                : markdown_escape(c->detail.substr(0, c->detail.find(':')));
      } else {
        row[c->consumer.header] = write_through_cell(*c);
        writers[environment_of(*c)].insert(c->consumer.header);
      }
    }
    if (!immutable.empty()) {
      o += "\n## Immutable data (FLAG-1, FLAG-1b): producer (rows) into consumer (columns)\n\n"
           "A producer's immutable array (JAX's, TensorFlow's and Arrow's arrays; NumPy's with "
           "`writeable=False`), asked with max_version=(1, 3), should cross as a versioned "
           "capsule with READ_ONLY (FLAG-1b). Then each consumer imports it and the driver "
           "writes 42 into its first element through the consumer's own array: `refused` (the "
           "export or the import), `copied` (the original kept its value), `read-only` (the "
           "consumer's array refused the write), or `changed`: the write reached the immutable "
           "original. Whose rule that breaks: the producer's (FLAG-1b) when it sent no "
           "READ_ONLY to a versioned ask; the consumer's (FLAG-1) when READ_ONLY crossed, at "
           "INFO (ⓘ) for a consumer without read-only arrays; INFO for a legacy ask.\n";
      for (const auto& [env, producers] : immutable) {
        std::vector<std::string> cols = {own_export};
        cols.insert(cols.end(), writers[env].begin(), writers[env].end());
        o += "\n### Environment " + markdown_escape(env) + "\n\n";
        grid_table(producers, cols, "immutable producer", "–", &o);
      }
    }

    // The C exchange API.
    std::map<std::string, std::map<std::string, const CaseResult*>> xapi;
    for (const CaseResult* c : mine) {
      if (c->scenario == "xapi") xapi[c->producer.header][c->tensor] = c;
    }
    o += "\n## The C exchange API (`__dlpack_c_exchange_api__`, XAPI-1 to XAPI-5)\n\n";
    if (xapi.empty()) {
      o += "No framework in these environments has one.\n";
    } else {
      o += "| framework | check | result |\n|---|---|---|\n";
      for (const auto& [fw, checks] : xapi) {
        for (const auto& [check, c] : checks) {
          o += "| " + markdown_escape(fw) + " | " + check + " | " +
               (c->as_expected() ? "✅ " : c->known ? "⚠️ " : "❌ ") +
               markdown_escape(c->detail) + " |\n";
        }
      }
    }

    // Findings: one row per framework, rule and class.
    FindingRows rows;
    for (const CaseResult* c : mine) {
      if (!is_finding(*c) || c->severity == "INFO") continue;
      rows[{at_fault(*c).header, c->rule_id, c->finding_class}].add(*c);
    }
    o += "\n## Findings\n\nEvery deviation from the rules ([docs/rules.md](../docs/rules.md)) a "
         "real framework shows, with a reproducer of at most 5 lines that needs only that "
         "framework (`python/reproducers/`; the `reproducers` test runs each one and checks it "
         "still shows its finding). Each is listed, with the same reason, in that "
         "environment's suppression file (`suppressions/env-*.txt`), so CI stays green while "
         "this report stays honest; a release that fixes one turns its entry stale.\n\n";
    o += "| framework | rule | finding | cases | what happens | reproducer |\n"
         "|---|---|---|--:|---|---|\n";
    for (const auto& [key, r] : rows) {
      std::string words, repro;
      split_reason(r.reason, &words, &repro);
      o += finding_line(key, r, words, repro);
    }
    if (rows.empty()) o += "| – | – | – | 0 | no finding | – |\n";
    o += plugin_findings(info, cases);
    return o;
  } catch (...) {
    return "";
  }
}

}  // namespace dlc
