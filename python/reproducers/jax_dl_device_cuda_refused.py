# finding: jax STRM-3 wrong-refusal-exception: a CPU jax.Array's __dlpack__(dl_device=(2, 0)) refuses a CUDA device it cannot export to with RuntimeError ("Unknown backend cuda") instead of BufferError
# env: frameworks latest
# expect: raises RuntimeError: Unknown backend cuda
import jax
jax.numpy.ones(4).__dlpack__(max_version=(1, 3), dl_device=(2, 0))
