# finding: pyarrow VER-5 no-version-fallback: pyarrow.Tensor.from_dlpack passes max_version and gives up on the TypeError of a producer with the old signature, instead of asking again without it
# env: frameworks
# expect: raises TypeError: .*got an unexpected keyword argument 'max_version'
import pyarrow as pa
from dlconform_capsule import Producer
pa.Tensor.from_dlpack(Producer("f32", [4], legacy=True))
