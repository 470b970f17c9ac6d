"""jax: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, NARROW_FLOATS, Framework, sliced_view


class Jax(Framework):
    views = ("T", "step", "reversed", "offset", "broadcast")
    name = "jax"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64", "complex128"]
    strides = ""  # documented: compact layouts and their transpositions only
    writable_concept = False
    immutable = True

    def __init__(self):
        super().__init__()
        import jax.numpy as jnp
        import jax.dlpack
        self.jnp = jnp
        self.dlpack = jax.dlpack

    def start(self):
        if not self.started:  # 64-bit types as 64-bit types, not silently 32-bit
            import jax
            jax.config.update("jax_enable_x64", True)
        self.started = True

    def from_np(self, array):
        return self.jnp.asarray(array)

    def view(self, value, kind):
        return sliced_view(value, kind, self.jnp.broadcast_to)

    def import_(self, obj, **keywords):
        return self.dlpack.from_dlpack(obj, **keywords)

    def to_np(self, value):
        return self.np.asarray(value)

    def writable(self, value):
        return False  # jax arrays are immutable

    def narrow_floats(self):
        import ml_dtypes  # a dependency of JAX: its narrow floats are ml_dtypes' types
        return {name: (dtype, lambda codes, t=getattr(ml_dtypes, name):
                       self.jnp.asarray(codes.view(t)))
                for name, dtype in NARROW_FLOATS.items()
                if hasattr(ml_dtypes, name) and hasattr(self.jnp, name)}
