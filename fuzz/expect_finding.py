#!/usr/bin/env python3
"""Runs a fuzz target's replay and passes only if it stops on the expected finding.

  expect_finding.py [--without "NOT"] "WORDS" TARGET ARGS...
  expect_finding.py --passes "WORDS" TARGET ARGS...

With --without the replay must also not print NOT (a valid input's crash is no hardening finding).

With --passes the replay must instead exit 0 and print WORDS (a regular expression): a known bug
it went past, and what it did with the inputs that have it.

WORDS may list alternatives, "A|B": what a sanitizer reports in one compiler's build (clang's
UBSan flags NULL + offset) can surface as the fault it leads to in another's (gcc's).

A planted bug must be caught for the right reason: a replay that exits 0, or that fails without
printing WORDS (a plugin that did not load, say), fails this test.

$DLCONFORM_REPLAY_TRIES (default 1): how many times a replay that passes is run again before
the test fails, for a library whose crash depends on where things land in memory (JAX reads
garbage extents for a 1024-dimension shape and aborts on some runs only)."""
import os
import re
import subprocess
import sys


def passes(words, command):
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         errors="replace", timeout=300)
    said = [line for line in run.stdout.splitlines() if line.startswith("dlconform fuzz:")]
    if run.returncode != 0:
        print(run.stdout[-4000:])
        print(f"expected the replay to pass but found exit {run.returncode}")
        return 1
    if not any(re.search(words, line) for line in said):
        print(run.stdout[-4000:])
        print(f"expected '{words}' but found: " + (" / ".join(said) or "nothing said"))
        return 1
    print("\n".join(said[:6]))
    print(f"passed as expected, saying: {words}")
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--passes" and len(sys.argv) >= 4:
        return passes(sys.argv[2], sys.argv[3:])
    without = None
    if len(sys.argv) >= 3 and sys.argv[1] == "--without":
        without = sys.argv[2]
        del sys.argv[1:3]
    if len(sys.argv) < 3:
        sys.exit("usage: expect_finding.py [--passes | --without NOT] WORDS TARGET [ARGS...]")
    words, command = sys.argv[1], sys.argv[2:]
    tries = max(1, int(os.environ.get("DLCONFORM_REPLAY_TRIES", "1")))
    for attempt in range(1, tries + 1):
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", timeout=300)
        if run.returncode != 0:
            break
    findings = [line for line in run.stdout.splitlines() if line.startswith("dlconform fuzz:")]
    if run.returncode == 0:
        print(f"expected the finding '{words}' but the replay passed ({tries} runs)")
        return 1
    if attempt > 1:
        print(f"(the finding showed on run {attempt} of at most {tries})")
    alternatives = words.split("|")
    if not any(w in line for line in findings for w in alternatives) and \
            not any(w in run.stdout for w in alternatives):
        print(run.stdout[-4000:])
        print(f"expected the finding '{words}' but found exit {run.returncode} and: "
              + (findings[0] if findings else "no dlconform finding"))
        return 1
    if without is not None and without in run.stdout:
        print(run.stdout[-4000:])
        print(f"expected the finding '{words}' without '{without}' but found it said")
        return 1
    print("\n".join(findings[:4]))
    print(f"caught as expected: {words}" + (f", and not {without}" if without else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
