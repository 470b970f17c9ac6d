# finding: cupy DEV-3 wrong-refusal-exception: cupy.from_dlpack refuses an OpenCL tensor with TypeError ("Unsupported array type"), the v0.7 and v0.8 advice, where python_spec.rst v1.0 to v1.3 recommends BufferError
# env: gpu
# expect: raises TypeError: Unsupported array type
import cupy
from dlconform_capsule import Producer
cupy.from_dlpack(Producer("f32", [4], device=(4, 0)))
