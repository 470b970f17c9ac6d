#!/usr/bin/env python3
"""A producer's exports out of the usual order, an array DLPack cannot express, stream asks on
the CPU, a malformed max_version, copy= by memory and a narrow float's export are judged: each planted producer of planted_producers.py is caught with its class and
rule on the case it gets wrong, and on no other; the correct producer has no finding at all.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402
# planted producer -> {case: "class RULE"}; every other case of CASES passes with no finding.
EXPECTED = {
    "correct-producer": {},
    # Both hand out one piece of memory for every export, so copy=True gets no copy either.
    "caches-one-struct": {"dlconform-consumer@v1.3/exported-3-times": "crash LIFE-3",
                          "copy=True": "producer-violation STRM-4"},
    "frees-with-source": {"dlconform-consumer@v1.3/source-deleted": "crash LIFE-6",
                          "copy=True": "producer-violation STRM-4"},
    "stream-on-cpu": {"stream=1": "stream-accepted-on-cpu STRM-1",
                      "stream=-1": "stream-accepted-on-cpu STRM-1"},
    "ignores-byte-order": {"dlconform-consumer@v1.3/unexpressible/big-endian":
                           "producer-violation LAY-4"},
    "max-version-unchecked": {"max_version=bare-int": "crash VER-4"},
    "any-max-version": {"max_version=bare-int": "malformed-keyword-accepted VER-4"},
    "unpacked-float4": {"dlconform-consumer@v1.3/narrow/float4_e2m1fn": "producer-violation LAY-4"},
    "exports-none": {"to_dlpack/bad-input": "producer-violation VER-4"},
    "ignores-copy": {"copy=True": "producer-violation STRM-4"},
}
CASES = ("dlconform-consumer@v1.3/f32_2x3", "dlconform-consumer@v1.3/exported-3-times",
         "dlconform-consumer@v1.3/source-deleted", "stream=None", "stream=1", "stream=-1",
         "max_version=1.3", "max_version=bare-int", "copy=True", "copy=False",
         "dlconform-consumer@v1.3/unexpressible/big-endian",
         "dlconform-consumer@v1.3/narrow/float4_e2m1fn")


def case_id(producer, case):
    scenario = "framework" if case.startswith("dlconform-consumer") else "negotiation"
    return f"{scenario}/module/{producer}@1/{case}"


def main():
    seen = planted_matrix.run("planted_producers.py")
    if seen is None:
        return 1
    failures = 0
    for producer, findings in EXPECTED.items():
        for case in CASES + tuple(c for c in findings if c not in CASES):  # and its own
            found = seen.get(case_id(producer, case))
            want = findings.get(case, "none")
            got = planted_matrix.verdict(found)
            ok = got == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {producer} {case}: expected {want}, found {got}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
