# finding: cuda.core DT-1 accepted-invalid: StridedMemoryView wraps a Float4 (code 17) tensor of 8 bits, a width the code does not allow, instead of refusing it
# env: gpu
# expect: exit 0
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
print(StridedMemoryView(Producer((17, 8, 1), [4]), stream_ptr=-1).ptr)
