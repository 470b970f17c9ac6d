# finding: mxnet LAY-4 rejected-valid: mx.nd.from_dlpack refuses a view one step into a larger array whose outer axis has extent 1 (shape [1, 3, 4], strides [24, 4, 1]): compact, but not by MXNet's count
# env: mxnet
# expect: raises MXNetError: Unsupported DLPack because MXNet only support compact tensor
import mxnet as mx
from dlconform_capsule import capsule
mx.nd.from_dlpack(capsule("f32", [1, 3, 4], strides=[24, 4, 1]))
