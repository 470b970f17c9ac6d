# finding: cupy LAY-10 producer-violation: a reversed CuPy array is exported with stride 2**62 - 1 for -1 (its byte stride -4 divided by the itemsize as an unsigned number): a consumer reads far outside the array or refuses it
# env: gpu
# expect: exit 0
import cupy
from dlconform_capsule import strides_of
capsule = cupy.arange(8, dtype=cupy.float32)[::-1].__dlpack__(max_version=(1, 3))
assert strides_of(capsule) == (2**62 - 1,), "fixed: the stride is -1"
