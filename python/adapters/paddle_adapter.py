"""paddle: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, NARROW_FLOATS, Framework, as_dtype, sliced_view


class Paddle(Framework):
    views = ("T", "step", "offset", "broadcast")
    name = "paddle"
    dtypes = COMMON + ["bfloat16", "complex64", "complex128"]
    strides = "positive zero"
    writable_concept = False

    def __init__(self):
        super().__init__()
        import paddle.utils.dlpack
        self.legacy_exports = {"to_dlpack": paddle.utils.dlpack.to_dlpack}
        self.capsule_imports = {"utils.dlpack.from_dlpack": paddle.utils.dlpack.from_dlpack}

    def from_np(self, array):
        return self.module.to_tensor(array)

    def view(self, value, kind):
        p = self.module
        return sliced_view(value, kind, p.expand, transpose=lambda v: p.transpose(v, [1, 0]),
                           reverse=None)

    def to_np(self, value):
        # numpy() hands bfloat16 and float8 out as same-sized integers; the bytes are right.
        # The stored dtype's name, not its str(): Paddle prints a true uint16 as
        # "paddle.bfloat16" (DataType.UINT16 and the old VarType.BF16 share a printed name).
        name = getattr(value.dtype, "name", None)
        return as_dtype(value.numpy(), name.lower() if isinstance(name, str) else
                        str(value.dtype).split(".")[-1])

    def writable(self, value):
        return True

    def narrow_floats(self):
        paddle = self.module
        return {name: (dtype, lambda codes, t=getattr(paddle, name):
                       paddle.to_tensor(codes).view(t))
                for name, dtype in NARROW_FLOATS.items() if hasattr(paddle, name)}
