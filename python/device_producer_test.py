#!/usr/bin/env python3
"""The judges of a device producer, on stand-ins for a CUDA library (the real ones run on a GPU,
in tools/gpu-check):
- Stream values (devices/*/F/negotiation/streams). A producer that exports for every value
  passes. One that refuses stream=None is STRM-1's producer-violation. On CUDA 1, 2 and -1 are
  optional: refusing one with BufferError passes, and failing with another exception (JAX's CUDA
  error for -1, taken as a stream handle) is STRM-2's producer-violation. One that refuses 0,
  which a consumer must not pass, passes. Off CUDA, only stream=None must export.
- The race (devices/*/F/raced/...). A producer that makes the consumer's stream wait for its
  pending write passes. One that ignores the stream is stream-not-synchronised [STRM-1]. The
  canary (the stream dropped) passes when it reads early, and fails when it does not: then the
  wait was too short to judge. An adapter with no pending write is n/a.
- Pinned or managed memory a library makes (devices/*/F/memory/KIND/...). Pinned memory that
  answers kDLCPU, and reads right, passes; one that names itself kDLCUDA is DEV-1's
  producer-violation, a device_id other than 0 DEV-2's, and a capsule on another device than the
  answer is the judge's finding.
- The CUDA mock producer's memory into F (devices/*/F/dlconform-cuda-producer@v1.3/...). F that
  passes the stream it reads on, and reads the values after the write, passes. F that passes no
  stream while it reads on another is wrong-stream-passed [STRM-1], and F that passes 0 is
  bad-stream-value [STRM-2], whatever values it read. The canary (a producer that ignores the
  stream) passes when F reads early, and fails when it does not.
- The bridge's judge of such an import: values that are still the storage's fill pattern were
  read before the pending write landed, stream-not-synchronised [STRM-1] (not a misread); the
  producer's values pass.

Needs $PYTHON_BRIDGE (_dlconform's .so); $DLC_PRELOAD, the sanitizer runtimes a sanitized bridge
needs in this unsanitized interpreter. Exit 77 (skip) without the bridge, or 1 under CI
($CI=true), where it must be built."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Runs in a child, beside the bridge: each stand-in's verdict, class and rule, a line each.
CHILD = r"""
import os
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import numpy as np
import dlconform_devices as devices
import dlconform_imports as imports
import dlconform_workers as workers


class Array:
    def __init__(self, data, device, refuses, misreads=()):
        self.data, self.device, self.refuses, self.misreads = data, device, refuses, misreads

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **keywords):
        if stream in self.misreads:  # a value with a meaning, used as a stream handle
            raise RuntimeError(f"CUDA error: invalid resource handle (stream {stream})")
        if stream in self.refuses:
            raise BufferError(f"stream {stream} is not supported")
        return self.data.__dlpack__()


class StandIn:
    np = np

    def __init__(self, device, refuses, misreads=()):
        self.device, self.refuses, self.misreads = device, refuses, misreads
        self.label = "stand-in@1"

    def stream(self):
        return 7  # a stream handle, above the reserved values

    def from_np(self, array):
        return Array(array, self.device, self.refuses, self.misreads)


# The race: an array whose values are `final` once the stream a consumer reads on waited for its
# pending write, else `stale`; a consumer that passes stream 5 and reads at once.
class Pending:
    def __init__(self, final, syncs):
        self.final, self.stale, self.syncs, self.waited = final, final * 0 - 1, syncs, None

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None, **keywords):
        if self.syncs:
            self.waited = stream
        return self.final.__dlpack__()


class Consumer:
    def __init__(self, early):
        self.early = early  # it reads before the write whether or not its stream waited

    def from_dlpack(self, obj):
        obj.__dlpack__(max_version=(1, 3), stream=5)
        array = obj.inner if isinstance(obj, devices.DropsStream) else obj
        landed = array.waited == 5 or not self.early
        values = array.final if landed else array.stale
        return {"imported": True, "error": "", "digest": devices.bridge.digest(values.tobytes())}

    def release(self):
        pass


class Helpers:
    @staticmethod
    def make_array(xp, dtype, shape):
        return xp.arange(shape[0] * shape[1], dtype=dtype).reshape(shape)

    @staticmethod
    def expected_of(fw, value):
        return {"digest": devices.bridge.digest(value.final.tobytes())}


