#!/usr/bin/env python3
"""A consumer of the C exchange API is judged (xapi-consumer/ENV/B@W/CHECK,
dlconform_xapi_consumers.py): each planted consumer of planted_xapi_consumers.py is caught with
its class and rule on the check it breaks, and on no other; the correct one passes them all.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402

# Each consumer's from_dlpack gets the first three; its call (xapi_imports "call") all four.
CHECKS = ("table-on-type", "table-per-type", "borrowed-dltensor", "call/table-on-type",
          "call/table-per-type", "call/borrowed-dltensor", "call/work-stream")
# planted consumer -> {check: "class RULE"}; every other check passes with no finding.
EXPECTED = {
    "xapi-correct-consumer": {},
    "xapi-instance-lookup": {"table-on-type": "table-not-on-type XAPI-1",
                             "call/table-on-type": "table-not-on-type XAPI-1"},
    "xapi-first-table": {"table-per-type": "xapi-consumer-violation XAPI-5",
                         "call/table-per-type": "xapi-consumer-violation XAPI-5"},
    "xapi-borrows-dltensor": {"borrowed-dltensor": "xapi-consumer-violation XAPI-5",
                              "call/borrowed-dltensor": "xapi-consumer-violation XAPI-5"},
    "xapi-ignores-work-stream": {"call/work-stream": "work-stream-not-queried XAPI-5"},
}


def main():
    seen = planted_matrix.run("planted_xapi_consumers.py", "xapi-consumer/*")
    if seen is None:
        return 1
    failures = 0
    for consumer, findings in EXPECTED.items():
        for check in CHECKS:
            case = seen.get(f"xapi-consumer/module/{consumer}@1/{check}")
            want = findings.get(check, "none")
            got = planted_matrix.verdict(case)
            ok = got == want and case is not None and case["verdict"] != "skip"
            failures += not ok
            detail = case["detail"][:160] if case else ""
            print(f"{'ok  ' if ok else 'FAIL'} {consumer} {check}: expected {want}, found {got} "
                  f"{detail}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
