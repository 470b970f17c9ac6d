# finding: paddle STRM-3 wrong-refusal-exception: paddle.Tensor.__dlpack__ refuses dl_device=(14, 0), a oneAPI device it cannot export to, with NotImplementedError instead of BufferError
# env: oneapi
# expect: raises NotImplementedError: \(Unimplemented\) Given Place is not supported
import paddle
paddle.ones([2]).__dlpack__(max_version=(1, 3), dl_device=(14, 0))
