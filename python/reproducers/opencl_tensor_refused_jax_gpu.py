# finding: jax DEV-3 wrong-refusal-exception: jax.dlpack.from_dlpack with CUDA installed refuses an OpenCL tensor with TypeError ("unsupported device type"), the v0.7 and v0.8 advice, where python_spec.rst v1.0 to v1.3 recommends BufferError
# env: gpu
# expect: raises TypeError: Array passed to from_dlpack is on unsupported device type
import jax
from dlconform_capsule import Producer
jax.dlpack.from_dlpack(Producer("f32", [4], device=(4, 0)))
