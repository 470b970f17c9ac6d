"""One `dlconform matrix --no-builtin` run on a planted adapter of this folder, for the tests
that check each planted party is caught with its class and rule (consumer_asks_test.py,
producer_exports_test.py, xapi_matrix_test.py, importer_rows_test.py, importer_devices_test.py),
and checked(), the line each of them prints per case.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(adapter, case_filter=None, timeout=300):
    """{case id: case} of the report of the matrix run on python/ADAPTER, or None after printing
    why no report came."""
    report = os.path.join(tempfile.mkdtemp(prefix="dlconform-planted-"), "report.json")
    command = [os.environ["DLCONFORM"], "matrix", "--no-builtin", "--quiet",
               "--adapter", os.path.join(HERE, adapter),
               "--python", os.environ["BRIDGE_PYTHON"], "--json", report]
    if case_filter:
        command += ["--filter", case_filter]
    p = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    if not os.path.exists(report):
        print(f"FAIL: dlconform exited {p.returncode} without a report: {p.stderr[-400:]}")
        return None
    with open(report, encoding="utf-8") as f:
        return {c["id"]: c for c in json.load(f)["cases"]}


def verdict(case):
    """'CLASS RULE' of a reported case, 'none' without a finding, 'missing' when absent."""
    if case is None:
        return "missing"
    return f"{case['finding_class']} {case['rule_id']}" if case["finding_class"] else "none"


def checked(label, want, case):
    """Prints whether `case` has the verdict `want` ('CLASS RULE' or 'none'), named by `label`;
    1 when it has not, else 0 (the tests sum them)."""
    got = verdict(case)
    print(f"{'ok  ' if got == want else 'FAIL'} {label}: expected {want}, found {got}")
    return int(got != want)
