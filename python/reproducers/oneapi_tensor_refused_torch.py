# finding: torch DEV-3 wrong-refusal-exception: torch.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with RuntimeError instead of BufferError
# env: oneapi
# expect: raises RuntimeError: Cannot get device of pointer on XPU
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [4], device=(14, 0)))
