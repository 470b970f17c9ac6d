# finding: pyarrow DEV-2 accepted-invalid: pyarrow.Tensor.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import pyarrow as pa
from dlconform_capsule import Producer
x = pa.Tensor.from_dlpack(Producer("f32", [4], device=(1, 3)))
