#!/usr/bin/env python3
"""A Python importer's framework rows (a mock producer's tensors, CUDA and OpenCL stand-ins) are
judged: each planted importer of planted_importers.py is caught with its class and rule on the
tensors it gets wrong, and on no other; the correct importer has no finding at all, and every
importer takes the rows' tensors (none is left out as n/a but the producers' own refusals).

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import fnmatch
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402

WINDOWS = "view/nd*/window*/f32"
SCALARS = ("*scalar*", "view/nd0/*")  # the 0-d tensors of the rows
API = "from_capsule"  # the capsule API of capsule-api-keeps-name
# What every planted importer's take() refuses (BufferError), by device or dtype.
REFUSED_BY_TAKE = ("device_cuda", "device_opencl", "dtype_bf16", "dtype_f32x4_lanes",
                   "dtype_f4_with_8_bits", "dtype_f6_with_8_bits", "dtype_opaque64",
                   "dtype_unknown_code_99", "dtype_zero_lanes")
# What a legacy producer refuses to export (skipped rows).
PRODUCER_REFUSES = ("dtype_f4_padded", "f32_8x8_read_only")
TAKERS = ("legacy-producer@*", "versioned-producer@*")  # a major-2 struct is refused first
# Every importer: a CPU tensor with device_id 3 taken and read right is an INFO note (DEV-2 binds
# the producer only).
COMMON = {f"{producer}/device_cpu_id_3": "producer-rule-accepted DEV-2" for producer in TAKERS}
# planted importer -> {glob over PRODUCER/TENSOR: "class RULE"}; every other row passes or is
# the same skip for all four (a producer that refuses its own tensor).
EXPECTED = {
    "correct-importer": {},
    "caps-ndim-8": {f"{producer}/f32_ndim20": "rejected-valid LAY-1" for producer in TAKERS},
    "refuses-device-with-value-error": {"*/device_cuda": "wrong-refusal-exception DEV-3",
                           "*/device_opencl": "wrong-refusal-exception DEV-3"},
    # Every bfloat16 tensor read as IEEE float16: the array says float16 (another dtype than the
    # producer made: LAY-1, as MLX's float64 read as float32 is named).
    "bfloat16-as-float16": {f"{producer}/{tensor}": "wrong-metadata LAY-1"
                            for producer in TAKERS for tensor in ("dtype_bf16", "view/*/bf16")},
    # Every tensor whose first element is reached through byte_offset.
    "ignores-byte-offset": {f"{producer}/{tensor}": "wrong-data LAY-4"
                            for producer in TAKERS for tensor in ("i16_128_byte_offset", WINDOWS)},
    # NULL strides come from producers before DLPack 1.2 only.
    "null-strides-column-major": {f"{producer}/f32_8x8_null_strides": "wrong-data LAY-5"
                                  for producer in ("legacy-producer@*", "versioned-producer@v1.0")},
    # Its capsule API's rows: every tensor it takes keeps its name; the same capsule handed again
    # is taken again (a second deleter call). from_dlpack renames: its rows pass.
    "capsule-api-keeps-name": dict(
        {f"*/{API}/{tensor}": "none" for tensor in REFUSED_BY_TAKE + PRODUCER_REFUSES},
        **{f"*/{API}/used-capsule/*": "deleter-called-twice LIFE-3",
           f"*/{API}/*": "capsule-not-renamed LIFE-1"}),
    # Its 0-d imports: the rename seen without the capsule's end (its destructor cleared).
    "scalar-copy-leaks": {f"{producer}/{tensor}": "deleter-never-called LIFE-3"
                          for producer in TAKERS for tensor in SCALARS},
    # Its arrays only say another device: every row reads right (the device case is
    # importer_devices_test's).
    "import-on-other-device": {},
}
# Rows each planted importer must meet at least (the matrix plans them for every importer).
MUST_MEET = ("versioned-producer@v1.3/f32_ndim20", "versioned-producer@v1.3/device_cuda",
             "versioned-producer@v1.3/i16_128_byte_offset", "legacy-producer@v0.6/f32_8x8")


def rows_of(seen, importer):
    """{PRODUCER/TENSOR: case} of one importer's framework rows."""
    out = {}
    for case_id, case in seen.items():
        parts = case_id.split("/", 4)  # framework/module/PRODUCER/IMPORTER/TENSOR
        if len(parts) == 5 and parts[3] == f"{importer}@1":
            out[f"{parts[2]}/{parts[4]}"] = case
    return out


def expected_of(importer, row):
    for pattern, want in list(EXPECTED[importer].items()) + list(COMMON.items()):
        if fnmatch.fnmatchcase(row, pattern):
            return want
    return "none"


def main():
    seen = planted_matrix.run("planted_importers.py", "framework/*")
    if seen is None:
        return 1
    failures = 0
    skipped = {imp: {r for r, c in rows_of(seen, imp).items() if c["verdict"] == "skip"}
               for imp in EXPECTED}
    for importer in EXPECTED:
        rows = rows_of(seen, importer)
        for row in MUST_MEET:
            if row not in rows:
                failures += 1
                print(f"FAIL {importer} {row}: expected the row but found none")
        caught = 0
        for row, case in sorted(rows.items()):
            want = expected_of(importer, row)
            got = planted_matrix.verdict(case)
            if f"/{API}/" in row:  # skipped only where the producer refused the tensor itself
                same_skips = row.replace(f"{API}/", "") in skipped["correct-importer"]
            else:
                same_skips = {r for r in skipped[importer] if f"/{API}/" not in r} == \
                    skipped["correct-importer"]
            ok = got == want and (case["verdict"] != "skip" or same_skips)
            caught += want != "none" and want not in COMMON.values() and ok
            failures += not ok
            if not ok or want != "none":
                print(f"{'ok  ' if ok else 'FAIL'} {importer} {row}: expected {want}, found {got}")
        print(f"{importer}: {len(rows)} rows, {caught} caught as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
