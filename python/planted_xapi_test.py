#!/usr/bin/env python3
"""check_exchange_api (python/bridge_xapi.cpp, bridge_xapi_calls.cpp) on every planted table of
_dlconform_planted_xapi (python/planted_xapi.cpp). The three controls have every record ok. Each
broken table has a failed record of its rule whose words name what it breaks, and no failed
record of another rule (it breaks that one obligation only). A table the module has that this
test does not know, or the reverse, is a failure too.

  planted_xapi_test.py              the check
  planted_xapi_test.py --self-test  the same with two expectations swapped: passes only if the
                                    check then fails (the test can fail)

Needs _dlconform and _dlconform_planted_xapi on PYTHONPATH (meson sets it)."""
import sys

import _dlconform as bridge
import _dlconform_planted_xapi as planted

from planted_xapi_expected import EXPECTED  # noqa: E402  (table: what it breaks)


def judge(name, records, expected):
    """The failures of one table's records against its expectation: a list of lines."""
    failed = [r for r in records if not r[1]]
    if expected is None:
        return [f"{name}: expected every record ok but found {rule} failing: {words}"
                for rule, _, words in failed]
    rule, words = expected
    problems = []
    if not any(r[0] == rule and words in r[2] for r in failed):
        problems.append(f"{name}: expected a failed {rule} record containing {words!r} but found "
                        f"{[(r[0], r[2]) for r in failed] or 'none failing'}")
    problems += [f"{name}: expected only {rule} to fail but found {r[0]} failing: {r[2]}"
                 for r in failed if r[0] != rule]
    return problems


def main():
    expected = dict(EXPECTED)
    if "--self-test" in sys.argv[1:]:  # wrong on purpose: the check must notice
        expected["null_allocator"], expected["correct"] = expected["correct"], expected[
            "null_allocator"]
    names = planted.names()
    problems = [f"{n}: expected in EXPECTED but found only in the module" for n in names
                if n not in expected]
    problems += [f"{n}: expected in the module but found only in EXPECTED" for n in expected
                 if n not in names]
    for name in names:
        if name not in expected:
            continue
        records = bridge.check_exchange_api(getattr(planted, name)())
        found = judge(name, records, expected[name])
        problems += found
        print(("FAIL " if found else "ok   ") + f"{name}: {len(records)} records, "
              f"{sum(not r[1] for r in records)} failed")
    # xapi_current_work_stream, which the device rows call, finds the same tables.
    for name, want in (("correct", (0, 0)), ("major2_prev_to_major1", (0, 0)),
                       ("wrong_capsule_name", None), ("major2_no_prev", None)):
        got = bridge.xapi_current_work_stream(getattr(planted, name)(), 1, 0)
        if got != want:
            problems.append(f"{name}: expected xapi_current_work_stream(obj, kDLCPU, 0) == {want} "
                            f"but found {got}")
    for p in problems:
        print("FAIL " + p)
    if "--self-test" in sys.argv[1:]:
        print("ok   the swapped expectations fail" if problems else
              "FAIL expected the swapped expectations to fail but found every table as expected")
        return 0 if problems else 1
    print(f"ok   {len(names)} planted tables as expected" if not problems else
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
