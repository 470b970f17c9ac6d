#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets, one file per case it exercises.

The tensor targets read a TensorInput (fuzz/tensor_input.hpp): fields taken from the END of the
input, most stored as a difference from a valid float32 CPU scalar of DLPack 1.3, so that missing
bytes read as that default. encode() mirrors dlc_fuzz::encode (FuzzWriter) exactly; the test
fuzz-input-roundtrip checks that the C++ decoder reads what this writes.

  tools/fuzz-seeds.py [CORPUS_DIR]     (default: corpus/ of this checkout)
  tools/fuzz-seeds.py --host-device TYPE:ID DIR
                                       the tensor targets' seeds alone, into DIR/<target>/, with
                                       TYPE:ID (2:0: CUDA) where a seed names no device"""
import argparse
import os
import struct
import sys

SHAPE_NULL, STRIDES_NULL, DATA_NULL, DELETER_NULL, LEGACY_STRUCT = 1, 2, 4, 8, 16
INT64_MAX = 2**63 - 1
MAX_EXPLICIT_DIMS = 64


def wrap(value, bits):
    return value & ((1 << bits) - 1)


def record(major=1, minor=3, flags=0, device=(1, 0), dtype=(2, 32, 1), shape=(), strides=None,
           options=0, byte_offset=0, misalign=0, ndim=None):
    ndim = len(shape) if ndim is None else ndim
    if strides is None:
        strides, acc = [], 1
        for extent in reversed(shape):
            strides.insert(0, acc)
            acc *= max(extent, 1)
    fields = [("B", options), ("I", wrap(major - 1, 32)), ("I", wrap(minor - 3, 32)),
              ("Q", wrap(flags, 64)), ("I", wrap(device[0] - 1, 32)), ("I", wrap(device[1], 32)),
              ("B", wrap(dtype[0] - 2, 8)), ("B", wrap(dtype[1] - 32, 8)),
              ("H", wrap(dtype[2] - 1, 16)), ("I", wrap(ndim, 32)), ("Q", wrap(byte_offset, 64)),
              ("B", misalign)]
    for i in range(max(0, min(ndim, MAX_EXPLICIT_DIMS))):
        extent = shape[i] if i < len(shape) else 1
        stride = strides[i] if i < len(strides) else 1
        fields += [("Q", wrap(extent - 1, 64)), ("Q", wrap(stride - 1, 64))]
    forward = b"".join(struct.pack("<" + f, v) for f, v in fields)
    return forward[::-1].lstrip(b"\0")


def tensor_seeds(default_device=(1, 0)):
    """The tensor targets' seeds; `default_device` is the device of every seed that names none
    (the GPU run's fuzz stage puts them on CUDA: tools/gpu-check)."""
    def r(**fields):
        fields.setdefault("device", default_device)
        return record(**fields)

    return {
        "compact_f32_8x8": r(shape=(8, 8)),
        "transposed_f64": r(dtype=(2, 64, 1), shape=(8, 4), strides=(1, 8)),
        "byte_offset_i16": r(dtype=(0, 16, 1), shape=(128,), byte_offset=64),
        "ndim0_null_shape": r(shape=(), options=SHAPE_NULL | STRIDES_NULL),
        "zero_size_null_data": r(shape=(0, 4), options=DATA_NULL),
        "null_strides_v1_1": r(minor=1, shape=(4, 4), options=STRIDES_NULL),
        "null_strides_v1_3": r(shape=(4, 4), options=STRIDES_NULL),
        "negative_strides": r(shape=(8, 8), strides=(-8, 1)),
        # a reversed view, x[::-1]: torch 1.13's importer aborts on any negative stride
        "flipped_1d": r(shape=(16,), strides=(-1,)),
        "broadcast_zero_stride": r(shape=(8, 8), strides=(0, 1)),
        "read_only": r(flags=1, shape=(8, 8)),
        "unknown_flag_bits": r(flags=1 << 40, shape=(4,)),
        "future_major": r(major=2, minor=0, shape=(4,)),
        # no release has a versioned struct of major 0: a consumer of 1.x refuses any major but 1
        # (VER-2); NumPy checks major > 1 only and reads it as 1.x
        "past_major": r(major=0, minor=9, shape=(4,)),
        "future_minor_unknown_dtype": r(minor=99, dtype=(42, 32, 1), shape=(4,)),
        "unknown_dtype": r(dtype=(99, 32, 1), shape=(4,)),
        "fp4_with_8_bits": r(dtype=(17, 8, 1), shape=(16,)),
        "fp4_packed": r(dtype=(17, 4, 1), shape=(64,)),
        "zero_lanes": r(dtype=(2, 32, 0), shape=(4,)),
        "cuda_device": r(device=(2, 0), shape=(8, 8)),
        "cpu_device_id_3": r(device=(1, 3), shape=(4,)),
        # libtorch 1.13 calls the deleter while it throws on a device it cannot hold
        "opencl_device": r(device=(4, 0), shape=(8, 8)),
        # a oneAPI tensor whose pointer no SYCL context knows: dpnp must refuse it unread (DEV-3)
        "oneapi_device": r(device=(14, 0), shape=(8, 8)),
        "ndim_40_arrays_of_8": r(shape=(1,) * 8, ndim=40),
        "negative_ndim": r(ndim=-1),
        "overflowing_shape": r(shape=(INT64_MAX, 4)),
        "negative_extent": r(shape=(-1, 4)),
        "null_shape_ndim2": r(shape=(2, 2), options=SHAPE_NULL),
        "null_deleter": r(shape=(4,), options=DELETER_NULL),
        "misaligned_data": r(shape=(8, 8), misalign=3),
        "f32x4_lanes": r(dtype=(2, 32, 4), shape=(4, 4)),
        "int8x2_lanes_odd_size": r(dtype=(0, 8, 2), shape=(7,)),
        "ndim_12_compact": r(shape=(1, 2) * 6),
        "ndim_12_null_data": r(shape=(1, 2) * 6, options=DATA_NULL),
        "shape_product_over_int32": r(shape=(65536, 65536), device=(2, 0)),
        "byte_offset_odd": r(dtype=(0, 8, 1), shape=(33,), byte_offset=5),
        # found by the soak in the README's example adapter, which took a 0-bit dtype (DT-1)
        "zero_bits_dtype": r(dtype=(2, 0, 1), shape=(16,)),
        # also found in the example adapter: a count that fits int64 but whose bytes do not, and a
        # stride whose reach overflows
        "bytes_overflow_int64": r(shape=(INT64_MAX, 1)),
        "huge_stride": r(shape=(2, 2), strides=(INT64_MAX, 1)),
        # an extent-1 dimension may carry any stride (LAY-8): Arrow overflows on this one
        "extent_one_huge_stride": r(shape=(2, 1), strides=(1, INT64_MAX)),
    }


SEEDS = tensor_seeds()


def ask(producer, major=None, minor=0):
    """A negotiate_version_fuzzer input: producer index, then max_version or none."""
    if major is None:
        return bytes([producer, 0])
    return bytes([producer, 1]) + struct.pack("<II", major, minor)


NEGOTIATION = {f"{p}_{name}": ask(i, *args) for i, p in enumerate(
    ["v1_0", "v1_1", "v1_2", "v1_3", "future_minor"])
    for name, args in (("none", ()), ("max_0_8", (0, 8)), ("max_1_0", (1, 0)),
                       ("max_1_3", (1, 3)), ("max_2_0", (2, 0)), ("max_1_99", (1, 99)))}


def protocol(signature=0, answer=0, when=0, exception=0, device=0, tensor=0, versioned=0):
    """A python_protocol_fuzzer input: one row of each of dlconform_fuzz_importer's
    PROTOCOL_TABLES, the tensor and the struct kind (fuzz/python_protocol_fuzzer.cpp)."""
    return bytes([signature, answer, when, exception, device, tensor, versioned])


# Each row of each table alone, beside the conformant rows (table lengths: 6 signatures, 10
# answers of __dlpack__, 2 times, 12 exceptions, 20 answers of __dlpack_device__); the tensor
# and the struct kind vary with the row.
PROTOCOL = {}
for table, rows in (("signature", 6), ("answer", 10), ("when", 2), ("exception", 12),
                    ("device", 20)):
    for row in range(rows):
        picks = {table: row, "tensor": row % 6, "versioned": row % 2}
        if table == "exception":
            picks["answer"] = 9  # __dlpack__ raises it
        if table == "when":
            picks["answer"] = 4  # None, on the first call or on every call
        PROTOCOL[f"{table}_{row}"] = protocol(**picks)


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name + ".bin"), "wb") as out:
        out.write(data)


