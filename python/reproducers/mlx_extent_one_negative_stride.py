# finding: mlx LAY-8 rejected-valid: mlx.core.from_dlpack refuses a compact tensor whose extent-1 axis has a negative stride (a stride nobody follows)
# env: frameworks
# expect: raises ValueError: Cannot convert DLPack arrays with negative strides
import mlx.core as mx
from dlconform_capsule import Producer
mx.from_dlpack(Producer("f32", [1, 4], strides=[-4, 1]))
