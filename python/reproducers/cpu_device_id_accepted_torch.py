# finding: torch DEV-2 accepted-invalid: torch.from_dlpack imports a CPU tensor whose device_id is 3 (a CPU tensor's device_id must be 0)
# env: frameworks mxnet debian latest gpu
# expect: exit 0
import torch
from dlconform_capsule import Producer
print(torch.from_dlpack(Producer("f32", [4], device=(1, 3))))
