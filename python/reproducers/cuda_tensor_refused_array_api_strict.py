# finding: array_api_strict DEV-3 wrong-refusal-exception: array_api_strict.from_dlpack refuses a CUDA tensor with NumPy's RuntimeError instead of BufferError
# env: frameworks
# expect: raises RuntimeError: Unsupported device in DLTensor
import array_api_strict as xp
from dlconform_capsule import Producer
xp.from_dlpack(Producer("f32", [4], device=(2, 0)))
