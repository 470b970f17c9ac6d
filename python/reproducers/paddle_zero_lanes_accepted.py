# finding: paddle DT-1 accepted-invalid: paddle.from_dlpack imports a dtype with 0 lanes instead of refusing it (and then reads storage the tensor does not have)
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
x = paddle.from_dlpack(Producer((2, 32, 0), [4]))
