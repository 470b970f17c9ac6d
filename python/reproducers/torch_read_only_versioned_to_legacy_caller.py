# finding: torch VER-4 versioned-to-legacy-caller: ReadOnlyTensorWrapper.__dlpack__() without max_version (a legacy caller) returns a dltensor_versioned capsule, where the recommended logic for max_version None keeps the 0.X (dltensor) export, or raises BufferError
# env: latest
# expect: exit 0
import torch, torch.utils.dlpack
capsule = torch.utils.dlpack.ReadOnlyTensorWrapper(torch.arange(4.0)).__dlpack__()
assert 'dltensor_versioned' in repr(capsule), "fixed: a legacy caller gets a dltensor capsule or BufferError"
