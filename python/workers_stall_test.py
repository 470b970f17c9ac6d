#!/usr/bin/env python3
"""The driver's worker pool (dlconform_workers.run_all) when its own output stalls: dlconform
reads an environment's records only once the mocks' cases are done, so emit() may block for
longer than the case timeout. A case that finished meanwhile is its own verdict, not a timeout;
a case that really hangs is still a timeout. Run with a 1 s timeout: the first emit blocks 2.5 s
while the other worker finishes its case in 0.5 s.

Needs the _dlconform bridge and python/ on PYTHONPATH (meson sets both)."""
import sys
import time

from dlconform_workers import Case, run_all


def quick():
    time.sleep(0.1)
    return ("pass", "", "", "", "quick")


def slower():
    time.sleep(0.5)  # ends while the first record's emit is blocked
    return ("pass", "", "", "", "slower")


def hangs():
    time.sleep(30)
    return ("pass", "", "", "", "never")


def main():
    cases = [Case(f"stall/{name}", "stall", "p", "v", "c", "v", name, body, "LIFE-3")
             for name, body in (("first", quick), ("second", slower), ("third", quick),
                                ("hangs", hangs))]
    seen = {}
    stalled = []

    def emit(case, result):
        seen[case.fields[0]] = result[0]
        if not stalled:  # the first record: the reader is busy elsewhere
            stalled.append(True)
            time.sleep(2.5)

    run_all(cases, 1.0, 2, emit, lambda done, total: None)
    want = {"stall/first": "pass", "stall/second": "pass", "stall/third": "pass",
            "stall/hangs": "timeout"}
    failures = [f"{k}: expected {v} but found {seen.get(k)}" for k, v in want.items()
                if seen.get(k) != v]
    for f in failures:
        print("FAIL " + f)
    print("ok   a stalled reader gives no timeout; a hang still is one" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
