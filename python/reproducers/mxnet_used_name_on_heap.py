# finding: mxnet LIFE-1 capsule-misnamed: nd.from_dlpack renames the capsule it takes to used_dltensor with the bytes of a ctypes string (heap memory), where python_spec.rst says the capsule names must be statically allocated: the capsule keeps only the pointer
# env: mxnet
# expect: exit 0
import mxnet as mx
from dlconform_capsule import capsule, name_of, name_in_loaded_object
c = capsule("f32", [4])
a = mx.nd.from_dlpack(c)
assert name_of(c) == "used_dltensor" and name_in_loaded_object(c) is None