class Racing(StandIn):
    def __init__(self, syncs, can_wait=True):
        super().__init__((2, 0), ())
        self.syncs, self.can_wait = syncs, can_wait

    def pending_write(self, array):
        return Pending(array, self.syncs) if self.can_wait else None


for name, fw, early, planted in (("raced", Racing(True), True, False),
                                 ("raced-ignores-stream", Racing(False), True, False),
                                 ("raced-canary", Racing(True), True, True),
                                 ("raced-canary-too-slow", Racing(True), False, True),
                                 ("raced-no-pending-write", Racing(True, False), True, False)):
    verdict, cls, rule, _, detail = devices.raced_export(fw, lambda e=early: Consumer(e), Helpers,
                                                         planted)()
    print(name, verdict, cls, rule, detail, sep="\t")

# Pinned memory, as host memory that names itself `device`: numpy's capsule (kDLCPU) under it.
class Placed:
    def __init__(self, data, device):
        self.data, self.device = data, device

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, **keywords):
        return self.data.__dlpack__(**keywords)


class Pinning(StandIn):
    writable_concept = False

    def __init__(self, device):
        super().__init__(device, ())

    def writable(self, value):
        return None

    def memories(self):
        return {"pinned": lambda array: Placed(array, self.device)}

    def to_np(self, value):
        return value.data


for name, device in (("pinned-as-host", (1, 0)), ("pinned-as-cuda", (2, 0)),
                     ("pinned-device-id", (3, 1)), ("pinned-as-pinned-host-capsule", (3, 0))):
    fw = Pinning(device)
    try:
        verdict, cls, rule, _, detail = devices.memory_export(
            fw, "pinned", fw.memories()["pinned"], imports)()
    except workers.LibraryFault as e:
        verdict, (cls, rule, _, detail) = "fail", e.finding
    print(name, verdict, cls, rule, detail, sep="\t")

# The CUDA mock producer's memory into F: framework_imports' stand-in builds the producer (which
# makes the stream it is given wait, unless planted), hands it to F through `wrap`, and judges the
# values F read as the bridge's judge would (wrong-data when they are the stale ones).
class MemoryConsumer(StandIn):
    def __init__(self, passes, early=True):
        super().__init__((2, 0), ())
        self.passes, self.early = passes, early  # the stream it passes; it reads on stream 7

    def import_(self, obj):
        keywords = {"max_version": (1, 3)}
        if self.passes != "not passed":
            keywords["stream"] = self.passes
        obj.__dlpack__(**keywords)
        landed = obj.inner.waited == 7 or not self.early
        return obj.inner.final if landed else obj.inner.stale


class MemoryHelpers:
    @staticmethod
    def framework_imports(fw, producer_path, entry, profile, wrap=None, observe=None):
        def body():
            producer = Pending(np.arange(4, dtype="float32"), syncs=producer_path != "ignores")
            seen = fw.import_(wrap(producer))
            if (seen == producer.final).all():
                return ("pass", "", "", "", "imported correctly")
            return ("fail", "wrong-data", "LAY-4", "ERROR", "expected the producer's values")
        return body


ENTRY = {"name": "cuda/f32_8x8", "device": 2}
for name, fw, path, planted in (("memory", MemoryConsumer(7), "syncs", False),
                                ("memory-passes-none", MemoryConsumer("not passed"), "syncs",
                                 False),
                                ("memory-passes-zero", MemoryConsumer(0), "syncs", False),
                                ("memory-canary", MemoryConsumer(7), "ignores", True),
                                ("memory-canary-too-slow", MemoryConsumer(7, early=False),
                                 "ignores", True)):
    verdict, cls, rule, _, detail = devices.cuda_memory_import(fw, path, ENTRY, None,
                                                               MemoryHelpers, planted)()
    print(name, verdict, cls, rule, detail, sep="\t")

