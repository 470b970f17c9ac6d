# finding: pyarrow DEV-3 wrong-refusal-exception: pyarrow.Tensor.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with ArrowNotImplementedError instead of BufferError
# env: oneapi
# expect: raises ArrowNotImplementedError: DLPack support is implemented only for buffers on CPU device
import pyarrow
from dlconform_capsule import Producer
pyarrow.Tensor.from_dlpack(Producer("f32", [4], device=(14, 0)))
