# finding: warp DT-1 out-of-bounds: warp.from_dlpack imports a dtype with 0 lanes, which no conformant producer makes, and reads storage the tensor does not have (a hardening finding)
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import Producer
x = warp.from_dlpack(Producer((2, 32, 0), [4]))
