# finding: mlx DEV-2 accepted-invalid: mlx.core.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import mlx.core as mx
from dlconform_capsule import Producer
x = mx.from_dlpack(Producer("f32", [4], device=(1, 3)))
