# finding: mxnet DEV-2 accepted-invalid: mx.nd.from_dlpack imports a CPU tensor whose device_id is 3
# env: mxnet
# expect: exit 0
import mxnet as mx
from dlconform_capsule import capsule
x = mx.nd.from_dlpack(capsule("f32", [4], device=(1, 3)))
