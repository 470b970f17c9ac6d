# finding: torch STRM-3 wrong-refusal-exception: a CPU build's torch.Tensor.__dlpack__(dl_device=(2, 0)) refuses a CUDA device it cannot export to with NotImplementedError instead of BufferError
# env: frameworks mxnet
# expect: raises NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'CUDA' backend
import torch
torch.ones(4).__dlpack__(max_version=(1, 3), dl_device=(2, 0))
