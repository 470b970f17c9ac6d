#include "report.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace dlc {
namespace {

// ---- escaping ------------------------------------------------------------------------------

// Replaces invalid UTF-8 with U+FFFD so every writer emits valid text.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

std::string json_quote(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string out = "\"";
  for (char ch : s) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", ch);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

// XML 1.0 text and attributes (HTML uses the same): escape markup, drop illegal characters.
std::string xml(std::string_view raw) {
  const std::string s = valid_utf8(raw);
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t') out += ch;
    }
  }
  return out;
}

std::string md_cell(std::string_view raw) {
  std::string out;
  for (char ch : valid_utf8(raw)) {
    if (ch == '|') {
      out += "\\|";
    } else if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else if (static_cast<unsigned char>(ch) >= 0x20) {
      out += ch;
    }
  }
  return out;
}

// ---- ordering ------------------------------------------------------------------------------

const char* const kScenarioOrder[] = {"S0",  "S1",          "S2",   "native",
                                      "raw", "negotiation", "edge", "planted"};

// One line under each grid heading, for a reader who does not know the scenario names.
const char* scenario_meaning(const std::string& s) {
  if (s == "S0") return "a new (versioned) producer, an old consumer, through the capsule protocol";
  if (s == "S1") return "an old producer, a new consumer, through the capsule protocol";
  if (s == "S2") return "old code rebuilt against a newer header on either side";
  if (s == "native") return "producer and consumer of the same generation";
  if (s == "raw") return "a bare pointer with no negotiation: which layouts survive";
  if (s == "negotiation") return "what each producer answers for each max_version (VER-4)";
  if (s == "edge") return "the semantic edge cases: imported correctly or refused cleanly";
  if (s == "planted") return "planted bugs: each must be caught with its finding class";
  return "";
}

std::string seconds_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", seconds);
  return buf;
}

int scenario_rank(const std::string& s) {
  for (int i = 0; i < 8; ++i) {
    if (s == kScenarioOrder[i]) return i;
  }
  return 100;
}

// v0.6 < v0.7 < ... < v1.3 < variant-* < anything else, each group in natural order.
bool header_less(const std::string& a, const std::string& b) {
  auto key = [](const std::string& h) {
    int group =
        h.rfind("v", 0) == 0 && h.size() > 1 && std::isdigit(static_cast<unsigned char>(h[1]))
            ? 0
            : (h.rfind("variant-", 0) == 0 ? 1 : 2);
    unsigned major = 0, minor = 0;
    if (group == 0) std::sscanf(h.c_str(), "v%u.%u", &major, &minor);
    return std::make_tuple(group, major, minor, h);
  };
  return key(a) < key(b);
}

struct Summary {
  size_t cases = 0, as_expected = 0, unexpected = 0, known = 0;
  std::map<std::string, size_t> by_verdict;
};

Summary summarise(const std::vector<CaseResult>& cases) {
  Summary s;
  for (const CaseResult& c : cases) {
    ++s.cases;
    ++s.by_verdict[to_string(c.verdict)];
    if (c.known && !c.as_expected()) {
      ++s.known;
    } else if (c.as_expected()) {
      ++s.as_expected;
    } else {
      ++s.unexpected;
    }
  }
  return s;
}

const char* symbol(const std::string& state) {
  if (state == "pass") return "✅";
  if (state == "expected-broken") return "⚠️";
  if (state == "unexpected") return "❌";
  return "➖";
}

}  // namespace

// ---- grids ---------------------------------------------------------------------------------

std::string Cell::state() const {
  if (cases == 0 || skipped == cases) return "skip";
  if (unexpected > 0) return "unexpected";
  if (expected_broken > 0) return "expected-broken";
  return "pass";
}

