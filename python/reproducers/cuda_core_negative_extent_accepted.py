# finding: cuda.core LAY-10 accepted-invalid: StridedMemoryView takes a tensor with a negative extent; only reading .shape later raises (ValueError: Extents must be non-negative)
# env: gpu
# expect: exit 0
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
print(StridedMemoryView(Producer("f32", [-3]), stream_ptr=-1).ptr)  # .shape refuses it, later
