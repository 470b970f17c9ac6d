#!/usr/bin/env python3
"""tools/fuzz-campaign's readers: the known-bug counts the fuzz targets append at exit
($DLCONFORM_FUZZ_STATS), summed over processes; and the previous campaign on an importer in the
report, in the table layout before and after the single-process column. Its writer: the end of
a report section, whose tables must each end before the next paragraph.

  fuzz_campaign_test.py"""
import importlib.machinery
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
loader = importlib.machinery.SourceFileLoader("fuzz_campaign", os.path.join(HERE, "fuzz-campaign"))
spec = importlib.util.spec_from_loader("fuzz_campaign", loader)
campaign = importlib.util.module_from_spec(spec)
loader.exec_module(campaign)

OLD_SECTION = """
## tvm-ffi@v1.3 (Apache TVM FFI's C API)

`tools/fuzz-campaign tvm-ffi 30` on 2 cores: import_versioned_fuzzer.

| target | CPU-minutes | executions | exec/s | coverage (edges) | features | corpus | crash files |
|---|--:|--:|--:|--:|--:|--:|--:|
| import_versioned_fuzzer | 7.5 | 8631 | 38 | 3447 | 3782 | 259 | 31 |

| finding | rule | where | target | crash files | reproducer | judgement |
|---|---|---|---|--:|---|---|
| accepted-invalid: expected a refusal | LAY-1 | - | differential_fuzzer | 280 | x.bin | real |
| sanitizer-report: a sanitizer stopped it | - | - | import_versioned_fuzzer | 18 | y.bin | real |
"""
NEW_SECTION = """
## tvm-ffi@v1.3 (Apache TVM FFI's C API)

| target | CPU-minutes | executions | exec/s | exec/s, one process | ratio | processes started | coverage (edges) | features | corpus | crash files | known-bug inputs: in a child (stopped) | left out |
|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|
| import_versioned_fuzzer | 3.0 | 5000000 | 27000 | 30000 | 0.90 | 2 | 900 | 2500 | 300 | 0 | 100 (40) | 1000 |

Against the previous campaign on tvm-ffi@v1.3 in this report:

| target | executions, then | now | coverage (edges), then | then, replayed now | now |
|---|--:|--:|--:|--:|--:|
| import_versioned_fuzzer | 8631 | 5000000 | 3447 | not kept | 900 |

No finding.
"""
failures = 0


def check(what, got, want):
    global failures
    if got != want:
        failures += 1
        print(f"FAIL {what}: expected {want!r} but found {got!r}")


with tempfile.TemporaryDirectory() as work:
    stats = os.path.join(work, "stats.txt")
    with open(stats, "w") as out:
        out.write("inputs=10 children=2 stopped=1 left_out=3 known=LAY-8:4,LAY-1:1,\n")
        out.write("inputs=5 children=0 stopped=0 left_out=2 known=LAY-8:2,\n")
    totals, seen = campaign.known_counts(stats)
    check("summed counts", dict(totals), {"inputs": 15, "children": 2, "stopped": 1, "left_out": 5})
    check("known rules met", dict(seen), {"LAY-8": 6, "LAY-1": 1})
    check("no file", campaign.known_counts(os.path.join(work, "none"))[0].total(), 0)

    report = os.path.join(work, "report.md")
    with open(report, "w") as out:
        out.write("# Fuzzing campaigns\n" + OLD_SECTION)
    before = campaign.previous_campaign(report, "tvm-ffi@v1.3")
    check("old layout: executions", before["targets"]["import_versioned_fuzzer"]["executions"], "8631")
    check("old layout: edges", before["targets"]["import_versioned_fuzzer"]["coverage (edges)"],
          "3447")
    check("old layout: findings", before["findings"], [("accepted-invalid", "LAY-1"),
                                                       ("sanitizer-report", "")])
    check("another importer", campaign.previous_campaign(report, "nanobind-ndarray@v1.1"), None)
    with open(report, "a") as out:
        out.write(NEW_SECTION)
    after = campaign.previous_campaign(report, "tvm-ffi@v1.3")  # the last section wins
    check("new layout: executions", after["targets"]["import_versioned_fuzzer"]["executions"],
          "5000000")
    check("new layout: findings", after["findings"], [])
    check("new layout: the then/now table is not this run's",
          after["targets"]["import_versioned_fuzzer"]["coverage (edges)"], "900")


