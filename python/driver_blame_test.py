#!/usr/bin/env python3
"""Whose fault a case's failure is, and what a library is called (issue #42, items 1, 2, 6), on
the driver's own case bodies run in this process with small fake libraries:

- a library's own __dlpack_device__ or __dlpack__ that raises or answers something malformed is
  a finding on the library with its class and rule, not plugin-error; plugin-error names the
  adapter file that raised, or says the driver failed;
- __dlpack__'s signature: no stream keyword is a finding (VER-4), no max_version the old
  signature (INFO), in the negotiation table and in a pair whose consumer passes stream=None;
- a module without __version__ takes its distribution's version, an adapter's own overrides.

Needs the _dlconform bridge and python/ on PYTHONPATH (meson sets both)."""
import os
import sys
import tempfile

import numpy as np

import dlconform_adapter as dlc
import dlconform_frameworks as drv
from dlconform_workers import Case, run_case

failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


# --- fake libraries: arrays whose protocol methods misbehave -------------------------------------

class Good:
    """A NumPy-backed array with the Array API's DLPack surface."""
    def __init__(self, data):
        self.data = data

    def __array__(self, dtype=None, copy=None):
        return self.data

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return self.data.__dlpack__(stream=stream)  # NumPy 1.24 here: legacy only

    def __dlpack_device__(self):
        return (1, 0)


class DeviceRaises(Good):
    def __dlpack_device__(self):
        raise ValueError("no device here")


class DeviceMalformed(Good):
    def __dlpack_device__(self):
        return ("cpu", 0)


class DeviceIdNone(Good):
    def __dlpack_device__(self):
        return (1, None)


class NotCapsule(Good):
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return [self.data]


class NoStream(Good):
    def __dlpack__(self, *, max_version=None, dl_device=None, copy=None):
        return self.data.__dlpack__()


class NoKeywords(Good):
    def __dlpack__(self):
        return self.data.__dlpack__()


class TypeErrorRefusal(Good):
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        raise TypeError("cannot export this array")


class StreamRefuser(Good):
    """NumPy's answer to a stream on the CPU: ValueError ("only supports stream=None")."""
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None:
            raise ValueError("only supports stream=None")
        return super().__dlpack__(stream=stream)


class CopyRefuser(Good):
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if copy:
            raise BufferError("copy not yet supported")
        return super().__dlpack__(stream=stream)


KEPT = []


class KeepsItself(Good):
    """A producer whose capsule keeps its array alive after the capsule is dropped (a reference
    its exporter stores and never gives back)."""
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        KEPT.append(self)
        return super().__dlpack__(stream=stream)


class Fake(dlc.Framework):
    """An adapter of a fake library whose arrays are `kind` (any module to import: json)."""
    name = "json"
    kind = Good
    dtypes = ["float32"]

    def from_np(self, array):
        return self.kind(np.array(array))

    def import_(self, obj, **keywords):
        return np.from_dlpack(obj)


class BrokenAdapter(Fake):
    def from_np(self, array):
        raise KeyError("the adapter's own bug")


class StreamConsumer(Fake):
    """A consumer that passes stream=None, as JAX's from_dlpack does."""
    def import_(self, obj, **keywords):
        capsule = obj.__dlpack__(stream=None)

        class Held:
            def __dlpack__(self, stream=None):
                return capsule

            def __dlpack_device__(self):
                return (1, 0)
        return np.from_dlpack(Held())


class StreamFive(Fake):
    """A consumer that passes a CUDA stream to every producer (cuda.core's StridedMemoryView)."""
    def import_(self, obj, **keywords):
        capsule = obj.__dlpack__(stream=5)
        return capsule


class RefusesItself(Fake):
    """An adapter that raises before calling its library."""
    def import_(self, obj, **keywords):
        raise TypeError("this adapter takes no device")


def device_first_from_dlpack(obj):
    """A fake library's importer that asks the device first, as most do."""
    if obj.__dlpack_device__() != (1, 0):
        raise BufferError("not a CPU tensor")
    return np.from_dlpack(obj)


class UnsupportedKeyword(Fake):
    """An adapter whose library cannot take a keyword says so with Unsupported."""
    def import_(self, obj, **keywords):
        raise dlc.Unsupported("this library takes no device")


class DeviceFirst(Fake):
    """The adapter of that library: it only calls it."""
    def import_(self, obj, **keywords):
        return device_first_from_dlpack(obj)


def fake(kind, cls=Fake):
    fw = cls()
    fw.kind = kind
    return fw


def pair_verdict(producer, consumer):
    """The verdict of a 3-element float32 array of `producer` imported by `consumer`."""
    return verdict(drv.pair(producer, lambda: producer.from_np(np.ones(3, "float32")), consumer,
                            "LAY-1", "f32_3"), producer, consumer)


def verdict(body, *parties):
    """(verdict, class, rule, severity, detail) of a case body, as a worker runs it."""
    return tuple(run_case(Case("id", "test", "p", "v", "c", "v", "t", body, "", parties)))