# The bridge's judge of an import from a device producer whose write was left pending: a
# consumer that read the storage still unwritten (every byte the fill pattern) read too early.
import gc
import _dlconform as bridge
producer = os.path.join(sys.argv[3], "producers", "dlc-versioned-producer-v1_3.so")
for name, pending, stream, early in (("early-read-no-stream", True, None, True),
                                     ("early-read-on-stream", True, 7, True),
                                     ("early-read-unjudged", False, None, True),
                                     ("late-read", True, 7, False)):
    mock = bridge.MockTensor(producer, "f32_8x8")
    if early:
        digest = bridge.digest(b"\xa5" * 256)
    else:  # the producer's values, as NumPy reads them
        array = np.from_dlpack(mock)
        digest = bridge.digest(np.ascontiguousarray(array).tobytes())
        del array
        gc.collect()
    observed = {"consumer": "stand-in@1", "consumer_version": (1, 3), "must_accept": True,
                "imported": True, "ndim": 2, "shape": (8, 8), "dtype": (2, 32, 1),
                "elements": 64, "digest": digest, "pending_write": pending, "stream": stream,
                "producer": "stand-in-producer@1"}
    finding = bridge.judge_import(mock, observed)
    print(name, *(("pass", "", "", "", "") if finding is None else ("fail",) + finding), sep="\t")

for name, device, refuses in (("cuda", (2, 0), ()), ("cuda-refuses-none", (2, 0), (None,)),
                              ("cuda-refuses-legacy", (2, 0), (1,)),
                              ("cuda-refuses-per-thread", (2, 0), (2,)),
                              ("cuda-refuses-minus-one", (2, 0), (-1,)),
                              ("cuda-misreads-minus-one", (2, 0), ()),
                              ("cuda-refuses-zero", (2, 0), (0,)),
                              ("pinned-refuses-per-thread", (3, 0), (2,)),
                              ("oneapi-refuses-one", (14, 0), (1,))):
    misreads = (-1,) if name == "cuda-misreads-minus-one" else ()
    verdict, cls, rule, _, detail = devices.stream_answers(StandIn(device, refuses, misreads))()
    print(name, verdict, cls, rule, detail, sep="\t")
"""

EXPECTED = {"cuda": ("pass", "", ""),
            "cuda-refuses-none": ("fail", "producer-violation", "STRM-1"),
            "cuda-refuses-legacy": ("pass", "", ""),
            "cuda-refuses-per-thread": ("pass", "", ""),
            "cuda-refuses-minus-one": ("pass", "", ""),
            "cuda-misreads-minus-one": ("fail", "producer-violation", "STRM-2"),
            "cuda-refuses-zero": ("pass", "", ""),
            "pinned-refuses-per-thread": ("pass", "", ""),
            "oneapi-refuses-one": ("pass", "", ""),
            "raced": ("pass", "", ""),
            "raced-ignores-stream": ("fail", "stream-not-synchronised", "STRM-1"),
            "raced-canary": ("pass", "", ""),
            "raced-canary-too-slow": ("fail", "plugin-error", ""),
            "raced-no-pending-write": ("skip", "", ""),
            "memory": ("pass", "", ""),
            "memory-passes-none": ("fail", "wrong-stream-passed", "STRM-1"),
            "memory-passes-zero": ("fail", "bad-stream-value", "STRM-2"),
            "memory-canary": ("pass", "", ""),
            "memory-canary-too-slow": ("fail", "plugin-error", ""),
            # the bridge's judge: an early read is STRM-1 whatever the stream passed (the words
            # blame the consumer when it passed none); without a pending write, a misread
            "early-read-no-stream": ("fail", "stream-not-synchronised", "STRM-1"),
            "early-read-on-stream": ("fail", "stream-not-synchronised", "STRM-1"),
            "early-read-unjudged": ("fail", "wrong-data", "LAY-4"),
            "late-read": ("pass", "", ""),
            "pinned-as-host": ("pass", "", ""),
            "pinned-as-cuda": ("fail", "producer-violation", "DEV-1"),
            "pinned-device-id": ("fail", "producer-violation", "DEV-2"),
            # __dlpack_device__() says kDLCUDAHost, the capsule kDLCPU: the capsule's finding
            "pinned-as-pinned-host-capsule": ("fail", "producer-violation", "DEV-1")}


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
    build = os.path.dirname(os.path.dirname(os.path.abspath(bridge)))
    run = subprocess.run([sys.executable, "-c", CHILD, os.path.dirname(bridge), HERE, build],
                         env=env,
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
