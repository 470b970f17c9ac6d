#!/usr/bin/env python3
"""Writes the hand-made seeds of the import fuzzers, one file per case it exercises.

The record layout is FuzzRecord in fuzz/import_fuzzer.cpp (little-endian, packed)."""
import os
import struct
import sys

FMT = "<IIQiiBBHiBBHQ8q8q"
SHAPE_NULL, STRIDES_NULL, DATA_NULL, DELETER_NULL = 1, 2, 4, 8
INT64_MAX = 2**63 - 1


def record(major=1, minor=3, flags=0, device=(1, 0), dtype=(2, 32, 1), shape=(), strides=None,
           options=0, byte_offset=0, misalign=0, ndim=None):
    ndim = len(shape) if ndim is None else ndim
    if strides is None:
        strides, acc = [], 1
        for extent in reversed(shape):
            strides.insert(0, acc)
            acc *= max(extent, 1)
    pad = lambda values: list(values) + [0] * (8 - len(values))
    return struct.pack(FMT, major, minor, flags, device[0], device[1], dtype[0], dtype[1],
                       dtype[2], ndim, options, misalign, 0, byte_offset, *pad(shape),
                       *pad(strides))


SEEDS = {
    "compact_f32_8x8": record(shape=(8, 8)),
    "transposed_f64": record(dtype=(2, 64, 1), shape=(8, 4), strides=(1, 8)),
    "byte_offset_i16": record(dtype=(0, 16, 1), shape=(128,), byte_offset=64),
    "ndim0_null_shape": record(shape=(), options=SHAPE_NULL | STRIDES_NULL),
    "zero_size_null_data": record(shape=(0, 4), options=DATA_NULL),
    "null_strides_v1_1": record(minor=1, shape=(4, 4), options=STRIDES_NULL),
    "null_strides_v1_3": record(shape=(4, 4), options=STRIDES_NULL),
    "negative_strides": record(shape=(8, 8), strides=(-8, 1)),
    "broadcast_zero_stride": record(shape=(8, 8), strides=(0, 1)),
    "read_only": record(flags=1, shape=(8, 8)),
    "unknown_flag_bits": record(flags=1 << 40, shape=(4,)),
    "future_major": record(major=2, minor=0, shape=(4,)),
    "future_minor_unknown_dtype": record(minor=99, dtype=(42, 32, 1), shape=(4,)),
    "unknown_dtype": record(dtype=(99, 32, 1), shape=(4,)),
    "fp4_with_8_bits": record(dtype=(17, 8, 1), shape=(16,)),
    "fp4_packed": record(dtype=(17, 4, 1), shape=(64,)),
    "zero_lanes": record(dtype=(2, 32, 0), shape=(4,)),
    "cuda_device": record(device=(2, 0), shape=(8, 8)),
    "cpu_device_id_3": record(device=(1, 3), shape=(4,)),
    "ndim_40_arrays_of_8": record(shape=(1,) * 8, ndim=40),
    "negative_ndim": record(ndim=-1),
    "overflowing_shape": record(shape=(INT64_MAX, 4)),
    "negative_extent": record(shape=(-1, 4)),
    "null_shape_ndim2": record(shape=(2, 2), options=SHAPE_NULL),
    "null_deleter": record(shape=(4,), options=DELETER_NULL),
    "misaligned_data": record(shape=(8, 8), misalign=3),
}


def ask(producer, major=None, minor=0):
    """A negotiate_version_fuzzer input: producer index, then max_version or none."""
    if major is None:
        return bytes([producer, 0])
    return bytes([producer, 1]) + struct.pack("<II", major, minor)


NEGOTIATION = {f"{p}_{name}": ask(i, *args) for i, p in enumerate(
    ["v1_0", "v1_1", "v1_2", "v1_3", "future_minor"])
    for name, args in (("none", ()), ("max_0_8", (0, 8)), ("max_1_0", (1, 0)),
                       ("max_1_3", (1, 3)), ("max_2_0", (2, 0)), ("max_1_99", (1, 99)))}


def main(root):
    seeds = os.path.join(root, "negotiate_version_fuzzer", "seeds")
    os.makedirs(seeds, exist_ok=True)
    os.makedirs(os.path.join(root, "negotiate_version_fuzzer", "regressions"), exist_ok=True)
    for name, data in NEGOTIATION.items():
        with open(os.path.join(seeds, name + ".bin"), "wb") as out:
            out.write(data)
    for target, legacy in (("import_versioned_fuzzer", False), ("import_legacy_fuzzer", True)):
        seeds = os.path.join(root, target, "seeds")
        os.makedirs(seeds, exist_ok=True)
        os.makedirs(os.path.join(root, target, "regressions"), exist_ok=True)
        for name, data in SEEDS.items():
            if legacy and name.startswith(("future_", "read_only", "unknown_flag", "null_strides_v1_3")):
                continue  # a legacy struct has no version or flags
            with open(os.path.join(seeds, name + ".bin"), "wb") as out:
                out.write(data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "corpus"))