def test_library_faults():
    got = verdict(drv.device_answer(fake(DeviceRaises)), fake(DeviceRaises))
    check(got[:4] == ("fail", "unexpected-exception", "DEV-1", "MUST"),
          f"__dlpack_device__ raising ValueError is unexpected-exception [DEV-1]: {got}")
    got = verdict(drv.device_answer(fake(DeviceMalformed)), fake(DeviceMalformed))
    check(got[:4] == ("fail", "malformed-device-answer", "DEV-1", "MUST"),
          f"__dlpack_device__ answering ('cpu', 0) is malformed-device-answer [DEV-1]: {got}")
    got = verdict(drv.device_answer(fake(DeviceIdNone)), fake(DeviceIdNone))
    check(got[:4] == ("fail", "malformed-device-answer", "DEV-2", "MUST"),
          f"a device id of None is malformed-device-answer [DEV-2]: {got}")
    got = verdict(drv.device_answer(fake(Good)), fake(Good))
    check(got[0] == "pass" and got[4] == "(1, 0)", f"(1, 0) passes: {got}")
    fw = fake(NotCapsule)
    for label, ask in (("max_version=1.3", (("max_version", (1, 3)),)), ("none", ())):
        got = verdict(drv.negotiation(fw, ask), fw)
        check(got[:3] == ("fail", "not-a-capsule", "VER-4"),
              f"__dlpack__ returning a list is not-a-capsule [VER-4] ({label}): {got}")
    build = lambda: fw.from_np(np.ones((2, 3), "float32"))  # noqa: E731
    got = verdict(drv.framework_exports(fw, build, None), fw)
    check(got[:3] == ("fail", "not-a-capsule", "VER-4"),
          f"an export that is not a capsule is not-a-capsule [VER-4], not a refusal: {got}")
    got = verdict(drv.pair(fw, build, fake(Good), "LAY-1", "f32_2x3"), fw, fake(Good))
    check(got[:3] == ("fail", "not-a-capsule", "VER-4"),
          f"a pair with a producer answering no capsule is the producer's not-a-capsule: {got}")
    consumer = fake(Good, DeviceFirst)
    fw = fake(DeviceRaises)
    got = pair_verdict(fw, consumer)
    check(got[:3] == ("fail", "unexpected-exception", "DEV-1") and "failed on it" in got[4],
          f"a pair whose consumer fails on the producer's __dlpack_device__ raising is the "
          f"producer's unexpected-exception: {got}")
    fw = fake(DeviceMalformed)  # the consumer may refuse for its own reasons: words only
    got = pair_verdict(fw, consumer)
    check(got[0] == "pass" and "__dlpack_device__() answered ('cpu', 0)" in got[4],
          f"a refusal after a malformed device answer says what the producer answered: {got}")


def test_blame():
    fw = fake(Good, BrokenAdapter)
    got = verdict(drv.device_answer(fw), fw)
    check(got[:4] == ("fail", "plugin-error", "", "MUST") and
          got[4].startswith("the adapter file driver_blame_test.py (class BrokenAdapter) raised "
                            "in from_np(): KeyError"),
          f"an adapter's own exception is plugin-error naming the adapter file: {got}")
    got = verdict(drv.negotiation(fake(Good), 5), fake(Good))  # a broken plan: the driver's own
    check(got[:3] == ("fail", "plugin-error", "") and
          got[4].startswith("dlconform's driver failed: TypeError") and
          "dlconform_negotiation.py" in got[4],
          f"the driver's own failure says so, with its line: {got}")


def test_cause():
    """A refusal caused by the other party's invalid request is not the refuser's finding, one
    function judges a refusal wherever it is asked, and an adapter's exception is its own."""
    fw, consumer = fake(StreamRefuser), fake(Good, StreamFive)
    got = pair_verdict(fw, consumer)
    check(got[:3] == ("fail", "stream-on-cpu", "STRM-1") and "stream=5" in got[4],
          f"a CPU producer's ValueError for a consumer's stream is the consumer's STRM-1: {got}")
    fw = fake(CopyRefuser)
    ask = (("max_version", (1, 3)), ("copy", True))
    got = verdict(drv.negotiation(fw, ask), fw)
    check(got[:3] == ("fail", "producer-violation", "STRM-4"),
          f"BufferError for copy=True on the array's own device is STRM-4: {got}")
    fw = fake(KeepsItself)
    got = verdict(drv.negotiation(fw, ()), fw)
    check(got[:3] == ("fail", "deleter-leaks", "LIFE-2") and "dropped unconsumed" in got[4],
          f"a capsule dropped unconsumed that does not release its array is LIFE-2's: {got}")
    got = verdict(drv.negotiation(fake(Good), ()), fake(Good))
    check(got[0] == "pass" and "the array released" in got[4],
          f"one that releases it passes, and says so: {got}")
    fw, consumer = fake(Good), fake(Good, RefusesItself)
    got = pair_verdict(fw, consumer)
    check(got[:2] == ("fail", "plugin-error") and "RefusesItself" in got[4],
          f"an adapter's own raise is its plugin-error, never the library's refusal: {got}")
    consumer = fake(Good, UnsupportedKeyword)
    got = pair_verdict(fw, consumer)
    check(got[0] == "skip" and got[4].startswith("n/a") and "takes no device" in got[4],
          f"an adapter that cannot express a request says Unsupported: n/a, no refusal: {got}")