std::vector<Grid> build_grids(const std::vector<CaseResult>& cases) {
  std::map<std::string, std::vector<size_t>> by_scenario;
  for (size_t i = 0; i < cases.size(); ++i) by_scenario[cases[i].scenario].push_back(i);
  std::vector<std::string> order;
  for (const auto& entry : by_scenario) order.push_back(entry.first);
  std::stable_sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
    return scenario_rank(a) < scenario_rank(b);
  });
  std::vector<Grid> grids;
  for (const std::string& scenario : order) {
    Grid g;
    g.scenario = scenario;
    for (size_t i : by_scenario[scenario]) {
      const CaseResult& c = cases[i];
      if (std::find(g.rows.begin(), g.rows.end(), c.producer.header) == g.rows.end()) {
        g.rows.push_back(c.producer.header);
      }
      if (std::find(g.columns.begin(), g.columns.end(), c.consumer.header) == g.columns.end()) {
        g.columns.push_back(c.consumer.header);
      }
    }
    std::sort(g.rows.begin(), g.rows.end(), header_less);
    std::sort(g.columns.begin(), g.columns.end(), header_less);
    g.cells.resize(g.rows.size() * g.columns.size());
    for (size_t r = 0; r < g.rows.size(); ++r) {
      for (size_t k = 0; k < g.columns.size(); ++k) {
        Cell& cell = g.cells[r * g.columns.size() + k];
        cell.scenario = scenario;
        cell.producer_header = g.rows[r];
        cell.consumer_header = g.columns[k];
      }
    }
    for (size_t i : by_scenario[scenario]) {
      const CaseResult& c = cases[i];
      const size_t r = std::find(g.rows.begin(), g.rows.end(), c.producer.header) - g.rows.begin();
      const size_t k =
          std::find(g.columns.begin(), g.columns.end(), c.consumer.header) - g.columns.begin();
      Cell& cell = g.cells[r * g.columns.size() + k];
      ++cell.cases;
      cell.members.push_back(i);
      if (c.known && !c.as_expected()) {
        ++cell.known;
      } else if (!c.as_expected()) {
        ++cell.unexpected;
      } else if (c.expected == Expectation::broken) {
        ++cell.expected_broken;
      } else if (c.verdict == Verdict::skip) {
        ++cell.skipped;
      } else {
        ++cell.passed;
      }
    }
    // One sentence per broken cell: the most common finding among its broken cases.
    for (Cell& cell : g.cells) {
      std::map<std::string, std::pair<size_t, size_t>> findings;  // key -> count, example
      for (size_t i : cell.members) {
        const CaseResult& c = cases[i];
        const bool broken = !c.as_expected() || c.expected == Expectation::broken;
        if (!broken || c.verdict == Verdict::pass) continue;
        auto& f = findings[c.finding_class + "|" + c.rule_id];
        if (f.first++ == 0) f.second = i;
      }
      if (findings.empty()) continue;
      auto best = std::max_element(
          findings.begin(), findings.end(),
          [](const auto& a, const auto& b) { return a.second.first < b.second.first; });
      const CaseResult& example = cases[best->second.second];
      cell.why =
          std::to_string(best->second.first) + " of " + std::to_string(cell.cases) + " cases: " +
          (example.finding_class.empty() ? to_string(example.verdict) : example.finding_class) +
          (example.rule_id.empty() ? "" : " (" + example.rule_id + ")") + ": " + example.detail;
    }
    grids.push_back(std::move(g));
  }
  return grids;
}

// ---- writers -------------------------------------------------------------------------------

std::string json_string(std::string_view raw) { return json_quote(raw); }

bool write_file_atomic(const std::string& path, std::string_view content, std::string* error) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  auto fail = [&](int err) {
    *error = "cannot write report " + path + ": " + std::strerror(err);
    unlink(temp.c_str());
    return false;
  };
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(errno);
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      close(fd);
      return fail(err);
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) return fail(errno);
  if (rename(temp.c_str(), path.c_str()) != 0) return fail(errno);
  return true;
}

std::string render_json(const RunInfo& info, const std::vector<CaseResult>& cases) {
  const Summary s = summarise(cases);
  std::ostringstream o;
  o << "{\n  \"tool\": " << json_string("dlconform " + info.tool_version) << ",\n";
  o << "  \"run\": {\"started_at\": " << json_string(info.started_at)
    << ", \"machine\": " << json_string(info.machine) << ", \"wall_seconds\": " << info.wall_seconds
    << ", \"jobs\": " << info.jobs << ", \"plugins\": [";
  for (size_t i = 0; i < info.plugins.size(); ++i) {
    o << (i ? ", " : "") << json_string(info.plugins[i]);
  }
  o << "]},\n  \"summary\": {\"cases\": " << s.cases << ", \"as_expected\": " << s.as_expected
    << ", \"unexpected\": " << s.unexpected << ", \"known\": " << s.known << ", \"by_verdict\": {";
  bool first = true;
  for (const auto& [verdict, n] : s.by_verdict) {
    o << (first ? "" : ", ") << json_string(verdict) << ": " << n;
    first = false;
  }
  o << "}},\n  \"cases\": [\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& c = cases[i];
    o << "    {\"id\": " << json_string(c.id) << ", \"scenario\": " << json_string(c.scenario)
      << ", \"producer\": {\"name\": " << json_string(c.producer.name)
      << ", \"header\": " << json_string(c.producer.header) << "}"
      << ", \"consumer\": {\"name\": " << json_string(c.consumer.name)
      << ", \"header\": " << json_string(c.consumer.header) << "}"
      << ", \"tensor\": " << json_string(c.tensor) << ", \"verdict\": \"" << to_string(c.verdict)
      << "\", \"expected\": \"" << to_string(c.expected)
      << "\", \"finding_class\": " << json_string(c.finding_class)
      << ", \"expected_class\": " << json_string(c.expected_class)
      << ", \"rule_id\": " << json_string(c.rule_id) << ", \"detail\": " << json_string(c.detail)
      << ", \"known\": " << (c.known ? "true" : "false")
      << ", \"as_expected\": " << (c.as_expected() ? "true" : "false")
      << ", \"seconds\": " << c.seconds << "}" << (i + 1 < cases.size() ? "," : "") << "\n";
  }
  o << "  ]\n}\n";
  return o.str();
}

