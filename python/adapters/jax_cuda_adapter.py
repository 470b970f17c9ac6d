"""JAX on CUDA: an adapter of the interface in dlconform_adapter.py for JAX's arrays on its first
GPU (kDLCUDA), judged on a GPU machine (tools/gpu-check passes it with --adapter). JAX arrays are
immutable."""
from dlconform_adapter import COMMON, Framework, sliced_view


class JaxCUDA(Framework):
    name = "jax"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64", "complex128"]
    strides = ""
    views = ("T", "step", "reversed", "offset", "broadcast")
    writable_concept = False
    immutable = True
    device = (2, 0)

    @property
    def label(self):
        return f"jax-cuda@{self.version}"

    def start(self):
        if not self.started:
            import jax
            jax.config.update("jax_enable_x64", True)
            try:
                self.gpu = jax.devices("gpu")[0]
            except RuntimeError as e:
                raise RuntimeError(f"no CUDA device: jax.devices('gpu'): {e}") from None
        self.started = True

    def from_np(self, array):
        self.start()
        import jax
        return jax.device_put(array, self.gpu)

    def view(self, value, kind):
        import jax.numpy as jnp
        return sliced_view(value, kind, jnp.broadcast_to)

    def import_(self, obj, **keywords):
        import jax.dlpack
        return jax.dlpack.from_dlpack(obj, **keywords)

    def to_np(self, value):
        return self.np.asarray(value)

    def cpu_device(self):
        import jax
        return jax.devices("cpu")[0]

    def own_device(self):
        self.start()
        return self.gpu

    def writable(self, value):
        return False
