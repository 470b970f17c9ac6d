# finding: warp LAY-4 wrong-data: warp.from_dlpack of a float32 tensor of 4 lanes whose strides are given (1 element) steps one float per element, not one vector of 4: element 1 reads lanes 1 to 4 of element 0's memory
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import Producer
x = warp.from_dlpack(Producer("f32x4", [4], strides=[1])).numpy()
assert x.shape == (4, 4) and x[1, 0] == 1.0, "fixed: element 1 holds 2.0 in every lane"
