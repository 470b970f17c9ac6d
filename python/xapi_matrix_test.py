#!/usr/bin/env python3
"""The planted exchange-API tables through the matrix: `dlconform matrix --adapter
python/planted_xapi_adapter.py --filter 'xapi/*'` runs the xapi cases of every planted table, the
case body torch's and Paddle's tables go through. Each broken table's case of the rule it breaks
fails with xapi-violation of that rule, its other cases pass, and the controls pass every case
(planted_xapi_expected.py says which table breaks what); a read-only view's tensor says
READ_ONLY but for from_py_object_drops_read_only's. A table without its cases in the report is a
failure too. The two CUDA stand-ins' device row (current-work-stream) fails for
work_stream_not_current's table and passes for the correct one."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402
from planted_xapi_expected import EXPECTED, PARTY, WORK_STREAM_ROWS  # noqa: E402

CHECKS = ("XAPI-1", "XAPI-2", "XAPI-3", "XAPI-4", "XAPI-5")
# from_py_object handed a planted array DLPack cannot describe: BufferError passes; these tables
# answer otherwise, or have no from_py_object to hand it to (skip).
UNEXPRESSIBLE = "XAPI-5/unexpressible/ragged"
UNEXPRESSIBLE_EXPECTED = {
    "unexpressible_value_error": "wrong-refusal-exception XAPI-5",
    "from_py_object_error_unset": "xapi-violation XAPI-5",
    "throws_in_from_py_object": "xapi-violation XAPI-3",
    **{table: "skip" for table in ("attribute_on_instance", "wrong_capsule_name", "major2_no_prev",
                                   "null_from_py_object")},
    # a device party's: the unexpressible rows are planned for host arrays only
    "work_stream_not_current": "missing",
}

# from_py_object handed a read-only view (planted.read_only, as torch's ReadOnlyTensorWrapper):
# READ_ONLY set, or a refusal, passes.
READ_ONLY = "read-only"
READ_ONLY_EXPECTED = {
    "from_py_object_drops_read_only": "producer-violation FLAG-1b",
    "from_py_object_frees_data": "xapi-violation XAPI-5",  # its tensor reads freed data
    "work_stream_not_current": "missing",  # host arrays only, as above
}


def main():
    seen = planted_matrix.run("planted_xapi_adapter.py", "xapi/*", timeout=600)
    if seen is None:
        return 1
    failures = 0
    for table, broken in EXPECTED.items():
        for check in CHECKS + (UNEXPRESSIBLE, READ_ONLY):
            found = seen.get(f"xapi/module/{PARTY.get(table, f'xapi-{table}@1')}/{check}")
            want = f"xapi-violation {check}" if broken and broken[0] == check else "none"
            if check == UNEXPRESSIBLE:
                want = UNEXPRESSIBLE_EXPECTED.get(table, "none")
            if check == READ_ONLY:
                want = READ_ONLY_EXPECTED.get(table, "none")
            got = ("skip" if found is not None and found["verdict"] == "skip" else
                   planted_matrix.verdict(found))
            ok = got == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {table} {check}: expected {want}, found {got}"
                  + ("" if ok or found is None else f" ({found.get('detail', '')[:160]})"))
    # The CUDA stand-ins' device row: current_work_stream(kDLCUDA, 0) against their current
    # stream, the legacy default (OB-082).
    for party, want in WORK_STREAM_ROWS.items():
        failures += planted_matrix.checked(f"{party} current-work-stream", want,
                                           seen.get(f"xapi/module/{party}/current-work-stream"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
