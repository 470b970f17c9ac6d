# finding: torch LAY-4 wrong-data: torch 1.13's from_dlpack ignores byte_offset and reads the bytes in front of the tensor
# env: debian
# expect: exit 0
import torch
from dlconform_capsule import Producer
x = torch.from_dlpack(Producer("f32", [4], byte_offset=8))
assert x[0].item() != 1.0, "fixed: byte_offset is honoured"
