# finding: mxnet LAY-8 rejected-valid: mx.nd.from_dlpack refuses a compact tensor whose extent-1 axis has an arbitrary stride ("MXNet only support compact tensor now"), a stride nobody follows
# env: mxnet
# expect: raises MXNetError: Unsupported DLPack because MXNet only support compact tensor
import mxnet as mx
from dlconform_capsule import capsule
mx.nd.from_dlpack(capsule("f32", [1, 64], strides=[12345, 1]))
