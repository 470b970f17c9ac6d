# finding: tvm_ffi STRM-4 producer-violation: Tensor.__dlpack__(max_version=(1, 3), copy=True) raises BufferError ("copy not yet supported") instead of copying, where the Array API says copy=True must always copy
# env: frameworks
# expect: raises BufferError: copy not yet supported
import numpy, tvm_ffi
tvm_ffi.from_dlpack(numpy.ones(4, "float32")).__dlpack__(max_version=(1, 3), copy=True)
