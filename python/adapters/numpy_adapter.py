"""numpy: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, Framework, numpy_header, numpy_view, aligned


class NumPy(Framework):
    views = ("T", "step", "reversed", "offset", "broadcast", "read_only")
    name = "numpy"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "complex64", "complex128"]
    strides = "positive negative zero overlapping"
    features = "read-only zero-dim zero-size misaligned"

    def from_np(self, array):
        return aligned(self.np, array)  # a fresh array, at a fixed alignment

    def view(self, value, kind):
        return numpy_view(self.np, value, kind)

    def read_only(self, value):
        return numpy_view(self.np, value, "read_only")

    def writable(self, value):
        return bool(value.flags.writeable)

    def header(self):
        return numpy_header(self.np)

    def unexpressible(self):
        np = self.np

        def odd_strides():  # 5-byte steps over float32: no whole number of elements
            return np.ndarray((3,), "float32", buffer=np.zeros(16, "uint8"), strides=(5,))
        return {"datetime64": ("a datetime64 array", lambda: np.array(["2020-01-01"], "M8[D]")),
                "str": ("an array of strings", lambda: np.array(["ab", "cd"])),
                "object": ("an array of Python objects", lambda: np.array([1, "a"], object)),
                "big-endian": ("a float32 array of the other byte order",
                               lambda: np.arange(4, dtype=np.dtype("float32").newbyteorder())),
                "odd-byte-strides": ("byte strides that are no multiple of the itemsize",
                                     odd_strides)}
