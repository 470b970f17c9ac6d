# finding: torch STRM-3 wrong-refusal-exception: a CUDA build's torch.Tensor.__dlpack__(dl_device=(2, 0)) on a machine without a GPU refuses with RuntimeError instead of BufferError
# env: latest
# expect: raises RuntimeError: Found no NVIDIA driver
import torch
torch.ones(4).__dlpack__(max_version=(1, 3), dl_device=(2, 0))
