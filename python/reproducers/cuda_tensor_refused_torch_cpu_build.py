# finding: torch DEV-3 wrong-refusal-exception: torch.from_dlpack in a CPU build refuses a CUDA tensor with AssertionError instead of BufferError
# env: frameworks mxnet debian
# expect: raises AssertionError: Torch not compiled with CUDA enabled
import torch
from dlconform_capsule import Producer
torch.from_dlpack(Producer("f32", [4], device=(2, 0)))
