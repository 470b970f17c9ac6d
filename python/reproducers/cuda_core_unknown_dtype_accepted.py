# finding: cuda.core DT-2 accepted-invalid: StridedMemoryView wraps a tensor of dtype code 99, which no DLPack header defines, instead of refusing it
# env: gpu
# expect: exit 0
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
print(StridedMemoryView(Producer((99, 32, 1), [4]), stream_ptr=-1).ptr)
