"""mlx: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, Framework, as_dtype, sliced_view


class MLX(Framework):
    views = ("T", "step", "reversed", "offset", "broadcast")
    name = "mlx.core"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64"]
    writable_concept = False

    @property
    def label(self):
        import mlx
        return f"mlx@{getattr(mlx.core, '__version__', '?')}"

    @property
    def version(self):
        return str(getattr(self.module, "__version__", "?"))

    def from_np(self, array):
        return self.module.array(array)

    def view(self, value, kind):
        return sliced_view(value, kind, self.module.broadcast_to)

    def to_np(self, value):
        if value.dtype == self.module.bfloat16:  # numpy has no bfloat16 of its own
            return as_dtype(self.np.array(value.view(self.module.uint16)), "bfloat16")
        return self.np.array(value)

    def writable(self, value):
        return False
