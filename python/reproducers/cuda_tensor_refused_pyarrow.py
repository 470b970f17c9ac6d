# finding: pyarrow DEV-3 wrong-refusal-exception: pyarrow.Tensor.from_dlpack refuses a CUDA tensor with ArrowNotImplementedError instead of BufferError
# env: frameworks
# expect: raises ArrowNotImplementedError: DLPack support is implemented only for buffers on CPU device
import pyarrow
from dlconform_capsule import Producer
pyarrow.Tensor.from_dlpack(Producer("f32", [4], device=(2, 0)))