def test_signature():
    stream = (("stream", None),)
    versioned = (("max_version", (1, 0)),)
    fw = fake(NoStream)
    got = verdict(drv.negotiation(fw, stream), fw)
    check(got[:4] == ("fail", "no-stream-keyword", "VER-4", "MUST") and
          "(*, max_version=None, dl_device=None, copy=None)" in got[4],
          f"__dlpack__ without stream is no-stream-keyword [VER-4], its signature shown: {got}")
    fw = fake(NoKeywords)
    got = verdict(drv.negotiation(fw, stream), fw)
    check(got[:3] == ("fail", "no-stream-keyword", "VER-4"),
          f"__dlpack__(self) fails stream=None: {got}")
    got = verdict(drv.negotiation(fw, versioned), fw)
    check(got[:4] == ("pass", "old-dlpack-signature", "VER-4", "INFO") and
          "takes no max_version" in got[4],
          f"__dlpack__(self) asked max_version is the old signature, at INFO: {got}")
    got = verdict(drv.negotiation(fw, (("max_version", (1, 3)), ("copy", True))), fw)
    check(got[:2] == ("pass", "old-dlpack-signature") and "max_version or copy" in got[4],
          f"the keywords it lacks are named: {got}")
    fw = fake(TypeErrorRefusal)
    got = verdict(drv.negotiation(fw, versioned), fw)
    check(got[:4] == ("fail", "producer-violation", "VER-5", "SHOULD"),
          f"a TypeError for a keyword its signature names is VER-5's refusal by TypeError "
          f"(SHOULD: 'should raise BufferError'): {got}")
    numpy_fw = fake(lambda data: data)  # NumPy's own C __dlpack__ (1.24 here: stream only)
    got = verdict(drv.negotiation(numpy_fw, versioned), numpy_fw)
    old = tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 1)  # no max_version
    check(got[:2] == (("pass", "old-dlpack-signature") if old else ("pass", "")) and
          (not old or "shows no signature" in got[4]),
          f"a C method's TypeError is judged by the call, with no signature to show: {got}")
    got = verdict(drv.negotiation(numpy_fw, stream), numpy_fw)
    check(got[0] == "pass" and got[1] == "", f"NumPy's stream=None passes: {got}")
    fw, consumer = fake(NoStream), fake(Good, StreamConsumer)
    got = pair_verdict(fw, consumer)
    check(got[:3] == ("fail", "no-stream-keyword", "VER-4") and "stream=None" in got[4],
          f"a pair whose consumer passes stream=None shows the exporter's signature: {got}")
    fw = fake(Good)
    got = pair_verdict(fw, consumer)
    check(got[0] == "pass", f"the same pair with stream passes: {got}")


def test_version():
    root = tempfile.mkdtemp(prefix="dlconform-version-")
    os.makedirs(os.path.join(root, "dlcfake_ns"))  # a namespace package: no __init__, no version
    with open(os.path.join(root, "dlcfake_ns", "sub.py"), "w") as f:
        f.write("")
    info = os.path.join(root, "dlcfake_ns_dist-2.5.1.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: dlcfake-ns-dist\nVersion: 2.5.1+local\n")
    with open(os.path.join(info, "top_level.txt"), "w") as f:
        f.write("dlcfake_ns\n")
    with open(os.path.join(root, "dlcfake_plain.py"), "w") as f:  # no distribution at all
        f.write("")
    sys.path.insert(0, root)

    class Ns(dlc.Framework):
        name = "dlcfake_ns"

    class Sub(dlc.Framework):
        name = "dlcfake_ns.sub"

    class Plain(dlc.Framework):
        name = "dlcfake_plain"

    class Own(Ns):
        version = "9.9"

    class OwnProperty(Ns):
        @property
        def version(self):
            return "1.0b1"

    check(Ns().label == "dlcfake_ns@2.5.1", f"a namespace package has its distribution's "
          f"version: {Ns().label}")
    check(Sub().label == "dlcfake_ns.sub@2.5.1", f"so has its submodule: {Sub().label}")
    check(dlc.ModuleAdapter("dlcfake_ns").label == "dlcfake_ns@2.5.1",
          f"--module too: {dlc.ModuleAdapter('dlcfake_ns').label}")
    check(Plain().label == "dlcfake_plain@?", f"no distribution: ?: {Plain().label}")
    check(Own().label == "dlcfake_ns@9.9", f"an adapter's version attribute wins: {Own().label}")
    check(OwnProperty().label == "dlcfake_ns@1.0b1",
          f"an adapter's version property wins: {OwnProperty().label}")
    import json
    check(Fake().label == f"json@{json.__version__}", f"__version__ first: {Fake().label}")


def main():
    test_library_faults()
    test_blame()
    test_cause()
    test_signature()
    test_version()
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
