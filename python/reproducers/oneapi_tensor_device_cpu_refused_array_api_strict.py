# finding: array_api_strict STRM-3 wrong-refusal-exception: array_api_strict.from_dlpack(x, device=CPU_DEVICE) of a tensor on a oneAPI device raises NumPy's RuntimeError, where the Array API's from_dlpack says a library that cannot serve device= "must raise BufferError"
# env: oneapi
# expect: raises RuntimeError: Unsupported device in DLTensor
import array_api_strict as xp
from dlconform_capsule import Producer
xp.from_dlpack(Producer("f32", [4], device=(14, 0)), device=xp.Device("CPU_DEVICE"))
