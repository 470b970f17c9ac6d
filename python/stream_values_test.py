#!/usr/bin/env python3
"""The stream values asked of a device producer (devices/*/F/negotiation/streams), judged on
stand-ins for a CUDA library: a producer that exports for every value passes; one that refuses
stream=None is STRM-1's producer-violation; one that refuses 1, 2 or -1 is STRM-2's; one that
refuses 0 (which a consumer must not pass) passes. Off CUDA only stream=None must export.

Needs $PYTHON_BRIDGE (_dlconform's .so); $DLC_PRELOAD, the sanitizer runtimes a sanitized bridge
needs in this unsanitized interpreter. Exit 77 (skip) without the bridge, or 1 under CI
($CI=true), where it must be built."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Runs in a child, beside the bridge: each stand-in's verdict, class and rule, a line each.
CHILD = r"""
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import numpy as np
import dlconform_devices as devices


class Array:
    def __init__(self, data, device, refuses):
        self.data, self.device, self.refuses = data, device, refuses

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **keywords):
        if stream in self.refuses:
            raise BufferError(f"stream {stream} is not supported")
        return self.data.__dlpack__()


class StandIn:
    np = np

    def __init__(self, device, refuses):
        self.device, self.refuses, self.label = device, refuses, "stand-in@1"

    def stream(self):
        return 7  # a stream handle, above the reserved values

    def from_np(self, array):
        return Array(array, self.device, self.refuses)


for name, device, refuses in (("cuda", (2, 0), ()), ("cuda-refuses-none", (2, 0), (None,)),
                              ("cuda-refuses-legacy", (2, 0), (1,)),
                              ("cuda-refuses-per-thread", (2, 0), (2,)),
                              ("cuda-refuses-minus-one", (2, 0), (-1,)),
                              ("cuda-refuses-zero", (2, 0), (0,)),
                              ("pinned-refuses-per-thread", (3, 0), (2,)),
                              ("oneapi-refuses-one", (14, 0), (1,))):
    verdict, cls, rule, _, detail = devices.stream_answers(StandIn(device, refuses))()
    print(name, verdict, cls, rule, detail, sep="\t")
"""

EXPECTED = {"cuda": ("pass", "", ""),
            "cuda-refuses-none": ("fail", "producer-violation", "STRM-1"),
            "cuda-refuses-legacy": ("fail", "producer-violation", "STRM-2"),
            "cuda-refuses-per-thread": ("fail", "producer-violation", "STRM-2"),
            "cuda-refuses-minus-one": ("fail", "producer-violation", "STRM-2"),
            "cuda-refuses-zero": ("pass", "", ""),
            "pinned-refuses-per-thread": ("fail", "producer-violation", "STRM-2"),
            "oneapi-refuses-one": ("pass", "", "")}


def main():
    bridge = os.environ.get("PYTHON_BRIDGE")
    if not bridge:
        print("expected the Python bridge (meson option python) but found none: skipped")
        return 1 if os.environ.get("CI") == "true" else 77
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("DLC_PRELOAD"):
        env.update(LD_PRELOAD=os.environ["DLC_PRELOAD"],
                   ASAN_OPTIONS="detect_leaks=0:handle_segv=0:handle_abort=0:"
                                "allow_user_segv_handler=1:alloc_dealloc_mismatch=0")
    run = subprocess.run([sys.executable, "-c", CHILD, os.path.dirname(bridge), HERE], env=env,
                         capture_output=True, text=True, timeout=120)
    seen = {line.split("\t")[0]: line.split("\t")[1:] for line in run.stdout.splitlines()}
    failures = 0
    for name, want in EXPECTED.items():
        got = seen.get(name)
        if got is None or tuple(got[:3]) != want:
            failures += 1
            print(f"FAIL {name}: expected {want} but found "
                  f"{got or (run.returncode, run.stderr.strip()[-400:])}")
        else:
            print(f"ok   {name}: {want[0]} {want[1]} {want[2]} ({got[3][:120]})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
