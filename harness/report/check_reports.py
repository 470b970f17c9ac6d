#!/usr/bin/env python3
"""check_reports.py REPORT_SAMPLE: the sample run in every format, read back by real parsers.

JSON through json, JUnit through xml.etree, the HTML's data block through json; every count is
recomputed from the cases and compared with what the report claims and what the sample says it
planted (sample.expect.json). Runs the sample twice: with the planted surprises and --clean.
"""
import collections
import json
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

FAILED = []


def check(condition, message):
    if not condition:
        FAILED.append(message)
        print("FAIL: " + message)


VERDICTS = ("pass", "fail", "crash", "timeout", "skip")


def matches_expectation(case):
    """CaseResult::as_expected(), restated from result.h."""
    failed = case["verdict"] in ("fail", "crash", "timeout")
    return {
        "pass": case["verdict"] == "pass",
        "skip": case["verdict"] == "skip",
        "broken": failed and case["expected_class"] in ("", case["finding_class"]),
    }[case["expected"]]


def outcome(case):
    """Where the report counts one case: a suppressed case is known, never a failure."""
    if case["known"]:
        return "known"
    return "as_expected" if matches_expectation(case) else "unexpected"


def check_run(folder, label):
    expect = json.load(open(folder + "/sample.expect.json"))

    # JSON: valid, counts consistent with its own cases and with the sample.
    report = json.load(open(folder + "/sample.json", encoding="utf-8"))
    cases = report["cases"]
    tally = collections.Counter(outcome(c) for c in cases)
    summary = report["summary"]
    check(summary["cases"] == len(cases) == expect["cases"], f"{label}: JSON case count")
    check(summary["unexpected"] == tally["unexpected"] == expect["unexpected"],
          f"{label}: JSON unexpected {summary['unexpected']} vs {tally['unexpected']}")
    check(summary["known"] == tally["known"] == expect["known"], f"{label}: JSON known")
    check(summary["as_expected"] == tally["as_expected"], f"{label}: JSON as_expected")
    verdicts = collections.Counter(c["verdict"] for c in cases)
    check(summary["by_verdict"] == {v: verdicts[v] for v in VERDICTS}, f"{label}: by_verdict")
    for c in cases:
        check(c["as_expected"] == matches_expectation(c), f"{label}: as_expected of {c['id']}")
    check(len({c["id"] for c in cases}) == len(cases), f"{label}: case ids unique")

    # JUnit: well-formed, one failure per unexpected case, known cases skipped with "known:".
    root = ET.parse(folder + "/sample.junit.xml").getroot()
    check(root.tag == "testsuites", f"{label}: JUnit root")
    testcases = root.findall("./testsuite/testcase")
    check(len(testcases) == len(cases), f"{label}: JUnit testcase count")
    check(len(root.findall(".//failure")) == expect["unexpected"], f"{label}: JUnit failures")
    check(int(root.get("failures")) == expect["unexpected"], f"{label}: JUnit failures attribute")
    known = [s for s in root.findall(".//skipped") if s.get("message", "").startswith("known: ")]
    check(len(known) == expect["known"], f"{label}: JUnit known skips")
    for suite in root.findall("testsuite"):
        check(int(suite.get("tests")) == len(suite.findall("testcase")),
              f"{label}: JUnit tests attribute of {suite.get('name')}")
        check(int(suite.get("failures")) == len(suite.findall(".//failure")),
              f"{label}: JUnit failures attribute of {suite.get('name')}")

    # Markdown: the headline and one row per unexpected case.
    md = open(folder + "/sample.md", encoding="utf-8").read()
    if expect["unexpected"]:
        check(f"❌ **{expect['unexpected']} unexpected results.**" in md, f"{label}: MD headline")
    else:
        check(f"✅ **All {expect['cases'] - expect['known']} cases as expected.**" in md,
              f"{label}: MD headline")
    for c in cases:
        if outcome(c) == "unexpected":
            check(f"\n| {c['id']} | {c['verdict']} | {c['expected']} |" in md,
                  f"{label}: MD lists {c['id']}")
    check("## Unexpected results" in md, f"{label}: MD unexpected section")

    # HTML: its data block is JSON and holds every case.
    html = open(folder + "/sample.html", encoding="utf-8").read()
    block = re.search(r'<script type="application/json" id="dlc-data">(.*?)</script>', html, re.S)
    check(block is not None, f"{label}: HTML data block")
    if block:
        data = json.loads(block.group(1))
        check([c[0] for c in data["cases"]] == [c["id"] for c in cases], f"{label}: HTML cases")
        check(all(0 <= c[8] < len(data["cells"]) for c in data["cases"]),
              f"{label}: every HTML case sits in a cell")


def main():
    sample = sys.argv[1]
    for args, label in (([], "sample"), (["--clean"], "clean sample")):
        with tempfile.TemporaryDirectory() as folder:
            subprocess.run([sample, folder] + args, check=True)
            check_run(folder, label)
    if FAILED:
        print(f"{len(FAILED)} checks failed")
        return 1
    print("ok: JSON, JUnit, Markdown and the HTML data block agree on every count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
