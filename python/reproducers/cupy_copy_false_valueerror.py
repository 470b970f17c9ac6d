# finding: cupy STRM-4 wrong-refusal-exception: cupy.ndarray.__dlpack__(dl_device=(1, 0), copy=False) refuses the copy it would need with ValueError instead of BufferError
# env: gpu
# expect: raises ValueError: GPU memory cannot be exported to CPU without copy
import cupy
cupy.ones(4).__dlpack__(max_version=(1, 3), dl_device=(1, 0), copy=False)
