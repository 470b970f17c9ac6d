# finding: warp DEV-2 accepted-invalid: warp.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import warp
warp.init()
from dlconform_capsule import Producer
x = warp.from_dlpack(Producer("f32", [4], device=(1, 3)))
