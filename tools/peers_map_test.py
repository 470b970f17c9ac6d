#!/usr/bin/env python3
"""docs/peers.md against the committed reports: every backticked glob of its map's "cases" column
matches at least one case id of reports/matrix.json or reports/gpu.json, so that a row that says
where a property is judged points at cases that exist. Before that it checks itself: a glob that
matches nothing must be reported.

  peers_map_test.py"""
import fnmatch
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def case_ids():
    ids = [c["id"] for c in json.load(open(os.path.join(ROOT, "reports", "matrix.json")))["cases"]]
    gpu = json.load(open(os.path.join(ROOT, "reports", "gpu.json")))
    ids += [c["id"] for c in gpu.get("cuda_cases", []) + gpu.get("framework_cases", [])]
    return ids


def rows(text):
    """(number, cases cell) of each row of the map table."""
    out = []
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[:2] == ["#", "property"]:
            header = cells
            continue
        if header and cells[0].isdigit() and len(cells) == len(header):
            out.append((int(cells[0]), cells[header.index("cases")]))
    return out


def unmatched(rows_, ids):
    failures = []
    for number, cell in rows_:
        for glob in re.findall(r"`([^`]+)`", cell):
            if not any(fnmatch.fnmatchcase(i, glob) for i in ids):
                failures.append(f"row {number}: expected `{glob}` to match committed cases but "
                                "found none")
    return failures


def main():
    ids = case_ids()
    text = open(os.path.join(ROOT, "docs", "peers.md"), encoding="utf-8").read()
    found = rows(text)
    failures = []
    if len(found) < 50:
        failures.append(f"expected the map's rows in docs/peers.md but found {len(found)}")
    if not unmatched([(0, "`no/such/case/*`")], ids):
        failures.append("self-check: a glob that matches nothing was not reported")
    failures += unmatched(found, ids)
    for f in failures:
        print("FAIL " + f)
    globs = sum(len(re.findall(r"`([^`]+)`", cell)) for _, cell in found)
    print(f"{len(found)} rows, {globs} globs: " + (f"{len(failures)} failed" if failures else
                                                    "every glob matches committed cases"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
