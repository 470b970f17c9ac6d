# finding: paddle STRM-3 wrong-refusal-exception: a CPU build's paddle.Tensor.__dlpack__(dl_device=(2, 0)) refuses a CUDA device it cannot export to with NotImplementedError instead of BufferError
# env: frameworks
# expect: raises NotImplementedError: \(Unimplemented\) Place Place\(gpu:0\) is not supported
import paddle
paddle.ones([4]).__dlpack__(max_version=(1, 3), dl_device=(2, 0))
