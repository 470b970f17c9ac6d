# finding: jax STRM-2 producer-violation: __dlpack__(stream=-1), the value that asks for no synchronisation, fails with a CUDA error: JAX uses -1 as a stream handle (an export, or a BufferError if unsupported, is what the Array API allows)
# env: gpu
# expect: raises JaxRuntimeError: INTERNAL: CUDA error: .*INVALID_HANDLE
import jax.numpy as jnp
jnp.ones((2, 2)).__dlpack__(stream=-1)
