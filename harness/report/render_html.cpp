// The HTML report: one self-contained page (inline CSS and script, no network, works from
// file://). The first screen answers "is everything as expected, and where not?": a verdict
// banner, the counts, and one coloured grid per scenario. Clicking a cell, or one of the
// sentences under a grid, lists that cell's cases below; a box filters the cases by id.
//
// Everything a plugin can influence (ids, names, details) reaches the page either through
// xml_escape() into markup or through script_quote() into the JSON data block, never raw.
#include <algorithm>

#include "report.h"
#include "report_model.h"
#include "report_text.h"

namespace dlc {
namespace {

using report::Cell;
using report::CellState;
using report::Outcome;
using report::xml_escape;

// Sentences shown under a grid before the rest fold away, so one broken scenario cannot push the
// others off the first screen; and cells named in one sentence before "and N more cells".
constexpr size_t kVisibleSentences = 4;
constexpr size_t kLinksPerSentence = 4;

constexpr char kStyle[] = R"css(
:root{--pass:#a6dbb0;--pass-fg:#14532d;--broken:#fbc658;--broken-fg:#6b3f00;--bad:#e5484d;
--bad-fg:#fff;--skip:#dde1e6;--skip-fg:#5b6472;--line:#e2e5ea;--ink:#1c2330;
--muted:#5f6877}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 "DejaVu Sans","Liberation Sans",system-ui,sans-serif;color:var(--ink);
background:#f4f6f8}
header.top{display:flex;align-items:center;gap:24px;padding:14px 28px;background:#1f2633;color:#fff}
header.top h1{font-size:20px;margin:0;font-weight:600}
header.top .meta{color:#b8c0cc;font-size:12px;margin-top:2px}
.banner{margin-left:auto;padding:8px 16px;border-radius:8px;font-size:16px;font-weight:600;
white-space:nowrap}
.banner.ok{background:#1e7a3c}.banner.bad{background:var(--bad)}
main{padding:16px 28px 40px}
.stats{display:flex;gap:12px;align-items:stretch;flex-wrap:wrap}
.stat{background:#fff;border:1px solid var(--line);border-radius:10px;padding:8px 16px;
min-width:120px}
.stat b{display:block;font-size:24px;line-height:1.2}
.stat span{color:var(--muted);font-size:12px}
.stat.ok b{color:#1e7a3c}.stat.bad b{color:#c62828}.stat.warn b{color:#9a5b00}
.bar{display:flex;height:10px;border-radius:5px;overflow:hidden;margin:12px 0 6px;
background:var(--skip)}
.bar i{display:block;min-width:3px}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;color:var(--muted);
font-size:12.5px;margin:6px 0 14px}
.legend .sw{margin-right:6px}
.sw{display:inline-block;width:14px;height:14px;border-radius:3px;vertical-align:-2px}
.pass{background:var(--pass);color:var(--pass-fg)}
.expected-broken{background:var(--broken);color:var(--broken-fg)}
.unexpected{background:var(--bad);color:var(--bad-fg)}
.skip{background:var(--skip);color:var(--skip-fg)}
.known{background:var(--broken);color:var(--broken-fg)}
.grids{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:10px 14px 12px;
width:min-content;min-width:300px}
.card h2{font-size:16px;margin:0;white-space:nowrap}
.card h2 small{font-weight:400;color:var(--muted);font-size:12px;margin-left:6px}
.card p.what{margin:2px 0 8px;color:var(--muted);font-size:12px;min-width:270px}
table.grid{border-collapse:separate;border-spacing:3px;margin-left:-3px}
.grid th{font-weight:600;font-size:12px;color:#3a4352;white-space:nowrap;padding:0 4px}
.grid th.row{text-align:right;font-family:"DejaVu Sans Mono",monospace;font-size:11.5px}
.grid thead th{vertical-align:bottom;font-family:"DejaVu Sans Mono",monospace;font-size:11.5px}
.grid thead th.rot span{writing-mode:vertical-rl;transform:rotate(180deg);display:inline-block}
.grid th.corner{color:var(--muted);font-weight:400;font-family:inherit;text-align:right;
font-size:11px;line-height:1.2}
.grid td{width:34px;min-width:34px;height:26px;border-radius:5px;text-align:center;
font-size:13px;font-weight:600}
.grid td.c{cursor:pointer}
.grid td.c:hover,.grid td.c.sel{outline:2px solid var(--ink);outline-offset:1px}
.grid td.empty{background:repeating-linear-gradient(45deg,#fff 0 4px,#f1f3f5 4px 8px)}
ul.why{margin:8px 0 0;padding:0;list-style:none;font-size:12.5px;overflow-wrap:anywhere}
ul.why li{margin:4px 0;padding-left:20px;text-indent:-20px}
ul.why li .sw{width:12px;height:12px;margin-right:8px;vertical-align:-1px}
ul.why a{color:var(--ink);font-weight:600;text-decoration:none;border-bottom:1px dotted}
ul.why code{font-size:11.5px;background:#f1f3f5;padding:0 3px;border-radius:3px}
details.more summary{cursor:pointer;color:var(--muted);font-size:12px;margin-top:4px}
section.cases{margin-top:22px;background:#fff;border:1px solid var(--line);border-radius:10px;
padding:12px 16px}
.tools{display:flex;flex-wrap:wrap;gap:10px;align-items:center}
.tools h2{font-size:17px;margin:0 8px 0 0}
#q{font:inherit;padding:6px 10px;width:380px;border:1px solid #c5cbd3;border-radius:6px}
.states button,#cellchip button,#more{font:inherit;font-size:12.5px;border:1px solid #c5cbd3;
background:#fff;border-radius:14px;padding:3px 10px;cursor:pointer;color:var(--ink)}
.states button[aria-pressed=true]{background:var(--ink);color:#fff;border-color:var(--ink)}
.states button .sw{width:10px;height:10px;margin-right:5px;vertical-align:0}
#cellchip{font-size:12.5px;background:#eef1f5;border-radius:14px;padding:3px 4px 3px 12px}
#cellchip button{border:0;background:transparent;font-weight:700;padding:0 8px}
#count{color:var(--muted);font-size:12.5px;margin-left:auto}
table.list{border-collapse:collapse;width:100%;margin-top:10px;font-size:12.5px}
.list th{text-align:left;color:var(--muted);font-weight:600;border-bottom:2px solid var(--line);
padding:4px 8px;position:sticky;top:0;background:#fff}
.list td{border-bottom:1px solid #eef0f3;padding:4px 8px;vertical-align:top}
.list td.id{font-family:"DejaVu Sans Mono",monospace;font-size:11.5px;overflow-wrap:anywhere;
border-left:5px solid var(--skip);width:34%}
.list tr.o-unexpected td{background:#fff1f1}
.list tr.o-unexpected td.id{border-left-color:var(--bad)}
.list tr.o-expected-broken td.id{border-left-color:var(--broken)}
.list tr.o-known td.id{border-left-color:var(--broken)}
.list tr.o-pass td.id{border-left-color:var(--pass)}
.list td.detail{overflow-wrap:anywhere}
.list td.nw{white-space:nowrap}
.list .v-fail,.list .v-crash,.list .v-timeout{color:#b42318;font-weight:600}
.list .v-pass{color:#1e7a3c}.list .v-skip{color:var(--muted)}
#more{margin-top:8px}
details.plugins{margin-top:16px;color:var(--muted);font-size:12.5px}
details.plugins ul{font-family:"DejaVu Sans Mono",monospace;font-size:11.5px}
)css";

// Reads the data block, then wires the grid cells, the sentences, the filter box and the outcome
// buttons to one render(). Only esc()aped text reaches innerHTML.
constexpr char kScript[] = R"js(
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('dlc-data').textContent);
  const OUT = ['unexpected', 'expected-broken', 'known', 'pass', 'skip'];
  const LABEL = {'unexpected': 'unexpected', 'expected-broken': 'expected broken',
                 'known': 'known', 'pass': 'pass', 'skip': 'skipped'};
  const PAGE = 500;
  const q = document.getElementById('q'), body = document.getElementById('rows');
  const count = document.getElementById('count'), more = document.getElementById('more');
  const chip = document.getElementById('cellchip'), chipText = document.getElementById('celltext');
  const states = document.getElementById('states');
  let cell = -1, limit = PAGE;
  const tally = {};
  OUT.forEach(o => tally[o] = 0);
  data.cases.forEach(c => tally[c[7]]++);
  let shown = new Set(tally['unexpected'] ? ['unexpected'] :
      (tally['expected-broken'] + tally['known'] ? ['expected-broken', 'known'] : OUT));

  // Other control characters in a detail (a plugin's raw output) show as \xNN: the page's fonts
  // have no glyphs for them, and a debugging reader wants the byte anyway.
  function esc(s) {
    return String(s).replace(/[&<>"']/g, ch => ({'&': '&amp;', '<': '&lt;', '>': '&gt;',
        '"': '&quot;', "'": '&#39;'}[ch])).replace(/[\t\n\r]/g, ' ').replace(/[\x00-\x1f\x7f]/g,
        ch => '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0'));
  }
  OUT.forEach(o => {
    if (!tally[o]) return;
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.outcome = o;
    b.innerHTML = '<i class="sw ' + o + '"></i>' + esc(LABEL[o]) + ' ' + tally[o];
    b.addEventListener('click', () => {
      if (shown.has(o) && shown.size === 1) shown = new Set(OUT);
      else shown = new Set([o]);
      limit = PAGE;
      render();
    });
    states.appendChild(b);
  });

  function matches(c, words) {
    if (cell >= 0 && c[8] !== cell) return false;
    if (!shown.has(c[7])) return false;
    const id = c[0].toLowerCase();
    return words.every(w => id.includes(w));
  }
  function row(c) {
    const cls = c[3] + (c[4] && c[4] !== c[3] ? ' (expected ' + c[4] + ')' : '');
    return '<tr class="o-' + c[7] + '"><td class="id">' + esc(c[0]) + '</td><td class="nw v-' +
        c[1] + '">' + esc(c[1]) + '</td><td class="nw">' + esc(c[2]) + '</td><td>' + esc(cls) +
        '</td><td class="nw">' + esc(c[5]) + '</td><td class="detail">' + esc(c[6]) + '</td></tr>';
  }
  function render() {
    const words = q.value.toLowerCase().split(/\s+/).filter(w => w);
    const hits = data.cases.filter(c => matches(c, words));
    body.innerHTML = hits.slice(0, limit).map(row).join('');
    count.textContent = hits.length + (hits.length === 1 ? ' case' : ' cases') +
        (hits.length > limit ? ', first ' + limit + ' shown' : '');
    more.hidden = hits.length <= limit;
    states.querySelectorAll('button').forEach(b =>
        b.setAttribute('aria-pressed', String(shown.has(b.dataset.outcome) &&
                                              shown.size < OUT.length)));
    chip.hidden = cell < 0;
    if (cell >= 0) chipText.textContent = data.cells[cell][1];
    document.querySelectorAll('td.sel').forEach(td => td.classList.remove('sel'));
    if (cell >= 0) {
      const td = document.querySelector('td[data-cell="' + cell + '"]');
      if (td) td.classList.add('sel');
    }
  }
  // scroll: '' to stay, else a scrollIntoView behaviour.
  function openCell(index, scroll) {
    cell = index;
    shown = new Set(OUT);
    limit = PAGE;
    render();
    setHash('#cell=' + encodeURIComponent(data.cells[index][0]));
    if (scroll) document.getElementById('cases').scrollIntoView({behavior: scroll});
  }
  // The address bar names the open cell, so a link to it can be shared; some browsers refuse
  // history changes on file:// pages, which must not break the page.
  function setHash(hash) {
    try { history.replaceState(null, '', hash || location.pathname + location.search); }
    catch (e) { /* the link just does not follow the selection */ }
  }
  document.querySelectorAll('[data-cell]').forEach(el => {
    const open = e => { e.preventDefault(); openCell(+el.dataset.cell, 'smooth'); };
    el.addEventListener('click', open);
    el.addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') open(e); });
  });
  document.getElementById('clearcell').addEventListener('click', () => {
    cell = -1;
    setHash('');
    render();
  });
  q.addEventListener('input', () => { limit = PAGE; render(); });
  more.addEventListener('click', () => { limit += PAGE; render(); });

  // Deep links: #cell=S0/v1.3/v0.6 opens a cell, #q=words fills the filter.
  let hash = '';
  try { hash = decodeURIComponent(location.hash.slice(1)); } catch (e) { /* a malformed link */ }
  if (hash.startsWith('cell=')) {
    const index = data.cells.findIndex(k => k[0] === hash.slice(5));
    // No scrolling here: the highlighted cell and the list below it already answer the link.
    if (index >= 0) { openCell(index, ''); return; }
  } else if (hash.startsWith('q=')) {
    q.value = hash.slice(2);
    shown = new Set(OUT);
  }
  render();
})();
)js";

std::string glyph(CellState s) {
  switch (s) {
    case CellState::pass:
      return "✓";
    case CellState::expected_broken:
      return "!";
    case CellState::unexpected:
      return "✗";
    case CellState::skip:
      return "–";
    case CellState::empty:
      return "";
  }
  return "";
}

// "24 cases: 20 pass, 4 skipped": the tooltip of a cell.
std::string breakdown(const Cell& cell) {
  static constexpr std::pair<Outcome, const char*> kParts[] = {
      {Outcome::unexpected, "unexpected"},
      {Outcome::expected_broken, "expected broken"},
      {Outcome::known, "known"},
      {Outcome::pass, "pass"},
      {Outcome::skip, "skipped"}};
  std::string s =
      std::to_string(cell.members.size()) + (cell.members.size() == 1 ? " case: " : " cases: ");
  bool first = true;
  for (const auto& [outcome, label] : kParts) {
    if (cell.count(outcome) == 0) continue;
    s += (first ? "" : ", ") + std::to_string(cell.count(outcome)) + " " + label;
    first = false;
  }
  return s;
}

void head(const RunInfo& info, const report::Summary& s, std::string* o) {
  const bool ok = s.unexpected == 0;
  const std::string verdict = report::verdict_line(s);
  *o +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>dlconform: " +
      xml_escape(verdict) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n";
  std::string meta = "dlconform " + info.tool_version;
  if (info.details) {
    meta += " · started " + info.started_at + " · " + std::to_string(info.jobs) +
            (info.jobs == 1 ? " worker" : " workers") + " · " + info.machine;
  }
  *o += "<header class=\"top\"><div><h1>DLPack compatibility report</h1><div class=\"meta\">" +
        xml_escape(meta) + "</div></div><div class=\"banner " + (ok ? "ok" : "bad") + "\">" +
        (ok ? "✓ " : "✗ ") + xml_escape(verdict) + "</div></header>\n<main>\n";

  auto stat = [&](size_t n, const char* label, const char* tone) {
    *o += std::string("<div class=\"stat ") + tone + "\"><b>" + std::to_string(n) + "</b><span>" +
          label + "</span></div>";
  };
  *o += "<div class=\"stats\">";
  stat(s.cases, "cases", "");
  stat(s.as_expected, "as expected", "ok");
  stat(s.unexpected, "unexpected", s.unexpected ? "bad" : "");
  stat(s.known, "known (suppressed)", s.known ? "warn" : "");
  if (info.details) {
    *o += "<div class=\"stat\"><b>" + xml_escape(report::human_duration(info.wall_seconds)) +
          "</b><span>wall time</span></div>";
  }
  *o += "</div>\n";

  // One bar of the outcomes in proportion: the shape of the run before any number is read.
  *o += "<div class=\"bar\" title=\"outcomes of all cases\">";
  const std::pair<Outcome, const char*> segments[] = {{Outcome::pass, "pass"},
                                                      {Outcome::expected_broken, "expected broken"},
                                                      {Outcome::known, "known"},
                                                      {Outcome::skip, "skipped"},
                                                      {Outcome::unexpected, "unexpected"}};
  for (const auto& [outcome, label] : segments) {
    const size_t n = s.by_outcome[static_cast<size_t>(outcome)];
    if (n == 0) continue;
    *o += std::string("<i class=\"") + report::to_string(outcome) +
          "\" style=\"flex:" + std::to_string(n) + "\" title=\"" + std::to_string(n) + " " + label +
          "\"></i>";
  }
  *o += "</div>\n";
  *o +=
      "<div class=\"legend\"><span><i class=\"sw pass\"></i>✓ every case passed</span>"
      "<span><i class=\"sw expected-broken\"></i>! known incompatibility reproduced as expected "
      "(or suppressed as known)</span><span><i class=\"sw unexpected\"></i>✗ unexpected "
      "result</span>"
      "<span><i class=\"sw skip\"></i>– not applicable (skipped)</span>"
      "<span>rows: producer header · columns: consumer header · click a cell for its cases"
      "</span></div>\n";
}

// The sentences under a grid. Cells broken for the same reason share one sentence, so a raw
// grid with a hundred amber cells reads as its handful of causes; unexpected causes come first,
// then the causes that cover most cells.
void explanations(const std::vector<std::pair<const Cell*, size_t>>& broken, std::string* o) {
  struct Group {
    CellState state;
    std::string text, finding_class;
    std::vector<std::pair<const Cell*, size_t>> cells;
    size_t count = 0, of = 0;
  };
  std::vector<Group> groups;
  for (const auto& entry : broken) {
    const Cell* cell = entry.first;
    const size_t id = entry.second;
    const CellState state = cell->state();
    const std::string text = report::reason_text(*cell);
    const std::string& finding_class = cell->reason.finding_class;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.state == state && g.text == text && g.finding_class == finding_class;
    });
    if (it == groups.end()) {
      groups.push_back({state, text, cell->reason.finding_class, {}});
      it = groups.end() - 1;
    }
    it->cells.emplace_back(cell, id);
    it->count += cell->reason.count;
    it->of += cell->reason.of;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    const bool ua = a.state == CellState::unexpected, ub = b.state == CellState::unexpected;
    return ua != ub ? ua : a.cells.size() > b.cells.size();
  });
  if (groups.empty()) return;
  *o += "<ul class=\"why\">";
  for (size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (i == kVisibleSentences) {
      *o += "</ul><details class=\"more\"><summary>" +
            std::to_string(groups.size() - kVisibleSentences) +
            " more causes</summary><ul class=\"why\">";
    }
    *o += std::string("<li><i class=\"sw ") + report::to_string(g.state) + "\"></i>";
    for (size_t k = 0; k < g.cells.size() && k < kLinksPerSentence; ++k) {
      const Cell& cell = *g.cells[k].first;
      *o += std::string(k ? ", " : "") + "<a href=\"#\" data-cell=\"" +
            std::to_string(g.cells[k].second) + "\">" +
            xml_escape(cell.producer_header + " → " + cell.consumer_header) + "</a>";
    }
    if (g.cells.size() > kLinksPerSentence) {
      *o += " and " + std::to_string(g.cells.size() - kLinksPerSentence) + " more cells";
    }
    if (g.cells.size() == 1) {
      *o += ": " + xml_escape(report::reason_sentence(*g.cells[0].first)) + "</li>";
      continue;
    }
    *o += ": " + xml_escape(g.text) + "; " +
          (g.finding_class.empty() ? std::string() : xml_escape(g.finding_class) + " in ") +
          std::to_string(g.count) + " of " + std::to_string(g.of) + " cases of " +
          std::to_string(g.cells.size()) + " cells</li>";
  }
  *o += groups.size() > kVisibleSentences ? "</ul></details>" : "</ul>";
}

void grid_card(const report::Grid& g, size_t* next_cell, std::string* cells_json,
               std::vector<int>* cell_of_case, std::string* o) {
  size_t total = 0, unexpected = 0;
  for (const Cell& cell : g.cells) {
    total += cell.members.size();
    unexpected += cell.count(Outcome::unexpected);
  }
  *o += "<section class=\"card\"><h2>" + xml_escape(g.scenario) + "<small>" +
        std::to_string(total) + " cases" +
        (unexpected ? ", " + std::to_string(unexpected) + " unexpected" : std::string()) +
        "</small></h2>";
  if (const char* meaning = report::scenario_meaning(g.scenario); *meaning) {
    *o += "<p class=\"what\">" + xml_escape(meaning) + "</p>";
  }
  const bool rotate = std::any_of(g.columns.begin(), g.columns.end(),
                                  [](const std::string& c) { return c.size() > 5; });
  *o += "<table class=\"grid\"><thead><tr><th class=\"corner\">producer ↓<br>consumer →</th>";
  for (const std::string& c : g.columns) {
    *o += std::string("<th") + (rotate ? " class=\"rot\"" : "") + "><span>" + xml_escape(c) +
          "</span></th>";
  }
  *o += "</tr></thead><tbody>\n";
  std::vector<std::pair<const Cell*, size_t>> broken;
  for (size_t r = 0; r < g.rows.size(); ++r) {
    *o += "<tr><th class=\"row\">" + xml_escape(g.rows[r]) + "</th>";
    for (size_t k = 0; k < g.columns.size(); ++k) {
      const Cell& cell = g.at(r, k);
      const CellState state = cell.state();
      if (state == CellState::empty) {
        *o += "<td class=\"empty\" title=\"no cases\"></td>";
        continue;
      }
      const size_t id = (*next_cell)++;
      for (size_t m : cell.members) (*cell_of_case)[m] = static_cast<int>(id);
      *cells_json += std::string(id ? "," : "") + "[" +
                     report::script_quote(g.scenario + "/" + cell.producer_header + "/" +
                                          cell.consumer_header) +
                     "," + report::script_quote(report::cell_title(cell)) + "]";
      std::string text = glyph(state);
      if (state == CellState::unexpected) text += std::to_string(cell.count(Outcome::unexpected));
      *o += std::string("<td class=\"c ") + report::to_string(state) + "\" data-cell=\"" +
            std::to_string(id) + "\" tabindex=\"0\" title=\"" +
            xml_escape(report::cell_title(cell) + ": " + breakdown(cell)) + "\">" + text + "</td>";
      if (cell.reason.count > 0) broken.emplace_back(&cell, id);
    }
    *o += "</tr>\n";
  }
  *o += "</tbody></table>\n";
  explanations(broken, o);
  *o += "</section>\n";
}

}  // namespace

std::string render_html(const RunInfo& info, const std::vector<CaseResult>& cases) noexcept {
  try {
    std::string o;
    const report::Summary s = report::summarise(cases);
    head(info, s, &o);

    o += "<div class=\"grids\">\n";
    size_t next_cell = 0;
    std::string cells_json;
    std::vector<int> cell_of_case(cases.size(), -1);
    for (const report::Grid& g : report::build_grids(cases)) {
      grid_card(g, &next_cell, &cells_json, &cell_of_case, &o);
    }
    o += "</div>\n";

    o += "<section class=\"cases\" id=\"cases\"><div class=\"tools\"><h2>Cases</h2>"
         "<input id=\"q\" type=\"search\" placeholder=\"Filter case ids: all words must match, "
         "e.g. raw v0.6 f32\" aria-label=\"Filter case ids\">"
         "<span class=\"states\" id=\"states\"></span>"
         "<span id=\"cellchip\" hidden><span id=\"celltext\"></span>"
         "<button type=\"button\" id=\"clearcell\" title=\"show every cell\">×</button></span>"
         "<span id=\"count\"></span></div>\n"
         "<noscript><p>The case list needs JavaScript; the JSON report has every case.</p>"
         "</noscript>\n<table class=\"list\"><thead><tr><th>case</th><th>verdict</th>"
         "<th>expected</th><th>finding class</th><th>rule</th><th>detail</th></tr></thead>"
         "<tbody id=\"rows\"></tbody></table>"
         "<button type=\"button\" id=\"more\" hidden>show more</button></section>\n";

    o += "<details class=\"plugins\" open><summary>" + std::to_string(info.parties.size()) +
         " parties and their profiles</summary><table class=\"list\"><thead><tr><th>party</th>"
         "<th>role</th><th>profile</th><th>refused</th></tr></thead><tbody>";
    for (const PartyInfo& p : info.parties) {
      const report::Refusals r = report::refusals_of(p.label, cases);
      o += "<tr><td>" + xml_escape(p.label) + "</td><td>" + xml_escape(p.role) + "</td><td>" +
           xml_escape(p.profile) + "</td><td>" + std::to_string(r.count) +
           (r.examples.empty() ? "" : " (" + xml_escape(r.examples) + ")") + "</td></tr>";
    }
    o += "</tbody></table></details>\n";
    const std::vector<report::HardeningRow> hardening = report::hardening_rows(cases);
    if (!hardening.empty()) {
      // Apart from conformance: a consumer's fault on a tensor no conformant producer makes.
      o += "<details class=\"plugins\" open><summary>hardening findings: faults on tensors no "
           "conformant producer makes (not conformance; exit bit 16)</summary><table "
           "class=\"list\"><thead><tr><th>consumer</th><th>the producer broke</th>"
           "<th>finding class</th><th>cases</th><th>unexpected</th><th>first case</th></tr>"
           "</thead><tbody>";
      for (const report::HardeningRow& r : hardening) {
        o += "<tr><td>" + xml_escape(r.consumer) + "</td><td>" + xml_escape(r.rule) +
             "</td><td>" + xml_escape(r.cls) + "</td><td>" + std::to_string(r.cases) +
             "</td><td>" + std::to_string(r.unexpected) + "</td><td>" +
             xml_escape(r.first_case) + "</td></tr>";
      }
      o += "</tbody></table></details>\n";
    }
    const std::vector<report::RuleCount> rules = report::rules_cited(cases);
    if (!rules.empty()) {
      o += "<details class=\"plugins\" open><summary>rules cited</summary><table "
           "class=\"list\"><thead><tr><th>rule</th><th>severity</th><th>the rule</th>"
           "<th>unexpected</th><th>as expected or known</th><th>observations</th></tr></thead>"
           "<tbody>";
      for (const report::RuleCount& r : rules) {
        o += "<tr><td>" + xml_escape(r.id) + "</td><td>" + xml_escape(r.severity) + "</td><td>" +
             xml_escape(r.summary) + "</td><td>" + std::to_string(r.unexpected) + "</td><td>" +
             std::to_string(r.expected) + "</td><td>" + std::to_string(r.observations) +
             "</td></tr>";
      }
      o += "</tbody></table></details>\n";
    }
    if (!info.suppressions.empty()) {
      // Every suppression entry: the classes and role it hides, and how many cases.
      o += "<details class=\"plugins\"><summary>suppression entries</summary><table "
           "class=\"list\"><thead><tr><th>entry</th><th>where</th><th>cases</th>"
           "<th>classes matched</th><th>first case</th></tr></thead><tbody>";
      for (const SuppressionUse& u : info.suppressions) {
        const std::string classes = report::matched_classes(u, "not named: ");
        o += "<tr><td>" + xml_escape(u.entry) + "</td><td>" + xml_escape(u.where) + "</td><td>" +
             std::to_string(u.matched) + "</td><td>" + xml_escape(classes) + "</td><td>" +
             (u.cases.empty() ? "" : xml_escape(u.cases.front())) + "</td></tr>";
      }
      o += "</tbody></table></details>\n";
    }
    for (const std::string& n : info.notes) o += "<p class=\"note\">" + xml_escape(n) + "</p>\n";
    o += "</main>\n";

    // The cases as data for the drill-down: [id, verdict, expected, class, expected class, rule,
    // detail, outcome, cell]. script_quote() keeps "</script>" in a detail from ending the block.
    o += "<script type=\"application/json\" id=\"dlc-data\">{\"cells\":[" + cells_json +
         "],\n\"cases\":[";
    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseResult& c = cases[i];
      o += std::string(i ? ",\n" : "") + "[" + report::script_quote(c.id) + "," +
           report::script_quote(to_string(c.verdict)) + "," +
           report::script_quote(to_string(c.expected)) + "," +
           report::script_quote(c.finding_class) + "," + report::script_quote(c.expected_class) +
           "," + report::script_quote(c.rule_id) + "," + report::script_quote(c.detail) + "," +
           report::script_quote(report::to_string(report::outcome_of(c))) + "," +
           std::to_string(cell_of_case[i]) + "]";
    }
    o += "]}</script>\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
    return o;
  } catch (...) {  // std::bad_alloc: nothing sensible can be written
    return {};
  }
}

}  // namespace dlc
