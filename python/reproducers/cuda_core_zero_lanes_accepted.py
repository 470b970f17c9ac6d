# finding: cuda.core DT-1 accepted-invalid: StridedMemoryView takes a tensor whose dtype has 0 lanes; only reading .shape or .dtype later raises (ValueError: itemsize must be positive)
# env: gpu
# expect: exit 0
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
print(StridedMemoryView(Producer((2, 32, 0), [4]), stream_ptr=-1).ptr)  # .shape refuses it, later
