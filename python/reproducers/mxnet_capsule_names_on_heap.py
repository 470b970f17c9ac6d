# finding: mxnet LIFE-1 producer-violation: nd.to_dlpack_for_read and to_dlpack_for_write name their capsules with the bytes of a ctypes string (heap memory), where python_spec.rst says the capsule names must be statically allocated: the capsule keeps only the pointer
# env: mxnet
# expect: exit 0
import mxnet as mx
from dlconform_capsule import name_in_loaded_object
a = mx.nd.ones(4)
assert name_in_loaded_object(mx.nd.to_dlpack_for_read(a)) is None and name_in_loaded_object(mx.nd.to_dlpack_for_write(a)) is None
