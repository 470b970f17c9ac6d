# finding: pyarrow LAY-8 rejected-valid: pyarrow.Tensor.from_dlpack refuses a compact tensor whose extent-1 axis has a negative stride (a stride nobody follows)
# env: frameworks
# expect: raises ArrowInvalid: negative strides not supported
import pyarrow as pa
from dlconform_capsule import Producer
pa.Tensor.from_dlpack(Producer("f32", [1, 4], strides=[-4, 1]))
