# finding: cupy STRM-4 producer-violation: cupy.ndarray.__dlpack__(dl_device=its own device, copy=True) raises BufferError ("copy=True only supported for copy to CPU") instead of exporting a copy
# env: gpu
# expect: raises BufferError: copy=True only supported for copy to CPU
import cupy
cupy.ones(4).__dlpack__(max_version=(1, 3), dl_device=(2, 0), copy=True)
