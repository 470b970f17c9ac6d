# finding: paddle DEV-3 wrong-refusal-exception: paddle.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with NotImplementedError instead of BufferError
# env: oneapi
# expect: raises NotImplementedError: \(Unimplemented\) Given Place is not supported
import paddle
from dlconform_capsule import Producer
paddle.from_dlpack(Producer("f32", [4], device=(14, 0)))
