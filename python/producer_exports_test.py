#!/usr/bin/env python3
"""A producer's exports out of the usual order, an array DLPack cannot express, stream asks on
the CPU, a malformed max_version, copy= by memory, a narrow float's export and a misstated dtype
are judged, and so are a device array's host copies (dl_device=(1, 0)) under each copy=: each
planted producer of planted_producers.py is caught with its class and rule on
the case it gets wrong, and on no other; the correct producer has no finding at all.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402
FLOAT32 = ("f32_2x3", "f32_scalar", "f32_zero_size", "exported-3-times", "source-deleted")
# Every __dlpack__ ask of the negotiation rows that exports (a stream ask and dl_device=cuda are
# refused first).
EXPORTS = ("max_version=none", "max_version=0.8", "max_version=1.0", "max_version=1.3",
           "max_version=2.0", "copy=True", "copy=False", "dl_device=cpu", "stream=None",
           "dl_device=cpu,copy=True", "dl_device=cpu,copy=False", "max_version=1.0,copy=True")
# The asks with copy=True that export, alone and beside other keywords (P-49).
COPY_TRUE = ("copy=True", "dl_device=cpu,copy=True", "max_version=1.0,copy=True")
OWN_DEVICE = ("dl_device=cpu", "dl_device=cpu,copy=True", "dl_device=cpu,copy=False")


NARROW = ("narrow/float4_e2m1fn", "narrow/float6_e2m3fn")


def read_by_consumer(verdict, tensors=FLOAT32 + NARROW):
    """{case: verdict} for each framework case in which the reference consumer reads its export."""
    return {f"dlconform-consumer@v1.3/{t}": verdict for t in tensors}


# planted producer -> {case: "class RULE"}; every other case of CASES passes with no finding.
EXPECTED = {
    "correct-producer": {},
    # Both hand out one piece of memory for every export, so copy=True gets no copy either.
    "caches-one-struct": dict({ask: "producer-violation STRM-4" for ask in COPY_TRUE},
                              **{"dlconform-consumer@v1.3/exported-3-times": "crash LIFE-3"}),
    "frees-with-source": dict({ask: "producer-violation STRM-4" for ask in COPY_TRUE},
                              **{"dlconform-consumer@v1.3/source-deleted": "crash LIFE-6"}),
    "stream-on-cpu": {"stream=1": "stream-accepted-on-cpu STRM-1",
                      "stream=-1": "stream-accepted-on-cpu STRM-1"},
    # Right values in another element encoding: DT-3, not LAY-4.
    "ignores-byte-order": {"dlconform-consumer@v1.3/unexpressible/big-endian":
                           "producer-violation DT-3"},
    "max-version-unchecked": {"max_version=bare-int": "crash VER-4"},
    "any-max-version": {"max_version=bare-int": "malformed-keyword-accepted VER-4"},
    "unpacked-float4": {"dlconform-consumer@v1.3/narrow/float4_e2m1fn": "producer-violation DT-3"},
    "exports-none": {"to_dlpack/bad-input": "producer-violation VER-4"},
    "ignores-copy": {ask: "producer-violation STRM-4" for ask in COPY_TRUE},
    # Right for each keyword alone, wrong for copy=True beside dl_device (P-49).
    "ignores-copy-with-device": {"dl_device=cpu,copy=True": "producer-violation STRM-4"},
    "copies-for-copy-false": {ask: "producer-violation STRM-4"
                              for ask in ("copy=False", "dl_device=cpu,copy=False")},
    # Its copy=None exports copy (IS_COPIED set, honestly), where copy=False shows a share works.
    "copies-for-copy-none": {"copy=None/reuse": "producer-violation STRM-4"},
    # Every export dropped unconsumed leaks; a consumed one is deleted by its consumer.
    "no-capsule-destructor": {ask: "deleter-leaks LIFE-2" for ask in
                              EXPORTS + ("dropped-during-exception",)},
    # The id stated in the struct too: the validator refuses it wherever it is read, and a
    # capsule on it is on another device than dl_device=(1, 0) asked for.
    "device-id-one": dict(read_by_consumer("producer-violation DEV-2"),
                          **{ask: "producer-violation STRM-3" for ask in OWN_DEVICE},
                          **{"__dlpack_device__": "producer-violation DEV-2"}),
    "unknown-device-type": dict(read_by_consumer("producer-violation DEV-1"),
                                **{ask: "producer-violation STRM-3" for ask in OWN_DEVICE},
                                **{"__dlpack_device__": "producer-violation DEV-1"}),
    # __dlpack_device__ right, every struct on (3, 0): not self's device (DEV-1), nor the one
    # dl_device asked for (STRM-3).
    "capsule-on-other-device": dict(
        read_by_consumer("producer-violation DEV-1"),
        **{ask: "producer-violation DEV-1" for ask in EXPORTS if ask not in OWN_DEVICE},
        **{ask: "producer-violation STRM-3" for ask in OWN_DEVICE}),
    "returns-bytes": dict(read_by_consumer("not-a-capsule VER-4"),
                          **{ask: "not-a-capsule VER-4" for ask in EXPORTS}),
    # The keywords of DLPack 1.0 missing are the old signature, INFO; stream missing is not.
    "no-keywords": dict({ask: "old-dlpack-signature VER-4" for ask in EXPORTS
                         + ("dl_device=cuda", "dl_device=cuda,copy=True")
                         if ask not in ("max_version=none", "stream=None")},
                        **{"stream=None": "no-stream-keyword VER-4"}),
    "refuses-own-device": {ask: "producer-violation STRM-3" for ask in OWN_DEVICE},
    "device-value-error": {ask: "wrong-refusal-exception STRM-3"
                           for ask in ("dl_device=cuda", "dl_device=cuda,copy=True")},
    # max_version=1.3, copy= and dl_device= ask for (1, 3), which it answers versioned.
    "equal-version-only": {ask: "negotiation-downgrade VER-4"
                           for ask in ("max_version=1.0", "max_version=2.0",
                                       "max_version=1.0,copy=True")},
    "sub-byte-as-byte": read_by_consumer("producer-violation DT-1", NARROW),
    # Its float32 tensors only: the float4 one keeps its code and lanes.
    "unknown-dtype-code": read_by_consumer("producer-violation DT-2", FLOAT32),
    "zero-lanes": read_by_consumer("producer-violation DT-1", FLOAT32),
    "bool-as-uint8": {"dlconform-consumer@v1.3/bool_7": "producer-violation DT-1"},
    # The pair's width halved: DT-3 (bits is the pair's), for both complex types.
    "complex-part-width": {"dlconform-consumer@v1.3/c64_7": "producer-violation DT-3",
                           "dlconform-consumer@v1.3/c128_7": "producer-violation DT-3"},
    "truncates-byte-strides": {"dlconform-consumer@v1.3/unexpressible/odd-byte-strides":
                               "producer-violation LAY-4"},
    # Every capsule the reference consumer takes and deletes is deleted again by its destructor
    # (those of the out-of-order exports die after the case's ledger closed: not judged there).
    "name-blind-destructor": read_by_consumer("destructor-ignores-name LIFE-2",
                                              ("f32_2x3", "f32_scalar", "f32_zero_size") + NARROW),
    "destructor-clears-exception": {"dropped-during-exception": "producer-violation LIFE-2"},
    "no-device-method": {f"__dlpack_device__{shape}": "unexpected-exception DEV-1"
                         for shape in ("", "/0-d", "/size-0")},
    # Its __dlpack_device__ alone, on a size-0 array alone; its exports state the right device.
    "device-of-first-element": {"__dlpack_device__/size-0": "unexpected-exception DEV-1"},
    # Every versioned export but copy=True's says IS_COPIED over the array's own memory.
    "flags-own-memory-copied": {ask: "producer-violation FLAG-2" for ask in
                                ("max_version=1.0", "max_version=1.3", "max_version=2.0",
                                 "copy=False", "dl_device=cpu", "dl_device=cpu,copy=False")},
    # Its conjugate view alone: the stored values cross where the conjugates were due.
    "exports-conjugate-view": {"dlconform-consumer@v1.3/unexpressible/conj":
                               "producer-violation LAY-4"},
    # Both of its names, versioned first: the first one judged fails the case.
    "heap-capsule-name": {"capsule-names": "producer-violation LIFE-1"},
    # Its deleter run on a thread without the GIL releases an object there.
    "deleter-without-gil": {"deleter-off-thread": "producer-violation LIFE-7"},
}
CASES = ("dlconform-consumer@v1.3/f32_2x3", "dlconform-consumer@v1.3/exported-3-times",
         "dlconform-consumer@v1.3/source-deleted", "stream=None", "stream=1", "stream=-1",
         "max_version=1.3", "max_version=bare-int", "copy=True", "copy=False", "dl_device=cuda",
         "dl_device=cpu,copy=True", "dl_device=cpu,copy=False", "max_version=1.0,copy=True",
         "dl_device=cuda,copy=True", "capsule-names", "deleter-off-thread", "copy=None/reuse",
         "dlconform-consumer@v1.3/unexpressible/big-endian",
         "dlconform-consumer@v1.3/unexpressible/odd-byte-strides",
         "dlconform-consumer@v1.3/narrow/float4_e2m1fn",
         "dlconform-consumer@v1.3/narrow/float6_e2m3fn")


# The device producers (arrays on oneAPI device 0): their device rows, as dpnp's on a real device.
DEVICE_NEGOTIATION = tuple(f"negotiation/dl_device={d},copy={c}" for d, c in
                           (("own", "None"), ("own", "True"), ("own", "False"), ("cpu", "None"),
                            ("cpu", "True"), ("cpu", "False"), ("other", "None"),
                            ("other", "False")))
DEVICE_CONSUMERS = tuple(f"{c}@{h}/f32_2x3{suffix}"
                         for c, h in ([("versioned-consumer", f"v1.{m}") for m in range(4)] +
                                      [("strict-consumer", "v1.3")])
                         for suffix in ("", "/dl_device=cpu"))
DEVICE_CASES = (DEVICE_NEGOTIATION + DEVICE_CONSUMERS + ("negotiation/streams",) +
                tuple(f"dlconform-consumer@v1.3/{t}" for t in FLOAT32))
HOST_COPIES = ("negotiation/dl_device=cpu,copy=None", "negotiation/dl_device=cpu,copy=True") + \
    tuple(c for c in DEVICE_CONSUMERS if c.endswith("/dl_device=cpu")) + \
    tuple(f"dlconform-consumer@v1.3/{t}" for t in ("f32_2x3", "f32_scalar", "f32_zero_size"))
DEVICE_EXPECTED = {
    "device-stand-in": {},
    # Asked for the host under copy=False, it copies where it must refuse (BufferError).
    "device-copies-for-copy-false": {"negotiation/dl_device=cpu,copy=False":
                                     "producer-violation STRM-4"},
    # Every host copy that crosses, read by the reference consumer and the mocks alike.
    "device-copy-unflagged": {case: "producer-violation FLAG-2" for case in HOST_COPIES},
    # On CUDA: every stream value the Array API defines taken, or refused with BufferError.
    "cuda-stand-in": {},
    # stream=None refused: the streams row and the negotiation row's stream=None alike.
    "cuda-refuses-default-stream": {"negotiation/streams": "producer-violation STRM-1",
                                    "stream=None": "producer-violation STRM-1"},
    # 1 and 2 taken for handles: a CUDA error, where the value's meaning is defined.
    "cuda-misreads-legacy-stream": {"negotiation/streams": "producer-violation STRM-2"},
    "cuda-misreads-per-thread-stream": {"negotiation/streams": "producer-violation STRM-2"},
    # Pinned and managed arrays (kDLCUDAHost, kDLCUDAManaged), and two that misname them.
    "cuda-stand-in-with-memories": {},
    "cuda-managed-as-host": {"memory/managed/f32_2x3": "producer-violation DEV-1"},
    "cuda-pinned-as-device": {"memory/pinned/f32_2x3": "producer-violation DEV-1"},
}
MEMORY_CASES = ("memory/pinned/f32_2x3", "memory/managed/f32_2x3")
WITH_MEMORIES = ("cuda-stand-in-with-memories", "cuda-managed-as-host", "cuda-pinned-as-device")


def case_id(producer, case):
    scenario = "framework" if case.startswith("dlconform-consumer") else "negotiation"
    return f"{scenario}/module/{producer}@1/{case}"


def device_case_id(producer, case):
    scenario = "framework" if case.startswith("dlconform-consumer") else "devices"
    return f"{scenario}/module/{producer}@1/{case}"


def main():
    seen = planted_matrix.run("planted_producers.py")
    if seen is None:
        return 1
    failures = 0
    for producer, findings in EXPECTED.items():
        for case in CASES + tuple(c for c in findings if c not in CASES):  # and its own
            failures += planted_matrix.checked(f"{producer} {case}", findings.get(case, "none"),
                                               seen.get(case_id(producer, case)))
    for producer, findings in DEVICE_EXPECTED.items():
        for case in DEVICE_CASES + (MEMORY_CASES if producer in WITH_MEMORIES else ()):
            failures += planted_matrix.checked(f"{producer} {case}", findings.get(case, "none"),
                                               seen.get(device_case_id(producer, case)))
        # The negotiation row a device producer shares with the CPU ones.
        failures += planted_matrix.checked(f"{producer} stream=None",
                                           findings.get("stream=None", "none"),
                                           seen.get(case_id(producer, "stream=None")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
