# finding: warp DEV-3 wrong-refusal-exception: warp.from_dlpack refuses a CUDA tensor on a machine without CUDA with IndexError (an empty device list indexed) instead of BufferError
# env: frameworks
# expect: raises IndexError: list index out of range
import warp
from dlconform_capsule import Producer
warp.from_dlpack(Producer("f32", [4], device=(2, 0)))
