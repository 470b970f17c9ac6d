# finding: warp DEV-3 wrong-refusal-exception: warp.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with TypeError instead of BufferError
# env: oneapi
# expect: raises TypeError: Unsupported source device for DLPack: device_type=14
import warp
from dlconform_capsule import Producer
warp.from_dlpack(Producer("f32", [4], device=(14, 0)))