def main(root):
    for target in ("negotiate_version_fuzzer", "import_versioned_fuzzer", "import_legacy_fuzzer",
                   "differential_fuzzer"):
        os.makedirs(os.path.join(root, target, "regressions"), exist_ok=True)
    for name, data in NEGOTIATION.items():
        write(os.path.join(root, "negotiate_version_fuzzer", "seeds"), name, data)
    os.makedirs(os.path.join(root, "python_protocol_fuzzer", "regressions"), exist_ok=True)
    for name, data in PROTOCOL.items():
        write(os.path.join(root, "python_protocol_fuzzer", "seeds"), name, data)
    for name, data in SEEDS.items():
        write(os.path.join(root, "import_versioned_fuzzer", "seeds"), name, data)
        versioned_only = name.startswith(("future_", "past_major", "read_only", "unknown_flag",
                                           "null_strides_v1_3"))
        if not versioned_only:
            write(os.path.join(root, "import_legacy_fuzzer", "seeds"), name, data)
        # The differential target reads both struct kinds: every seed in each.
        write(os.path.join(root, "differential_fuzzer", "seeds"), name, data)
        if not versioned_only:
            legacy = record_as_legacy(data)
            write(os.path.join(root, "differential_fuzzer", "seeds"), "legacy_" + name, legacy)


def record_as_legacy(data):
    """The same input with the kLegacyStruct bit set (the layout byte is taken first: last)."""
    data = bytearray(data) if data else bytearray(b"\0")
    data[-1] |= LEGACY_STRUCT
    return bytes(data)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", nargs="?",
                        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus"),
                        help="the corpus folder to write corpus/<target>/seeds/ into")
    parser.add_argument("--print", metavar="SEED", help="print the bytes of one seed as hex and exit")
    parser.add_argument("--host-device", metavar="TYPE:ID",
                        help="write the tensor seeds alone, on this device where they name none")
    args = parser.parse_args()
    if args.host_device:
        try:
            device = tuple(int(x) for x in args.host_device.split(":"))
        except ValueError:
            device = ()
        if len(device) != 2 or min(device) < 0:
            sys.exit(f"fuzz-seeds.py: expected --host-device TYPE:ID such as 2:0 but found "
                     f"'{args.host_device}'")
        for name, data in tensor_seeds(device).items():
            for target in ("import_versioned_fuzzer", "import_legacy_fuzzer"):
                write(os.path.join(args.corpus, target), name, data)
        sys.exit(0)
    if args.print:
        data = SEEDS.get(args.print, NEGOTIATION.get(args.print, PROTOCOL.get(args.print)))
        if data is None:
            sys.exit(f"fuzz-seeds.py: expected a seed name such as compact_f32_8x8 but found "
                     f"'{args.print}'")
        print(data.hex())
        sys.exit(0)
    main(args.corpus)
