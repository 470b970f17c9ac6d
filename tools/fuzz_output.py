#!/usr/bin/env python3
"""What a fuzz target printed: which of the harness's lines only announce something, the first
line of the finding, and the line that says why the target did not start. The one reading of a
target's output for fuzz-file-crash, fuzz-campaign, fuzz-soak and fuzz-bench.

  tools/fuzz_output.py LOG    prints the first line of LOG's finding, else the line that says why
                              the target did not start; exit 1 if LOG has neither."""
import re
import sys

# What follows "dlconform fuzz: " on a line that is not a finding: the party under test, a known
# bug the fuzzer goes on past, the input and the command that replays it, a failure to start.
ANNOUNCED = (r"cannot start|consumer |producer |known |inputs with a known bug |input: |input rules: "
             r"|reproduce: |mutate: |hardening: ")
ANNOUNCEMENT = re.compile(r"dlconform fuzz: (?:" + ANNOUNCED + ")")
CRASH_MARKERS = re.compile(r"ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer"
                           r"|libFuzzer)|runtime error:|SUMMARY: |deadly signal")


def finding(output):
    """The first line of the finding: the harness's words (which follow a sanitizer's report of a
    shadow guard), else the sanitizer's or libFuzzer's; None if there is none."""
    lines = output.splitlines()
    for line in lines:
        if line.startswith("dlconform fuzz:") and not ANNOUNCEMENT.match(line):
            return line.strip()
    for line in lines:
        if CRASH_MARKERS.search(line):
            return line.strip()
    return None


def start_failure(output):
    """The line a target prints when it cannot start (exit status 2): the harness's, or the replay
    main's; None if there is none."""
    for line in output.splitlines():
        if line.startswith(("dlconform fuzz: cannot start", "replay: ")):
            return line
    return None


def main():
    if len(sys.argv) != 2:
        print("usage: fuzz_output.py LOG", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
            output = log.read()
            words = finding(output) or start_failure(output)
    except OSError as e:
        print(f"fuzz_output.py: cannot read {sys.argv[1]}: {e.strerror}", file=sys.stderr)
        return 2
    if words is None:
        return 1
    print(words)
    return 0


if __name__ == "__main__":
    sys.exit(main())