std::string render_markdown(const RunInfo& info, const std::vector<CaseResult>& cases) {
  const Summary s = summarise(cases);
  std::ostringstream o;
  o << "# dlconform compatibility report\n\n";
  o << "**" << s.cases << " cases: " << s.as_expected << " as expected, " << s.unexpected
    << " unexpected, " << s.known << " known** (" << seconds_text(info.wall_seconds) << ", "
    << info.jobs << " workers, " << md_cell(info.machine) << ", " << info.started_at << ")\n\n";
  o << "✅ every case passed · ⚠️ known incompatibility reproduced as expected · ❌ "
       "unexpected "
       "result · ➖ not applicable. Rows: producer header; columns: consumer header.\n";
  for (const Grid& g : build_grids(cases)) {
    o << "\n## " << g.scenario << "\n\n"
      << scenario_meaning(g.scenario) << "\n\n| producer \\ consumer |";
    for (const std::string& c : g.columns) o << " " << md_cell(c) << " |";
    o << "\n|---|";
    for (size_t k = 0; k < g.columns.size(); ++k) o << ":-:|";
    o << "\n";
    std::vector<const Cell*> broken;
    for (size_t r = 0; r < g.rows.size(); ++r) {
      o << "| **" << md_cell(g.rows[r]) << "** |";
      for (size_t k = 0; k < g.columns.size(); ++k) {
        const Cell& cell = g.cells[r * g.columns.size() + k];
        if (cell.cases == 0) {
          o << "  |";
          continue;
        }
        o << " " << symbol(cell.state()) << " |";
        if (!cell.why.empty()) broken.push_back(&cell);
      }
      o << "\n";
    }
    if (!broken.empty()) o << "\n";
    for (const Cell* cell : broken) {
      o << "- " << symbol(cell->state()) << " **" << md_cell(cell->producer_header) << " → "
        << md_cell(cell->consumer_header) << "**: " << md_cell(cell->why) << "\n";
    }
  }
  std::vector<const CaseResult*> unexpected;
  for (const CaseResult& c : cases) {
    if (!c.as_expected() && !c.known) unexpected.push_back(&c);
  }
  o << "\n## Unexpected results\n\n";
  if (unexpected.empty()) {
    o << "None: every verdict matched its expectation.\n";
  } else {
    o << "| case | verdict | expected | class | rule | detail |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < unexpected.size() && i < 200; ++i) {
      const CaseResult& c = *unexpected[i];
      o << "| " << md_cell(c.id) << " | " << to_string(c.verdict) << " | " << to_string(c.expected)
        << " | " << md_cell(c.finding_class) << " | " << md_cell(c.rule_id) << " | "
        << md_cell(c.detail) << " |\n";
    }
    if (unexpected.size() > 200) o << "\n… and " << unexpected.size() - 200 << " more.\n";
  }
  return o.str();
}

