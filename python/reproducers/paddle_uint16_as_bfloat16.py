# finding: paddle LAY-1 wrong-metadata: paddle.from_dlpack imports a uint16 tensor as bfloat16
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
assert str(paddle.from_dlpack(Producer("u16", [4])).dtype) == "paddle.bfloat16", "fixed"
