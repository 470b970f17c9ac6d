# finding: torch STRM-3 wrong-refusal-exception: torch.Tensor.__dlpack__ refuses dl_device=(14, 0), a oneAPI device it cannot export to, with RuntimeError instead of BufferError
# env: oneapi gpu
# expect: raises RuntimeError: Can't get ATen device for XPU without XPU data
import torch
torch.ones(2).__dlpack__(max_version=(1, 3), dl_device=(14, 0))
