# finding: paddle DEV-3 crash: paddle.from_dlpack segfaults (in paddle::platform::get_current_stream) on an array whose __dlpack_device__ says CUDA, in a CPU-only build, instead of refusing it
# env: frameworks
# expect: SIGSEGV
import paddle
from dlconform_capsule import Producer
paddle.from_dlpack(Producer("f32", (8, 8), device=(2, 0)))
