# finding: jax DEV-3 wrong-refusal-exception: jax.dlpack.from_dlpack refuses a CUDA tensor on a CPU-only install with RuntimeError ("Unknown backend cuda") instead of BufferError
# env: frameworks latest
# expect: raises RuntimeError: Unknown backend cuda
import jax
from dlconform_capsule import Producer
jax.dlpack.from_dlpack(Producer("f32", [4], device=(2, 0)))
