# finding: mxnet DT-2 producer-violation: mx.nd.to_dlpack_for_read exports a bool array as dtype (kDLUInt, 1 bit, 1 lane), a width DLPack does not allow for UInt, instead of (kDLBool, 8, 1)
# env: mxnet
# expect: exit 0
import mxnet as mx
from dlconform_capsule import dtype_of
assert dtype_of(mx.nd.to_dlpack_for_read(mx.nd.array([1, 0], dtype="bool"))) == (1, 1, 1), "fixed"
