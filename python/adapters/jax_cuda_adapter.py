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

    # pending_write's jitted computation, made at its first use.
    slow_copy = None

    def pending_write(self, array):
        """`array`'s values on the GPU, computed behind about 0.1 s of device work: 50 products
        of 4096 x 4096 float32 matrices at full precision, whose result enters the output times
        0. JAX dispatches the computation and returns at once, so the values are pending until
        it ends. The output takes over a buffer of -1 (donated), which is what a read before the
        write sees. Prepared on 2026-11-30 and not yet run on a GPU."""
        import jax
        import jax.numpy as jnp
        self.start()
        if self.slow_copy is None:
            def slow_copy(target, source, seed):
                def step(_, m):
                    return jnp.tanh(jnp.matmul(m, m, precision=jax.lax.Precision.HIGHEST))
                spun = jax.lax.fori_loop(0, 50, step, seed)
                return target * 0 + source + 0 * spun[0, 0].astype(source.dtype)
            self.slow_copy = jax.jit(slow_copy, donate_argnums=0)
        np = self.np
        source = jax.device_put(array, self.gpu)
        target = jax.device_put(np.full(array.shape, -1, array.dtype), self.gpu)
        seed = jax.device_put(np.full((4096, 4096), 0.5, "float32"), self.gpu)
        jax.block_until_ready((source, target, seed))
        return self.slow_copy(target, source, seed)
