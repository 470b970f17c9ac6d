# finding: jax STRM-4 wrong-refusal-exception: a JAX GPU array's __dlpack__(dl_device=(1, 0), copy=False) refuses the copy it would need with ValueError instead of BufferError
# env: gpu
# expect: raises ValueError: Specified device=CpuDevice\(id=0\) which requires a copy
import jax
jax.device_put(jax.numpy.ones(4), jax.devices("gpu")[0]).__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)
