# finding: paddle DEV-2 accepted-invalid: paddle.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
print(paddle.from_dlpack(Producer("f32", [4], device=(1, 3))))
