# finding: cuda.core DT-3 late-refusal: StridedMemoryView takes a Float4 (e2m1fn, code 17) tensor, then cannot say what it holds: .dtype raises TypeError ("Unsupported dtype")
# env: gpu
# expect: raises TypeError: Unsupported dtype
from cuda.core.utils import StridedMemoryView
from dlconform_capsule import Producer
StridedMemoryView(Producer((17, 4, 1), [8]), stream_ptr=-1).dtype
