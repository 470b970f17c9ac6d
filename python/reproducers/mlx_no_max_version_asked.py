# finding: mlx VER-5 no-max-version-asked: mlx.core.from_dlpack calls __dlpack__() without max_version first, and asks with max_version=(1, 1) only after a BufferError
# env: frameworks
# expect: exit 0
import mlx.core as mx
from dlconform_capsule import Producer
producer = Producer("f32", [4])
mx.from_dlpack(producer)
assert producer.asks[0]["max_version"] is None, "fixed: MLX asks with max_version first"
