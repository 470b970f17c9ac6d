# finding: jax DEV-3 wrong-refusal-exception: jax.dlpack.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with TypeError instead of BufferError
# env: oneapi
# expect: raises TypeError: Array passed to from_dlpack is on unsupported device type \(DLDeviceType: 14
import jax
from dlconform_capsule import Producer
jax.dlpack.from_dlpack(Producer("f32", [4], device=(14, 0)))
