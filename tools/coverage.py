#!/usr/bin/env python3
"""docs/coverage.md from the coverage tables: every normative sentence of the DLPack texts
(coverage/obligations.tsv) and every property the frameworks' own DLPack tests assert
(coverage/properties.tsv), with its rules, its state, and the globs of the committed reports'
cases that judge it. tools/coverage_test.py holds each row to those reports.

  coverage.py            write docs/coverage.md
  coverage.py --check    exit 1 when docs/coverage.md differs from what it would write

The committed reports are reports/matrix.json and reports/gpu.json, and the main job's planted
runs of the same build (PLANTED_REPORTS): reports/planted-consumers.json,
reports/planted-producers.json, reports/planted-xapi.json, reports/planted-importers.json,
reports/planted-pairs.json, reports/planted-importer-devices.json and
reports/planted-xapi-consumers.json. A planted case is
  - one whose id, producer name or consumer name holds `planted` (the planted C parties of
    harness/plan/planted_bugs.tsv and the CUDA ones), or
  - a case of a planted-*.json report whose party segment (the third segment of its id,
    SCENARIO/ENV/PARTY/..., or the fourth in an import row, framework/ENV/PRODUCER/PARTY/..., and
    in a pair, pairs/ENV/EXPORTER/IMPORTER/..., the importer first) is
    the `header` of its producer or its consumer and one of the parties of that report's file
    (planted_parties): NAME@1 for each `planted = "NAME"` of python/planted_consumers.py,
    python/planted_producers.py, python/planted_importers.py or
    python/planted_xapi_consumers.py, xapi-TABLE@1 for each table of
    python/planted_xapi_expected.py. Such a party's `name` is the framework key ("numpy") and is
    not looked at; the controls (correct-consumer, correct-producer, correct-importer,
    viewing-consumer, xapi-correct, ...) are planted parties too, and pass.
It fails when its verdict is fail, crash or timeout and the run expected it (expected `broken`,
or known through a suppression: suppressions/planted.txt for the planted-*.json reports); an INFO
note is a pass and never makes it fail. A real case is one of matrix.json or gpu.json that is not
planted and has a party outside the project's own mock parties (OWN_PARTIES); no case of a
planted-*.json report is real."""
import ast
import fnmatch
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBLIGATIONS = os.path.join("coverage", "obligations.tsv")
PROPERTIES = os.path.join("coverage", "properties.tsv")
DOC = os.path.join("docs", "coverage.md")
COLUMNS = ["id", "source", "section", "strength", "binds", "testable", "text", "rules", "state",
           "planted", "real", "reason"]
STATES = ["judged", "prepared (GPU)", "not judged", "not testable here"]
# The main job's planted runs (tools/dev main, the same build as matrix.json): report -> the
# file whose parties it runs.
PLANTED_REPORTS = {
    "planted-consumers": os.path.join("python", "planted_consumers.py"),
    "planted-producers": os.path.join("python", "planted_producers.py"),
    "planted-xapi": os.path.join("python", "planted_xapi_expected.py"),
    "planted-importers": os.path.join("python", "planted_importers.py"),
    "planted-pairs": os.path.join("python", "planted_importers.py"),
    "planted-importer-devices": os.path.join("python", "planted_importers.py"),
    "planted-xapi-consumers": os.path.join("python", "planted_xapi_consumers.py"),
}
MAIN_REPORTS = ("matrix",) + tuple(PLANTED_REPORTS)
FAILED = {"fail", "crash", "timeout"}
# The project's own parties: mock producers and consumers, the layout variants (variant-*), the
# harness and the Python bridge's callers. A case between two of them judges no real library.
OWN_PARTIES = {
    "legacy-producer", "versioned-producer", "future-major-producer", "future-minor-producer",
    "malloc-producer", "cuda-producer", "refusing-producer", "legacy-consumer",
    "versioned-consumer", "strict-consumer", "untaken-consumer", "cuda-consumer",
    "dlconform-consumer", "dlconform-cuda-consumer", "dlconform-cuda-producer", "dlconform-caller",
    "dlconform-bad-input", "harness",
}


def read_table(path):
    """The rows of a coverage table as dicts of its header's columns; '#' lines are comments."""
    header, rows = None, []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                continue
            row = dict(zip(header, cells))
            row["_line"] = number
            row["_cells"] = len(cells)
            row["_width"] = len(header)
            rows.append(row)
    return header or [], rows


def split(cell, separator=r"\s+"):
    """The items of a list cell: globs are separated by whitespace (a glob may hold a comma),
    rules by commas (separator r",\s*"); '-' is empty."""
    cell = cell.strip()
    if cell in ("", "-"):
        return []
    return [x.strip() for x in re.split(separator, cell) if x.strip()]


