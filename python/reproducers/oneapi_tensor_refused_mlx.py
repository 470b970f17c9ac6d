# finding: mlx DEV-3 wrong-refusal-exception: mlx.core.array refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with ValueError instead of BufferError
# env: oneapi
# expect: raises ValueError: \[convert\] Unsupported device
import mlx.core as mx
from dlconform_capsule import Producer
mx.array(Producer("f32", [4], device=(14, 0)))
