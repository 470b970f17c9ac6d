# finding: cuda.core LAY-10 accepted-invalid: StridedMemoryView takes a shape whose storage size overflows int64 (2**62 x 8 float32) without a refusal
# env: gpu
# expect: exit 0
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
print(StridedMemoryView(Producer("f32", [2**62, 8]), stream_ptr=-1).ptr)  # taken, not refused
