# finding: torch FLAG-2 producer-violation: a CUDA tensor's __dlpack__(dl_device=(1, 0)) hands over a host copy without setting the IS_COPIED flag
# env: gpu
# expect: exit 0
import torch
from dlconform_capsule import flags, IS_COPIED
capsule = torch.ones(4, device="cuda").__dlpack__(max_version=(1, 3), dl_device=(1, 0))
assert flags(capsule) & IS_COPIED == 0, "fixed: IS_COPIED is set on the host copy"