def rules_of(row):
    return split(row["rules"], r",\s*")


def state_kind(state):
    """'judged', 'prepared (GPU)', 'not judged' or 'not testable here'; None if malformed."""
    if state in ("judged", "prepared (GPU)"):
        return state
    m = re.fullmatch(r"(not judged|not testable here) \((.+)\)", state)
    return m.group(1) if m else None


def planted_parties(report, root=ROOT):
    """The labels of the parties a planted-*.json report runs, read from their file: NAME@1 for
    each `planted = "NAME"` class attribute, xapi-TABLE@1 for each table of EXPECTED (or the
    party PARTY names for it) and the CUDA stand-ins of WORK_STREAM_ROWS."""
    text = open(os.path.join(root, PLANTED_REPORTS[report]), encoding="utf-8").read()
    if report == "planted-xapi":
        values = {node.targets[0].id: ast.literal_eval(node.value)
                  for node in ast.parse(text).body
                  if isinstance(node, ast.Assign) and len(node.targets) == 1
                  and getattr(node.targets[0], "id", None) in ("EXPECTED", "PARTY",
                                                                "WORK_STREAM_ROWS")}
        renamed = values.get("PARTY", {})
        return ({renamed.get(table, f"xapi-{table}@1") for table in values.get("EXPECTED", {})}
                | set(values.get("WORK_STREAM_ROWS", {})))
    return {f"{name}@1" for name in re.findall(r'^    planted = "([^"]+)"$', text, re.M)}


def planted_party(case, parties):
    """The planted party of a planted-*.json report's case (see the module's docstring), or ''."""
    for party in reversed(case["id"].split("/")[2:4]):
        if party in parties and party in (case["producer_header"], case["consumer_header"]):
            return party
    return ""


def is_planted(case):
    return (bool(case.get("planted_party")) or "planted" in case["id"]
            or "planted" in case["producer"] or "planted" in case["consumer"])


def is_failing_planted(case):
    """A planted party's case that the run failed, as it expected: the check can fail."""
    return (is_planted(case) and case["verdict"] in FAILED
            and (case["expected"] == "broken" or case["known"] is True))


def is_own(name):
    return name in OWN_PARTIES or name.startswith("variant-") or "planted" in name


def is_real(case):
    return (case["report"] in ("matrix", "gpu") and not is_planted(case)
            and not (is_own(case["producer"]) and is_own(case["consumer"])))


def load_cases(root=ROOT):
    """Every case of reports/matrix.json, reports/gpu.json and the planted-*.json reports,
    reduced to what the checks read; `report` says which file it came from (matrix, gpu,
    planted-consumers, planted-producers, planted-xapi), `planted_party` names the planted
    party of a planted-*.json report's case."""
    out = []

    def add(case, report, parties=frozenset()):
        producer, consumer = case.get("producer") or {}, case.get("consumer") or {}
        row = {"id": case["id"], "verdict": case.get("verdict", ""),
               "expected": case.get("expected", ""), "known": case.get("known", False),
               "rule": case.get("rule_id", ""), "class": case.get("finding_class", ""),
               "producer": producer.get("name", ""), "consumer": consumer.get("name", ""),
               "producer_header": producer.get("header", ""),
               "consumer_header": consumer.get("header", ""), "report": report,
               "expected_rule": case.get("expected_rule", ""),
               "awaits_gpu": case.get("verdict") == "skip"
               and case.get("detail", "").startswith("no CUDA device")}
        row["planted_party"] = planted_party(row, parties)
        out.append(row)

    with open(os.path.join(root, "reports", "matrix.json"), encoding="utf-8") as f:
        for case in json.load(f)["cases"]:
            add(case, "matrix")
    with open(os.path.join(root, "reports", "gpu.json"), encoding="utf-8") as f:
        gpu = json.load(f)
    for case in gpu.get("cuda_cases", []) + gpu.get("framework_cases", []):
        add(case, "gpu")
    for report in PLANTED_REPORTS:
        parties = planted_parties(report, root)
        with open(os.path.join(root, "reports", report + ".json"), encoding="utf-8") as f:
            for case in json.load(f)["cases"]:
                add(case, report, parties)
    return out


class Index:
    """Cases grouped by the first segment of their ids, so that a glob (whose first segment is
    literal) is matched against its own scenario only."""

    def __init__(self, cases):
        self.by_scenario = {}
        for case in cases:
            self.by_scenario.setdefault(case["id"].split("/", 1)[0], []).append(case)
        self.memo = {}

    def match(self, glob):
        if glob not in self.memo:
            pattern = re.compile(fnmatch.translate(glob))
            cases = self.by_scenario.get(glob.split("/", 1)[0], [])
            self.memo[glob] = [c for c in cases if pattern.match(c["id"])]
        return self.memo[glob]


