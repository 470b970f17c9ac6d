# finding: numpy DEV-3 wrong-refusal-exception: numpy.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with RuntimeError instead of BufferError
# env: oneapi
# expect: raises RuntimeError: Unsupported device in DLTensor
import numpy
from dlconform_capsule import Producer
numpy.from_dlpack(Producer("f32", [4], device=(14, 0)))
