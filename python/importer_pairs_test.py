#!/usr/bin/env python3
"""A Python importer's pairs are judged (pairs/ENV/A@V/B@W/T: A's array into B's from_dlpack,
compared by value and by its deleter call): each planted importer of planted_importers.py imports
the arrays of aligned-exporter, a correct exporter whose `data` is 256-byte aligned and whose
`byte_offset` leads to the first element, and those of device-exporter, whose arrays are on a
oneAPI device (asked for plain, with device="cpu" and with device="cpu", copy=False), and is
caught with its class and rule on the pairs it gets wrong, and on no other; the correct importer
passes every pair.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import fnmatch
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402

EXPORTER = "aligned-exporter@1"
# The LAY-9 tensors are NumPy's own arrays (the alignment checks every NumPy exporter gets): no
# byte_offset crosses with them, so dropping it reads them right.
NUMPY_ITSELF = ("*_misaligned_*", "*_odd_offset")
# Read-only arrays: a NumPy before 2.1 exports legacy capsules only, and refuses them
# (BufferError), a pass for every importer; NumPy 2.1 and later exports them READ_ONLY.
REFUSED = ("f32_read_only", "f32_broadcast")
# planted importer -> [(glob over the tensor, "class RULE")], first match wins; no match: none.
EXPECTED = {
    "correct-importer": [],
    "caps-ndim-8": [],
    "refuses-device-with-value-error": [],
    "bfloat16-as-float16": [],  # NumPy makes no bfloat16
    # NumPy before 2.0 exports a compact array of 2 or more dimensions with NULL strides.
    "null-strides-column-major": [("f32_2x3", "wrong-data LAY-5")],
    "capsule-api-keeps-name": [],  # its from_dlpack renames; only its capsule API keeps the name
    # Every tensor with an element to read: what it reads is the 0xa5 prefix. (Read-only data
    # is refused by a NumPy whose legacy capsule cannot say READ_ONLY.)
    "ignores-byte-offset": ([(glob, "none") for glob in NUMPY_ITSELF + REFUSED +
                             ("f32_zero_size",)] + [("*", "wrong-data LAY-4")]),
    "scalar-copy-leaks": [("f32_scalar", "deleter-never-called LIFE-3")],
    "import-on-other-device": [],  # its arrays only say another device
    "host-copy-drops-copy": [],  # host arrays need no host copy
    "no-host-copy": [],
}
# The pairs of device-exporter (arrays on oneAPI device 0): five tensors, each plain, with
# device="cpu" and with device="cpu", copy=False; first match wins, no match: none.
DEVICE_EXPORTER = "device-exporter@1"
DEVICE_TENSORS = ("f32_2x3", "f32_T", "f32_step", "f32_zero_size", "i64_7")
DEVICE_EXPECTED = {
    "correct-importer": [],
    # It supports no device array at all: ValueError where the rules want BufferError (DEV-3's
    # recommendation plain; STRM-3's must when the host was asked for); under copy=False the
    # from_dlpack text allows ValueError.
    "refuses-device-with-value-error": [("*/device=cpu", "wrong-refusal-exception STRM-3"),
                                        ("*/device=cpu,copy=False", "none"),
                                        ("*", "wrong-refusal-exception DEV-3")],
    # It refuses the host with BufferError, without asking for a copy (it should offer one).
    "no-host-copy": [("*/device=cpu", "host-copy-not-offered STRM-3")],
    # It asks for the host copy without passing copy=False on, and imports it.
    "host-copy-drops-copy": [("*/device=cpu,copy=False", "copy-made STRM-4")],
    # The host copies are compact legacy NumPy 1.24 exports: NULL strides, 2 dimensions or more.
    "null-strides-column-major": [("f32_2x3/device=cpu", "wrong-data LAY-5"),
                                  ("f32_T/device=cpu", "wrong-data LAY-5"),
                                  ("f32_step/device=cpu", "wrong-data LAY-5")],
}
DEVICE_VARIANTS = ("", "/device=cpu", "/device=cpu,copy=False")
# device-exporter with a host copy under copy=False too: the importers that pass copy=False on
# import it (the exporter's producer-violation); these three never pass it on.
COPYING_EXPORTER = "device-exporter-copies-for-copy-false@1"
COPYING_EXPORTER_EXPECTED = {"host-copy-drops-copy": "copy-made STRM-4",
                             "refuses-device-with-value-error": "none", "no-host-copy": "none",
                             # its misreading of the compact copy is seen first
                             "null-strides-column-major": "wrong-data LAY-5"}


def device_expected_of(importer, case):
    for pattern, want in DEVICE_EXPECTED.get(importer, []):
        if fnmatch.fnmatchcase(case, pattern):
            return want
    return "none"


# Pairs each importer must meet at least.
MUST_MEET = ("f32_2x3", "f32_offset", "f32_reversed", "f32_broadcast", "f32_scalar",
             "f32_zero_size", "i64_7")


def expected_of(importer, tensor):
    for pattern, want in EXPECTED[importer]:
        if fnmatch.fnmatchcase(tensor, pattern):
            return want
    return "none"


def main():
    seen = planted_matrix.run("planted_importers.py", "pairs/*")
    if seen is None:
        return 1
    failures = 0
    for importer in EXPECTED:
        prefix = f"pairs/module/{EXPORTER}/{importer}@1/"
        rows = {cid[len(prefix):]: case for cid, case in seen.items() if cid.startswith(prefix)}
        for tensor in MUST_MEET:
            if tensor not in rows:
                failures += 1
                print(f"FAIL {importer} {tensor}: expected the pair but found none")
        caught = 0
        for tensor, case in sorted(rows.items()):
            want = expected_of(importer, tensor)
            got = planted_matrix.verdict(case)
            ok = got == want and case["verdict"] != "skip"
            caught += ok and want != "none"
            failures += not ok
            if not ok or want != "none":
                print(f"{'ok  ' if ok else 'FAIL'} {importer} {tensor}: expected {want}, found "
                      f"{got} ({case['verdict']})")
        print(f"{importer}: {len(rows)} pairs, {caught} caught as expected")
    for importer in EXPECTED:
        for tensor in DEVICE_TENSORS:
            for variant in DEVICE_VARIANTS:
                case = tensor + variant
                failures += planted_matrix.checked(
                    f"{importer} {DEVICE_EXPORTER} {case}", device_expected_of(importer, case),
                    seen.get(f"pairs/module/{DEVICE_EXPORTER}/{importer}@1/{case}"))
        # The exporter that copies under copy=False: its fault wherever copy=False reached it.
        case = "f32_2x3/device=cpu,copy=False"
        want = COPYING_EXPORTER_EXPECTED.get(importer, "producer-violation STRM-4")
        failures += planted_matrix.checked(
            f"{importer} {COPYING_EXPORTER} {case}", want,
            seen.get(f"pairs/module/{COPYING_EXPORTER}/{importer}@1/{case}"))
    others = [cid for cid in seen if not cid.startswith((f"pairs/module/{EXPORTER}/",
                                                         f"pairs/module/{DEVICE_EXPORTER}/",
                                                         f"pairs/module/{COPYING_EXPORTER}/"))]
    if others:
        failures += 1
        print(f"FAIL: expected aligned-exporter and device-exporter as the only exporters but "
              f"found {others[0]}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