def load_tables(root=ROOT):
    _, obligations = read_table(os.path.join(root, OBLIGATIONS))
    _, properties = read_table(os.path.join(root, PROPERTIES))
    return obligations, properties


def testable(row):
    return state_kind(row["state"]) != "not testable here"


def figures(obligations, properties):
    """The headline: judged of the testable MUST/SHOULD obligations, judged properties."""
    ms = [r for r in obligations if r["strength"] in ("MUST", "SHOULD") and testable(r)]
    return {"ms_judged": sum(1 for r in ms if r["state"] == "judged"), "ms_testable": len(ms),
            "props_judged": sum(1 for r in properties if r["state"] == "judged"),
            "props": len(properties)}


def headline(obligations, properties):
    f = figures(obligations, properties)
    return (f"Coverage: {f['ms_judged']} of {f['ms_testable']} testable MUST/SHOULD obligations "
            f"judged, {f['props_judged']} of {f['props']} peers' properties judged; "
            "[docs/coverage.md](docs/coverage.md).")


def cell(text):
    return text.replace("|", "\\|")


def globs_cell(value):
    return ", ".join(f"`{g}`" for g in split(value)) or "-"


def counts(rows):
    out = {s: 0 for s in STATES}
    for r in rows:
        out[state_kind(r["state"]) or "not judged"] += 1
    return out


