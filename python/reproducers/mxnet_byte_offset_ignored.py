# finding: mxnet LAY-4 wrong-data: mx.nd.from_dlpack ignores byte_offset and reads the bytes in front of the tensor
# env: mxnet
# expect: exit 0
import mxnet as mx
from dlconform_capsule import capsule
x = mx.nd.from_dlpack(capsule("f32", [4], byte_offset=8))
assert x.asnumpy()[0] != 1.0, "fixed: byte_offset is honoured"
