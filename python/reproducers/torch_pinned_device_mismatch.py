# finding: torch DEV-1 producer-violation: a pinned tensor's __dlpack_device__() answers kDLCUDAHost (3, 0) while the capsule of its __dlpack__() says kDLCPU (1, 0), so a consumer prepares for one device and receives another
# env: gpu
# expect: exit 0
import torch
from dlconform_capsule import device_of
t = torch.ones(2, 3).pin_memory()
assert tuple(t.__dlpack_device__()) == (3, 0) and device_of(t.__dlpack__()) == (1, 0), "fixed"
