# finding: mlx LAY-1 wrong-metadata: mlx.core.from_dlpack imports a float64 (or complex128) tensor as float32 (complex64), silently converting it
# env: frameworks
# expect: exit 0
import mlx.core as mx
from dlconform_capsule import Producer
assert mx.from_dlpack(Producer("f64", [4])).dtype == mx.float32, "fixed"
