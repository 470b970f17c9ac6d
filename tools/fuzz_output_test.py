#!/usr/bin/env python3
"""tools/fuzz_output.py names the finding of a fuzz target's output, not a line that only
announces something, and else the line that says why the target did not start. The lines are the
harness's and ASan's, as an ASan build prints them.

  fuzz_output_test.py"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz_output import finding, start_failure  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_output.py")
JUDGED = ("dlconform fuzz: out-of-bounds [LAY-1]: read past the end of a 16-byte shape buffer "
          "(at offset 16) in consume() of planted-oob-shape@v1.3")
ASAN = ("==1287==ERROR: AddressSanitizer: use-after-poison on address 0x7f1df7a03000 at pc "
        "0x7f1df7e48ec6 bp 0x7ffc18282330 sp 0x7ffc18282328")
ANNOUNCEMENTS = [
    "dlconform fuzz: consumer planted-oob-shape@v1.3: reads one shape entry past ndim",
    "dlconform fuzz: known LAY-8 of torch-fromDLPack@v1.3, going on: aborts the process on "
    "negative strides",
    "dlconform fuzz: input: versioned 1.3 flags=0 device=1:0 dtype=2:32:1 ndim=2 shape=[8,8] "
    "strides=[0,1] byte_offset=0 misalign=0",
    "dlconform fuzz: reproduce: DLCONFORM_CONSUMER=planted-oob-shape-v1_3 import_versioned_fuzzer "
    "broadcast_zero_stride.bin",
    "dlconform fuzz: cannot start: DLCONFORM_GUARDS: expected pages or auto but found x",
    "dlconform fuzz: inputs with a known bug of torch-fromDLPack@v1.3: 3 of 41; 3 run in a child "
    "(2 stopped there by the known bug), 0 left out",
]

failures = []


def expect(what, found, expected):
    if found != expected:
        failures.append(f"{what}: expected {expected!r} but found {found!r}")


def cli(path):
    return subprocess.run([sys.executable, SCRIPT, path], capture_output=True, text=True)


# The judge's words follow ASan's report of a shadow guard, and win over it.
expect("after a sanitizer's report", finding("\n".join(
    ["1..35", ASAN, "SUMMARY: AddressSanitizer: use-after-poison mock_consumer.cpp:249 in consume",
     JUDGED] + ANNOUNCEMENTS[2:4])), JUDGED)
# A known bug the fuzzer went on past, and the party under test, come before the finding.
expect("after the announcements", finding("\n".join(ANNOUNCEMENTS[:2] + [JUDGED])), JUDGED)
for line in ANNOUNCEMENTS:
    expect("an announcement alone", finding(line + "\n" + ASAN), ASAN)
expect("no finding", finding("\n".join(ANNOUNCEMENTS + ["INFO: Seed: 1", "Done 35 runs"])), None)
# Why a target did not start: the harness's line, or the replay main's; not an announcement.
STARTED = "\n".join(ANNOUNCEMENTS[:4] + ["INFO: Seed: 1", "Done 35 runs"])
expect("a target that started", start_failure(STARTED), None)
expect("the harness's start failure", start_failure(STARTED + "\n" + ANNOUNCEMENTS[4]),
       ANNOUNCEMENTS[4])
REPLAY = "replay: malformed corpus file x.bin: expected at most 65536 bytes but found 70000"
expect("the replay main's start failure", start_failure(REPLAY), REPLAY)

with tempfile.TemporaryDirectory() as work:
    log = os.path.join(work, "log")
    with open(log, "w") as f:
        f.write("\n".join(ANNOUNCEMENTS[:1] + [JUDGED]) + "\n")
    run = cli(log)
    expect("the command's output", (run.returncode, run.stdout), (0, JUDGED + "\n"))
    with open(log, "w") as f:
        f.write(ANNOUNCEMENTS[0] + "\n")
    run = cli(log)
    expect("the command on a log without a finding", (run.returncode, run.stdout), (1, ""))
    with open(log, "w") as f:
        f.write("\n".join(ANNOUNCEMENTS[:1] + ANNOUNCEMENTS[4:]) + "\n")
    run = cli(log)
    expect("the command on a target that did not start", (run.returncode, run.stdout),
           (0, ANNOUNCEMENTS[4] + "\n"))
    run = cli(os.path.join(work, "missing"))
    expect("the command on a missing log", (run.returncode, len(run.stderr.splitlines())), (2, 1))

for failure in failures:
    print(failure)
print(f"{'FAIL' if failures else 'ok'}: fuzz_output.py, {len(failures)} failures")
sys.exit(1 if failures else 0)
