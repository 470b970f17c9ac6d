# finding: mlx DEV-3 wrong-refusal-exception: mlx.core.array refuses a CUDA tensor with ValueError instead of BufferError
# env: frameworks
# expect: raises ValueError: \[convert\] CUDA import is not supported
import mlx.core as mx
from dlconform_capsule import Producer
mx.array(Producer("f32", [4], device=(2, 0)))
