# finding: torch STRM-3 wrong-refusal-exception: torch.from_dlpack(x, device='cpu') of a tensor on a oneAPI device raises RuntimeError, where the Array API's from_dlpack says a library that cannot serve device= "must raise BufferError"
# env: oneapi
# expect: raises RuntimeError: Cannot get device of pointer on XPU
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [4], device=(14, 0)), device="cpu")
