# finding: torch STRM-1 stream-accepted-on-cpu: torch.Tensor.__dlpack__ of a CPU tensor exports for stream=-1, where the Array API says that on CPU "only None is accepted"
# env: frameworks debian latest mxnet
# expect: exit 0
import torch
capsule = torch.arange(4.0).__dlpack__(stream=-1)
assert type(capsule).__name__ == "PyCapsule", "fixed: torch refuses a stream on the CPU"
