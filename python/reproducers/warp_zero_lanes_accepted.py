# finding: warp DT-1 accepted-invalid: warp.from_dlpack imports a dtype with 0 lanes instead of refusing it
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import Producer
x = warp.from_dlpack(Producer((2, 32, 0), [4]))
