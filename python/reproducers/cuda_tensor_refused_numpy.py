# finding: numpy DEV-3 wrong-refusal-exception: numpy.from_dlpack refuses a CUDA tensor, which it cannot read, with RuntimeError instead of BufferError (NumPy 2.5 raises BufferError)
# env: frameworks mxnet debian numpy-1.24.4 numpy-1.26.4 numpy-2.0.2 numpy-2.1.3 numpy-2.2.6 numpy-2.3.5
# expect: raises RuntimeError: Unsupported device in DLTensor
import numpy
from dlconform_capsule import Producer
numpy.from_dlpack(Producer("f32", [4], device=(2, 0)))
