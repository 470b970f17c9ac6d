#!/usr/bin/env python3
"""tools/cuda-sanitize judged with a stand-in compute-sanitizer and a stand-in dlconform, so that
it runs on any machine: it passes a clean run whose planted bugs the sanitizer names, and it
fails, saying why, when the run it wraps fails (unexpected cases, a non-zero exit) although the
sanitizer itself reports nothing on the conformant paths.

  cuda_sanitize_test.py"""
import os
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs the command after the sanitizer's options, as compute-sanitizer does, and says what it
# says: the planted bugs' errors (in the planted run), and that the target failed when it did.
SANITIZER = r'''#!/usr/bin/env python3
import os, subprocess, sys
args = sys.argv[1:]
target = args[args.index("matrix") - 1:]
print("========= COMPUTE-SANITIZER", flush=True)
p = subprocess.run(target)
pattern = target[target.index("--filter") + 1]
if "planted" in pattern:
    for plugin, words in (("planted-cuda-wrong-free-producer", "Program hit cudaErrorInvalidValue on cudaFree"),
                          ("planted-cuda-oob-read", "Invalid __global__ read of size 4 bytes")):
        print(f"========= {words}\n=========     Host Frame: dlc-{plugin}-v1_3.so\n=========")
if p.returncode != 0:
    print("========= Target application returned an error")
print("========= ERROR SUMMARY: 0 errors")
sys.exit(p.returncode)
'''

# The matrix: its JSON report with DLC_FAKE_UNEXPECTED unexpected cases, and exit 8 with them. In
# the planted run, DLC_FAKE_STOPPED names a planted consumer whose case ends unexpected (as
# memcheck's stopped kernel ends it).
DLCONFORM = r'''#!/usr/bin/env python3
import json, os, sys
unexpected = int(os.environ.get("DLC_FAKE_UNEXPECTED", "0"))
path = sys.argv[sys.argv.index("--json") + 1]
def case(i, consumer):
    return {"id": f"cuda/native/x/{consumer}/{i}", "as_expected": False, "known": False,
            "producer": {"name": "cuda-producer"}, "consumer": {"name": consumer}}
cases = [case(i, "cuda-consumer") for i in range(unexpected)]
stopped = os.environ.get("DLC_FAKE_STOPPED")
if stopped and "planted" in sys.argv[sys.argv.index("--filter") + 1]:
    cases.append(case(0, stopped))
with open(path, "w") as f:
    json.dump({"summary": {"cases": 9, "unexpected": len(cases)}, "cases": cases}, f)
for c in cases:
    print(f"UNEXPECTED {c['id']}: fail (expected pass) plugin-error")
sys.exit(8 if cases else 0)
'''


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="dlconform-cuda-sanitize-") as work:
        os.makedirs(os.path.join(work, "bin"))
        os.makedirs(os.path.join(work, "build", "cli"))
        executable(os.path.join(work, "bin", "compute-sanitizer"), SANITIZER)
        executable(os.path.join(work, "build", "cli", "dlconform"), DLCONFORM)
        # (unexpected cases, a planted consumer's case ended otherwise, exit, words): the
        # oob-read case memcheck stopped is no failure; another planted plugin's is.
        for unexpected, stopped, want_exit, want_words in (
                (0, "", 0, "found every planted bug it can see"),
                (7, "", 1, "the run it wraps FAILED"),
                (0, "planted-cuda-oob-read", 0, "found every planted bug it can see"),
                (0, "planted-cuda-no-stream", 1, "the run it wraps FAILED")):
            env = dict(os.environ, PATH=os.path.join(work, "bin") + os.pathsep +
                       os.environ.get("PATH", ""), DLC_FAKE_UNEXPECTED=str(unexpected),
                       DLC_FAKE_STOPPED=stopped)
            p = subprocess.run([os.path.join(ROOT, "tools", "cuda-sanitize"),
                                os.path.join(work, "build"), "--out", os.path.join(work, "out")],
                               env=env, capture_output=True, text=True)
            print(p.stdout + p.stderr)
            what = f"with {unexpected} unexpected cases in the wrapped run and {stopped or 'no'} " \
                   f"planted case ended otherwise"
            if p.returncode != want_exit:
                failures.append(f"{what}: expected exit {want_exit} but found {p.returncode}")
            if want_words not in p.stdout or (want_exit == 0 and "FAILED" in p.stdout):
                failures.append(f"{what}: expected '{want_words}' but found {p.stdout[-300:]!r}")
            if unexpected and "7 unexpected cases" not in p.stdout and "exit 8" not in p.stdout:
                failures.append(f"{what}: expected the reason (exit 8, 7 unexpected) in the verdict")
    for f in failures:
        print("FAIL " + f)
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
