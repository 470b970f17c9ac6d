# finding: paddle DEV-3 wrong-refusal-exception: paddle.from_dlpack refuses an OpenCL tensor with NotImplementedError instead of BufferError
# env: frameworks
# expect: raises NotImplementedError: \(Unimplemented\) Given Place is not supported
import paddle
from dlconform_capsule import Producer
paddle.from_dlpack(Producer("f32", [4], device=(4, 0)))
