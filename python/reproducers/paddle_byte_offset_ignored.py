# finding: paddle LAY-4 wrong-data: paddle.from_dlpack ignores byte_offset and reads the bytes in front of the tensor
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
x = paddle.from_dlpack(Producer("f32", [4], byte_offset=8))
assert float(x[0]) != 1.0, "fixed: byte_offset is honoured"
