# finding: paddle LAY-4 wrong-data: paddle.from_dlpack of a tensor whose last axis has stride -1 reads other values than the tensor holds (and bytes outside it)
# env: frameworks
# expect: exit 0
import paddle
from dlconform_capsule import Producer
got = paddle.from_dlpack(Producer("f32", [2, 4], strides=[4, -1])).numpy().tolist()
assert got != [[1, 2, 3, 4], [5, 6, 7, 8]], "fixed: the values the tensor holds are read"
