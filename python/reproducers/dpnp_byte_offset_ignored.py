# finding: dpnp LAY-4 wrong-data: dpnp.from_dlpack of a host tensor ignores byte_offset and reads the bytes in front of the tensor
# env: oneapi
# expect: exit 0
import dpnp
from dlconform_capsule import Producer
x = dpnp.from_dlpack(Producer("f32", [4], byte_offset=8))
assert float(x[0]) != 1.0, "fixed: byte_offset is honoured"
