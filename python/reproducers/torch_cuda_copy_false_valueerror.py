# finding: torch STRM-4 wrong-refusal-exception: a CUDA tensor's __dlpack__(dl_device=(1, 0), copy=False) refuses the copy it would need with ValueError instead of BufferError
# env: gpu
# expect: raises ValueError: cannot move \(i.e. copy=False\) tensor from cuda:0 to cpu without copying
import torch
torch.ones(4, device="cuda").__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)
