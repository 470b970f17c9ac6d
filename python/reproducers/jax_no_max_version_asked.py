# finding: jax VER-5 no-max-version-asked: jax.dlpack.from_dlpack calls __dlpack__(stream=None) without max_version, though JAX reads versioned capsules, so a producer must answer it with a legacy one
# env: frameworks gpu
# expect: exit 0
import jax
from dlconform_capsule import Producer
producer = Producer("f32", [4])
jax.dlpack.from_dlpack(producer)
assert producer.asks[0]["max_version"] is None, "fixed: JAX asks with max_version first"
