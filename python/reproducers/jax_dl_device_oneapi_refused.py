# finding: jax STRM-3 wrong-refusal-exception: a JAX GPU array's __dlpack__(dl_device=(14, 0)) refuses a oneAPI device it cannot export to with RuntimeError ("Unknown backend oneapi") instead of BufferError
# env: gpu
# expect: raises RuntimeError: Unknown backend oneapi
import jax
jax.device_put(jax.numpy.ones(4), jax.devices("gpu")[0]).__dlpack__(max_version=(1, 3), dl_device=(14, 0))
