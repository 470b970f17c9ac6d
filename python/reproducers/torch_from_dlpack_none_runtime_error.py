# finding: torch VER-4 no-attribute-error: torch.from_dlpack(None) raises RuntimeError (it takes an object without __dlpack__ for a legacy capsule), not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: frameworks debian latest mxnet gpu
# expect: raises RuntimeError: from_dlpack received an invalid capsule
import torch
torch.from_dlpack(None)