def render(obligations, properties):
    """The text of docs/coverage.md."""
    lines = [
        "# Coverage: what dlconform judges, measured by itself",
        "",
        "<!-- Written by tools/coverage.py from coverage/obligations.tsv and "
        "coverage/properties.tsv; do not edit. -->",
        "",
        "Every normative sentence of the DLPack texts (dlpack.h v1.3, python_spec.rst, the Array",
        "API's `__dlpack__`, `__dlpack_device__` and `from_dlpack`) and every property that the",
        "frameworks' own DLPack tests assert ([peers.md](peers.md)) is a row of",
        "[coverage/obligations.tsv](../coverage/obligations.tsv) or",
        "[coverage/properties.tsv](../coverage/properties.tsv): its rules ([rules.md](rules.md)),",
        "the globs of the committed reports' case ids that judge it, and its state. The",
        "`coverage` test (tools/coverage_test.py) fails when a row claims more than the committed",
        "reports show: `reports/matrix.json`, `reports/gpu.json`, and the main job's planted runs",
        "of the same build, `reports/planted-consumers.json`, `reports/planted-producers.json`,",
        "`reports/planted-xapi.json`, `reports/planted-importers.json`,",
        "`reports/planted-pairs.json`, `reports/planted-importer-devices.json` and",
        "`reports/planted-xapi-consumers.json`.",
        "",
        "- **judged**: a planted party's case under the row's `planted` globs fails in the",
        "  committed reports, under one of the row's rules, and its `real` globs match real",
        "  libraries' cases (not skipped) that go through the same check; one of its cases at",
        "  least is the main job's (matrix.json or a planted-*.json report). A planted case is one",
        "  whose id or party names `planted` (the planted C parties), or a case of a",
        "  planted-*.json report whose party segment (`SCENARIO/ENV/PARTY/...`, or",
        "  `framework/ENV/PRODUCER/PARTY/...` in an import row) is its producer's or consumer's",
        "  `header` and a party of that report's file (`NAME@1` of `python/planted_consumers.py`,",
        "  `python/planted_producers.py` or `python/planted_importers.py`, `xapi-TABLE@1` of",
        "  `python/planted_xapi_expected.py`); it fails when its verdict is fail, crash or timeout",
        "  and the run expected it (expected `broken`, or known through a suppression:",
        "  `suppressions/planted.txt` names each planted Python defect). An INFO note is a pass.",
        "  The planted party must break the row's own sentence or property: a planted bug of the",
        "  same rule in another situation does not count. No case of a planted-*.json report is",
        "  a real one.",
        "- **prepared (GPU)**: the planted and real cases are judged only by the committed GPU run",
        "  (`reports/gpu.json`, `tools/gpu-check`), not by the main job; or, not yet run on a GPU,",
        "  the main job plans them and skips them for want of a CUDA device, a planted one",
        "  expected to fail under one of the row's rules (its reason says so).",
        "- **not judged (why)**: no planted party in the committed reports breaks it (its",
        "  planted stand-ins may be unit tests or fuzz targets only), or no case, no rule or no",
        "  failing outcome exists. Real libraries may still fail such a row's cases: the check",
        "  runs, but no planted party has shown that it fails when it should.",
        "- **not testable here (why)**: editorial, not observable from outside a party, or needing",
        "  hardware these machines lack (ROCm, several GPUs, Metal, TPU).",
        "",
        "The planted C parties are `harness/plan/planted_bugs.tsv`. The planted Python parties run",
        "in the main job with the real libraries' build (`tools/dev main`): the consumers of",
        "`python/planted_consumers.py` (the `asks/*` cases), the producers of",
        "`python/planted_producers.py`, the exchange-API tables of `python/planted_xapi.cpp`",
        "([xapi.md](xapi.md), the `xapi/*` cases), and the importers of",
        "`python/planted_importers.py` (the framework import rows, `framework/*`, that every",
        "real importer gets); a row's reason says",
        "when the report of its planted party holds no case (the test fails such a reason once",
        "the report has cases). The fuzz zoo is proven by fuzz replays, whose runs are not",
        "committed reports. A planted C consumer is judged by the same judge as a",
        "framework's `from_dlpack` (`python/one_judge_test.py`), and a planted C producer by the",
        "same `judge_handoff` as a framework's export (`harness/run/exchange.cpp`,",
        "`python/dlconform_bridge.cpp`), so framework cases count as real cases of those checks;",
        "the planted Python consumers, importers and tables go through the same `asks`,",
        "framework-import and `xapi` case bodies as the real libraries",
        "(`python/dlconform_asks.py`, `python/dlconform_imports.py`,",
        "`python/dlconform_negotiation.py`); the framework pairs (`pairs/*`) are compared by",
        "`pair()` of `python/dlconform_frameworks.py`, which no planted party enters.",
        "",
        "## Summary",
        "",
        "| rows | " + " | ".join(STATES) + " | total |",
        "|---|" + "---|" * (len(STATES) + 1),
    ]

    def summary(label, rows):
        c = counts(rows)
        lines.append(f"| {label} | " + " | ".join(str(c[s]) for s in STATES)
                     + f" | {len(rows)} |")

    sources = []
    for r in obligations:
        if r["source"] not in sources:
            sources.append(r["source"])
    for source in sources:
        summary(f"obligations: {source}", [r for r in obligations if r["source"] == source])
    for strength in ("MUST", "SHOULD", "MAY"):
        summary(f"obligations: {strength}", [r for r in obligations if r["strength"] == strength])
    summary("**obligations: all**", obligations)
    summary("**obligations: testable MUST/SHOULD**",
            [r for r in obligations if r["strength"] in ("MUST", "SHOULD") and testable(r)])
    summary("**peers' properties**", properties)
    f = figures(obligations, properties)
    lines += [
        "",
        f"{f['ms_judged']} of {f['ms_testable']} testable MUST/SHOULD obligations are judged, and "
        f"{f['props_judged']} of the {f['props']} properties of the frameworks' tests.",
        "",
        "## Obligations",
        "",
        "Sources: `dlpack.h v1.3` is dmlc/dlpack `include/dlpack/dlpack.h` at v1.3",
        "([abi/v1.3](../abi/v1.3/dlpack/dlpack.h)); `python_spec.rst 7f393bb` is dmlc/dlpack",
        "`docs/source/python_spec.rst` at 7f393bb; `array_object.py` and `creation_functions.py`",
        "are data-apis/array-api `src/array_api_stubs/_2024_12/`. Every sentence is listed,",
        "the editorial ones and those nothing can observe included (state `not testable here`);",
        "the reason of each row is in the table.",
        "",
        "| id | source | strength | text | rules | state | planted | real |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in obligations:
        lines.append(f"| {r['id']} | {cell(r['source'])} | {r['strength']} | {cell(r['text'])} | "
                     f"{r['rules']} | {cell(r['state'])} | {globs_cell(r['planted'])} | "
                     f"{globs_cell(r['real'])} |")
    lines += [
        "",
        "## Properties the frameworks' own tests assert",
        "",
        "The suites' keys are those of [peers.md](peers.md). Strength is that of the row's",
        "strongest rule.",
        "",
        "| id | strength | property | rules | state | planted | real |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in properties:
        lines.append(f"| {r['id']} | {r['strength']} | {cell(r['text'])} | {r['rules']} | "
                     f"{cell(r['state'])} | {globs_cell(r['planted'])} | "
                     f"{globs_cell(r['real'])} |")
    return "\n".join(lines) + "\n"


def main(argv):
    check = "--check" in argv[1:]
    if [a for a in argv[1:] if a != "--check"]:
        print("usage: coverage.py [--check]")
        return 2
    obligations, properties = load_tables()
    text = render(obligations, properties)
    path = os.path.join(ROOT, DOC)
    if check:
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if old != text:
            print(f"expected {DOC} as tools/coverage.py writes it but found it stale: "
                  "run tools/coverage.py")
            return 1
        print(f"{DOC} is up to date")
        return 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {DOC}: {len(obligations)} obligations, {len(properties)} properties")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
