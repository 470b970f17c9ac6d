# finding: cupy STRM-3 producer-violation: asked for a host tensor (dl_device=(1, 0)), a managed-memory array is exported as kDLCUDAManaged (13, 0) with no copy: CuPy honours the request "in spirit" (its source says so), and a consumer that asked for kDLCPU gets another device type
# env: gpu
# expect: exit 0
import cupy
from dlconform_capsule import device_of
a = cupy.ndarray((2, 3), cupy.float32, cupy.cuda.malloc_managed(24))
assert device_of(a.__dlpack__(max_version=(1, 3), dl_device=(1, 0))) == (13, 0), "fixed"
