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
