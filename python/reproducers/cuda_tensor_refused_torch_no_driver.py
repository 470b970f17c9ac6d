# finding: torch DEV-3 wrong-refusal-exception: torch.from_dlpack of a CUDA build on a machine without a GPU refuses a CUDA tensor with RuntimeError instead of BufferError
# env: latest
# expect: raises RuntimeError: Found no NVIDIA driver
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [4], device=(2, 0)))
