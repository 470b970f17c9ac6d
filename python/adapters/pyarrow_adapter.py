"""pyarrow: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import Unsupported, Framework, numpy_view


class PyArrow(Framework):
    views = ("T", "step", "offset", "broadcast")
    name = "pyarrow"
    dtypes = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "float32", "float64"]
    strides = "positive zero"
    # A pyarrow.Tensor has no write operation, but Arrow calls one made from writable memory
    # mutable (Tensor.is_mutable) and exports READ_ONLY exactly when it is not: the immutable
    # arrays are the ones made from read-only memory (read_only below).
    immutable = False

    def from_np(self, array):
        return self.module.Tensor.from_numpy(array.copy())

    def read_only(self, value):
        array = value.to_numpy().copy()
        array.flags.writeable = False
        tensor = self.module.Tensor.from_numpy(array)
        assert not tensor.is_mutable, "Arrow calls a tensor of read-only memory immutable"
        return tensor

    def view(self, value, kind):
        arr = value.to_numpy()
        if kind in ("T", "step", "offset", "broadcast"):
            return self.module.Tensor.from_numpy(numpy_view(self.np, arr, kind))
        raise Unsupported(kind)

    def import_(self, obj, **keywords):
        return self.module.Tensor.from_dlpack(obj, **keywords)

    def to_np(self, value):
        return value.to_numpy()

    def unexpressible(self):
        pa = self.module
        return {"nulls": ("an Array with a null", lambda: pa.array([1.0, None], pa.float32())),
                "booleans": ("an Array of bit-packed booleans",
                             lambda: pa.array([True, False, True]))}
