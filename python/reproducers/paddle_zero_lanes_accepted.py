# finding: paddle DT-1 out-of-bounds: paddle.from_dlpack imports a dtype with 0 lanes, which no conformant producer makes, and reads storage the tensor does not have (a hardening finding)
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
x = paddle.from_dlpack(Producer((2, 32, 0), [4]))
