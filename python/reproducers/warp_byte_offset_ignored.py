# finding: warp LAY-4 wrong-data: warp.from_dlpack ignores byte_offset and reads the bytes in front of the tensor
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import Producer
x = warp.from_dlpack(Producer("f32", [4], byte_offset=8))
assert x.numpy()[0] != 1.0, "fixed: byte_offset is honoured"
