"""JAX on CUDA: an adapter of the interface in dlconform_adapter.py for JAX's arrays on its first
GPU (kDLCUDA), judged on a GPU machine (tools/gpu-check passes it with --adapter). What JAX makes,
views and imports is the built-in host adapter's (adapters/jax_adapter.py); only where its arrays
live differs. JAX arrays are immutable."""
from dlconform_adapter import builtin_adapter

Jax = builtin_adapter("jax", "Jax")


class JaxCUDA(Jax):
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

    def cpu_device(self):
        import jax
        return jax.devices("cpu")[0]

    def own_device(self):
        self.start()
        return self.gpu
