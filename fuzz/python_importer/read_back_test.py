#!/usr/bin/env python3
"""The read-back of an oversize import converts only its leading corner: an accepted invalid
tensor of 2^33 elements (a zero-stride view here whose conversion copies all of it, as JAX and
torch import NULL data without copying and convert by copying) is read back with its full shape
and at most READ_BACK_LIMIT bytes, under an address space far smaller than the whole would need;
one that cannot be sliced is not read back. Converting all of it first, as the read-back once
did, asks for 64 GiB, a false out-of-memory finding of the harness. A small result is read whole.
A module judged by name (ModuleAdapter) reads a size-0 import with an extent of 2^31 - 1 beside
its 0 without indexing it: NumPy 2.4's ndindex makes a tuple of each extent's range first (17 GB
for that shape), a false out-of-memory finding of the harness on array-api-compat.

  read_back_test.py        (Debian's Python with its NumPy, and the frameworks environment's)"""
import os
import resource
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "..", "python")]
os.environ["DLCONFORM_PYTHON_MODULE"] = "numpy"
import dlconform_fuzz_importer as f  # noqa: E402


class CopiesOnConversion:
    """An imported array whose conversion to NumPy copies all of it, as a JAX array's and a
    broadcast torch tensor's do; slicing it is a view."""

    def __init__(self, view):
        self.view = view
        self.shape = view.shape

    def __getitem__(self, key):
        return CopiesOnConversion(self.view[key])

    def __array__(self, dtype=None, copy=None):
        return self.view.__array__().copy()  # the whole, contiguous


class Unsliceable(CopiesOnConversion):
    """One that cannot be sliced either, as TVM-FFI's tensors: converting it is the only way."""

    def __getitem__(self, key):
        raise TypeError("not subscriptable")


def main():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    importer = f.Importer()
    np = importer.np
    failures = []
    huge = CopiesOnConversion(np.broadcast_to(np.float64(1.5), (2, 1 << 32, 1)))
    try:
        code, bits, lanes, shape, on_host, data = importer.read(huge, ((2, 64, 1), 3))
    except MemoryError as e:
        print(f"FAIL expected the corner converted but the whole was: {e}")
        return 1
    if shape != (2, 1 << 32, 1) or not 0 < len(data) <= f.READ_BACK_LIMIT or \
            (code, bits, lanes) != (2, 64, 1):
        failures.append(f"expected the full shape, float64 and at most {f.READ_BACK_LIMIT} bytes "
                        f"but found {shape}, {(code, bits, lanes)} and {len(data)} bytes")
    unsliceable = Unsliceable(np.broadcast_to(np.float32(1), (1 << 31,)))
    try:
        answer = importer.read(unsliceable, ((2, 32, 1), 1))
    except MemoryError as e:
        answer = f"the whole converted: {e}"
    if answer != f.NOT_READ:
        failures.append(f"expected an oversize result that cannot be sliced left unread but "
                        f"found {answer if isinstance(answer, str) else answer[:5]}")
    module = f.dlc.ModuleAdapter("numpy")
    module.start()
    empty = np.zeros((0, (1 << 31) - 1, 0, (1 << 31) - 1), "int16")
    try:
        read = module.to_np(empty)
        if read.shape != empty.shape:
            failures.append(f"expected a size-0 result of shape {empty.shape} but found "
                            f"{read.shape}")
    except MemoryError as e:
        failures.append(f"expected a size-0 result read without indexing but found a "
                        f"MemoryError{(': ' + str(e)) if str(e) else ''} (NumPy {np.__version__})")
    small = np.arange(12, dtype="int16").reshape(3, 4)
    _, _, _, shape, _, data = importer.read(small, ((0, 16, 1), 2))
    if shape != (3, 4) or data != small.tobytes():
        failures.append(f"expected a small result read whole but found {shape}, {len(data)} bytes")
    for failure in failures:
        print(f"FAIL {failure}")
    print("ok" if not failures else "")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