std::string render_junit(const RunInfo& info, const std::vector<CaseResult>& cases) {
  std::map<std::string, std::vector<const CaseResult*>> by_scenario;
  for (const CaseResult& c : cases) by_scenario[c.scenario].push_back(&c);
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"dlconform\" time=\""
    << info.wall_seconds << "\">\n";
  for (const auto& [scenario, list] : by_scenario) {
    size_t failures = 0, skipped = 0;
    for (const CaseResult* c : list) {
      if (c->known && !c->as_expected()) {
        ++skipped;
      } else if (!c->as_expected()) {
        ++failures;
      } else if (c->verdict == Verdict::skip) {
        ++skipped;
      }
    }
    o << "  <testsuite name=\"" << xml(scenario) << "\" tests=\"" << list.size() << "\" failures=\""
      << failures << "\" skipped=\"" << skipped << "\">\n";
    for (const CaseResult* c : list) {
      o << "    <testcase classname=\"dlconform." << xml(scenario) << "." << xml(c->producer.name)
        << "@" << xml(c->producer.header) << "\" name=\"" << xml(c->consumer.name) << "@"
        << xml(c->consumer.header) << " " << xml(c->tensor) << "\" time=\"" << c->seconds << "\"";
      if (c->known && !c->as_expected()) {
        o << "><skipped message=\"known: " << xml(c->finding_class) << "\"/></testcase>\n";
      } else if (!c->as_expected()) {
        o << "><failure message=\"" << to_string(c->verdict) << " (expected "
          << to_string(c->expected) << ") " << xml(c->rule_id) << "\" type=\""
          << xml(c->finding_class) << "\">" << xml(c->detail) << "</failure></testcase>\n";
      } else if (c->verdict == Verdict::skip) {
        o << "><skipped message=\"" << xml(c->detail) << "\"/></testcase>\n";
      } else {
        o << "/>\n";
      }
    }
    o << "  </testsuite>\n";
  }
  o << "</testsuites>\n";
  return o.str();
}

std::string render_html(const RunInfo& info, const std::vector<CaseResult>& cases) {
  const Summary s = summarise(cases);
  const std::vector<Grid> grids = build_grids(cases);
  std::ostringstream o;
  o << R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>dlconform compatibility report</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:26px 0 8px}
