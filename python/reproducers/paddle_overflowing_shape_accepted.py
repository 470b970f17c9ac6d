# finding: paddle LAY-10 accepted-invalid: paddle.from_dlpack imports a tensor with a negative extent instead of refusing it
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
x = paddle.from_dlpack(Producer("f32", [-3]))
