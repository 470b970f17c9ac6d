# finding: tvm_ffi STRM-1 stream-accepted-on-cpu: tvm_ffi.Tensor.__dlpack__ exports a CPU tensor for stream=1 and stream=-1, where the Array API says that on CPU "only None is accepted"
# env: frameworks
# expect: exit 0
import numpy as np
import tvm_ffi
x = tvm_ffi.from_dlpack(np.arange(4.0))
for stream in (1, -1):
    assert type(x.__dlpack__(stream=stream)).__name__ == "PyCapsule", f"fixed for {stream}"
