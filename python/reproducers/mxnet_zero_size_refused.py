# finding: mxnet LAY-7 rejected-valid: mx.nd.from_dlpack refuses a zero-size tensor unless its strides are the ones MXNet would compute (any strides are valid when an extent is 0) ("MXNet only support compact tensor now")
# env: mxnet
# expect: raises MXNetError: Unsupported DLPack because MXNet only support compact tensor
import mxnet as mx
from dlconform_capsule import capsule
mx.nd.from_dlpack(capsule("f32", [4, 0], strides=[1, 1]))