def tables_end_in_a_blank_line(lines):
    """The lines that Markdown would read as rows of the table above them: a paragraph line
    right after a row, or a second table's header with no blank line between."""
    text = "\n".join(lines).split("\n")
    merged = [nxt for row, nxt in zip(text, text[1:]) if row.startswith("|")
              and nxt.strip() and not nxt.startswith("|")]
    return merged + [header for above, header, rule in zip(text, text[1:], text[2:])
                     if above.startswith("|") and rule.startswith("|---")]


# The section's tail: the then/now table, then "No finding." or the findings table.
RESULTS = {"import_versioned_fuzzer": {"runs": 5000000, "cov": 900}}
BEFORE_CLEAN = {"targets": {"import_versioned_fuzzer": {"executions": "8631",
                                                         "coverage (edges)": "3447"}},
                "findings": []}
FINDINGS = {("accepted-invalid", "LAY-1", "", ""): {
    "words": "expected a refusal", "target": "import_versioned_fuzzer", "count": 3,
    "file": "corpus/x.bin", "judgement": "real"}}
for what, before, findings in (("no finding then or now", BEFORE_CLEAN, {}),
                               ("a finding now, none then", BEFORE_CLEAN, FINDINGS),
                               ("a finding then and now", dict(BEFORE_CLEAN, findings=[
                                   ("accepted-invalid", "LAY-1")]), FINDINGS),
                               ("no previous campaign", None, FINDINGS)):
    tail = campaign.report_tail("tvm-ffi@v1.3", before, RESULTS, {}, findings, {}, [])
    check(f"report tail, {what}: lines read as table rows", tables_end_in_a_blank_line(tail), [])
    check(f"report tail, {what}: the findings or none",
          any("No finding." in line for line in tail), not findings)
    if before:
        check(f"report tail, {what}: the then/now row",
              "| import_versioned_fuzzer | 8631 | 5000000 | 3447 | not kept | 900 |" in tail, True)

# How a section names the command that ran it: what a reader types to run it again, the home
# folder written as ~ (a committed report holds no absolute home path).
import types  # noqa: E402
home_python = os.path.join(os.path.expanduser("~"), "venvs", "jax", "bin", "python")
os.environ["DLCONFORM_PYTHON"] = home_python
for what, args, importer, want in (
        ("a plugin", dict(module=None, adapter=None, importer="", minutes=10), "tvm-ffi",
         "tvm-ffi 10"),
        ("a module", dict(module="jax", adapter=None, importer="", minutes=30), "python-jax",
         "--module jax 30 --python ~/venvs/jax/bin/python"),
        ("a capsule API", dict(module="tensorflow", adapter=None,
                               importer="experimental.dlpack.from_dlpack", minutes=2.5),
         "python-tensorflow", "--module tensorflow 2.5 --python ~/venvs/jax/bin/python "
         "--importer experimental.dlpack.from_dlpack")):
    check(f"command words, {what}",
          campaign.command_words(types.SimpleNamespace(**args), importer), want)

# Which known entries name a finding: rule and class, as in the matrix; an old-form entry (no
# classes) names every class of its rule.
KNOWN = [("LAY-6", ["wild-pointer"], "reads a NULL shape"),
         ("LAY-4", ["accepted-invalid", "sanitizer-report"], "accepts NULL data"),
         ("LAY-10", [], "old form")]
for what, cls, rule, want in (
        ("rule and class", "wild-pointer", "LAY-6", ["reads a NULL shape"]),
        ("another class of the rule", "accepted-invalid", "LAY-6", []),
        ("the second class of an entry", "sanitizer-report", "LAY-4", ["accepts NULL data"]),
        ("an old-form entry", "out-of-bounds", "LAY-10", ["old form"]),
        ("no entry of the rule", "wild-pointer", "LAY-5", [])):
    check(f"known reasons, {what}", campaign.known_reasons(KNOWN, cls, rule), want)

print(f"ok: fuzz-campaign readers, {failures} failures" if not failures else
      f"{failures} failures")
sys.exit(1 if failures else 0)
