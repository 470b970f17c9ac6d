"""array_api_strict: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import Framework, numpy_header, sliced_view


class ArrayApiStrict(Framework):
    views = ("T", "step", "offset", "broadcast")
    name = "array_api_strict"
    dtypes = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float32", "float64", "complex64", "complex128", "bool"]
    strides = "positive negative zero overlapping"
    features = "read-only zero-dim zero-size misaligned"

    def from_np(self, array):
        return self.module.asarray(array)

    def view(self, value, kind):
        xp = self.module
        return sliced_view(value, kind, xp.broadcast_to,
                           transpose=lambda v: xp.permute_dims(v, (1, 0)), reverse=None)

    def to_np(self, value):
        return self.np.from_dlpack(value)

    def writable(self, value):
        return bool(self.np.from_dlpack(value).flags.writeable)

    def header(self):
        return numpy_header(self.np)  # it imports through NumPy
