# finding: mlx LAY-10 out-of-bounds: mlx.core.from_dlpack takes a tensor with a negative extent instead of refusing it, and crashes reading storage it does not have
# env: frameworks
# expect: SIGSEGV
import mlx.core as mx
from dlconform_capsule import Producer
x = mx.from_dlpack(Producer("f32", [-3]))
