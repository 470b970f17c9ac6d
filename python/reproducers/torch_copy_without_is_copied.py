# finding: torch FLAG-2 producer-violation: __dlpack__(copy=True) hands over a copy without setting the IS_COPIED flag
# env: frameworks mxnet latest gpu
# expect: exit 0
import torch
from dlconform_capsule import flags, IS_COPIED
capsule = torch.ones(4).__dlpack__(max_version=(1, 3), copy=True)
assert flags(capsule) & IS_COPIED == 0, "fixed: IS_COPIED is set"