.head{display:flex;gap:14px;flex-wrap:wrap;margin:10px 0 14px}
.stat{background:#fff;border:1px solid #dde1e7;border-radius:8px;padding:8px 14px}
.stat b{font-size:20px;display:block}.bad b{color:#c62828}.ok b{color:#2e7d32}
.legend span{display:inline-block;margin-right:14px}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;margin-right:4px}
table.grid{border-collapse:collapse;background:#fff}
.grid th,.grid td{border:1px solid #dde1e7;padding:4px 8px;text-align:center;font-size:13px}
.grid th{background:#f0f2f5}.grid th.row{text-align:right}
td.cell{cursor:pointer;min-width:46px}td.cell:hover{outline:2px solid #1d2330}
.pass{background:#c8e6c9}.expected-broken{background:#ffe0a3}.unexpected{background:#ef9a9a}
.skip{background:#e0e0e0}.empty{background:#fff}
ul.why{margin:6px 0;padding-left:20px;font-size:13px}
#drill{margin-top:10px}#drill table{border-collapse:collapse;width:100%;background:#fff}
#drill td,#drill th{border:1px solid #dde1e7;padding:3px 6px;font-size:12px;text-align:left;vertical-align:top}
#drill tr.no td{background:#fdecea}input{font-size:14px;padding:4px 8px;width:360px}
.meta{color:#5a6270;font-size:12px}
</style></head><body>
<h1>dlconform compatibility report</h1>
<div class="meta">)"
    << xml(info.machine) << " · " << xml(info.started_at) << " · "
    << seconds_text(info.wall_seconds) << ", " << info.jobs
    << " workers</div>\n<div class=\"head\">"
    << "<div class=\"stat\"><b>" << s.cases << "</b>cases</div>"
    << "<div class=\"stat ok\"><b>" << s.as_expected << "</b>as expected</div>"
    << "<div class=\"stat " << (s.unexpected ? "bad" : "ok") << "\"><b>" << s.unexpected
    << "</b>unexpected</div><div class=\"stat\"><b>" << s.known << "</b>known</div></div>\n"
    << "<div class=\"legend\"><span><i class=\"sw pass\"></i>all pass</span>"
       "<span><i class=\"sw expected-broken\"></i>known incompatibility, reproduced</span>"
       "<span><i class=\"sw unexpected\"></i>unexpected</span>"
       "<span><i class=\"sw skip\"></i>not applicable</span>"
       "<span class=\"meta\">rows: producer header · columns: consumer header · a cell shows "
       "cases run / cases (the rest not applicable) · click a cell"
       "</span></div>\n";
  size_t cell_id = 0;
  std::ostringstream members;
  for (const Grid& g : grids) {
    o << "<h2>" << xml(g.scenario) << " <span class=\"meta\">" << xml(scenario_meaning(g.scenario))
      << "</span></h2>\n<table class=\"grid\"><tr><th></th>";
    for (const std::string& c : g.columns) o << "<th>" << xml(c) << "</th>";
    o << "</tr>\n";
    std::vector<const Cell*> broken;
    for (size_t r = 0; r < g.rows.size(); ++r) {
      o << "<tr><th class=\"row\">" << xml(g.rows[r]) << "</th>";
      for (size_t k = 0; k < g.columns.size(); ++k) {
        const Cell& cell = g.cells[r * g.columns.size() + k];
        if (cell.cases == 0) {
          o << "<td class=\"empty\"></td>";
          continue;
        }
        o << "<td class=\"cell " << cell.state() << "\" data-cell=\"" << cell_id << "\" title=\""
          << xml(g.scenario + ": " + g.rows[r] + " -> " + g.columns[k] + ", " +
                 std::to_string(cell.cases) + " cases")
          << "\">" << (cell.cases - cell.skipped) << "/" << cell.cases << "</td>";
        members << (cell_id ? "," : "") << "[";
        for (size_t m = 0; m < cell.members.size(); ++m)
          members << (m ? "," : "") << cell.members[m];
        members << "]";
        ++cell_id;
        if (!cell.why.empty()) broken.push_back(&cell);
      }
      o << "</tr>\n";
    }
    o << "</table>\n";
    if (!broken.empty()) {
      o << "<ul class=\"why\">";
      for (const Cell* cell : broken) {
        o << "<li><i class=\"sw " << cell->state() << "\"></i><b>" << xml(cell->producer_header)
          << " → " << xml(cell->consumer_header) << "</b>: " << xml(cell->why) << "</li>";
      }
      o << "</ul>\n";
    }
  }
  o << "<h2>Cases</h2><input id=\"filter\" placeholder=\"filter case ids (substring)\">"
       " <span id=\"count\" class=\"meta\"></span><div id=\"drill\"></div>\n<script>\n";
  // Inside <script>, '<' is written as \u003c so no text can close the element.
  auto js = [](std::string_view raw) {
    std::string quoted = json_string(raw), out;
    for (char ch : quoted) out += ch == '<' ? std::string("\\u003c") : std::string(1, ch);
    return out;
  };
  o << "const CASES=[";
  for (size_t i = 0; i < cases.size(); ++i) {
    const CaseResult& c = cases[i];
    o << (i ? "," : "") << "[" << js(c.id) << "," << js(to_string(c.verdict)) << ","
      << js(to_string(c.expected)) << "," << js(c.finding_class) << "," << js(c.rule_id) << ","
      << js(c.detail) << "," << (c.as_expected() || c.known ? 1 : 0) << "]";
  }
  o << "];\nconst CELLS=[" << members.str() << "];\n";
  o << R"(const drill=document.getElementById('drill'),count=document.getElementById('count');
function esc(s){return s.replace(/[&<>"]/g,c=>({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));}
function show(idx){const rows=idx.slice(0,2000).map(i=>{const c=CASES[i];
return '<tr class="'+(c[6]?'':'no')+'"><td>'+esc(c[0])+'</td><td>'+c[1]+'</td><td>'+c[2]+
'</td><td>'+esc(c[3])+'</td><td>'+esc(c[4])+'</td><td>'+esc(c[5])+'</td></tr>';}).join('');
count.textContent=idx.length+' cases'+(idx.length>2000?' (first 2000 shown)':'');
drill.innerHTML='<table><tr><th>case</th><th>verdict</th><th>expected</th><th>class</th>'+
'<th>rule</th><th>detail</th></tr>'+rows+'</table>';}
document.querySelectorAll('td.cell').forEach(td=>td.addEventListener('click',()=>{
show(CELLS[+td.dataset.cell]);drill.scrollIntoView({behavior:'smooth'});}));
document.getElementById('filter').addEventListener('input',e=>{const q=e.target.value;
show(CASES.map((c,i)=>i).filter(i=>CASES[i][0].includes(q)));});
// First view: what went wrong; else the findings reproduced on purpose; else everything.
const all=CASES.map((c,i)=>i),bad=all.filter(i=>!CASES[i][6]),
broken=all.filter(i=>CASES[i][2]==='broken');
show(bad.length?bad:(broken.length?broken:all));
</script></body></html>
)";
  return o.str();
}

}  // namespace dlc
