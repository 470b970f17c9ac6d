# finding: tvm_ffi VER-5 no-max-version-asked: tvm_ffi.from_dlpack calls __dlpack__() without max_version, though it is built with DLPack 1.3
# env: frameworks
# expect: exit 0
import tvm_ffi
from dlconform_capsule import Producer
producer = Producer("f32", [4])
tvm_ffi.from_dlpack(producer)
assert producer.asks[0]["max_version"] is None, "fixed: TVM-FFI asks with max_version first"
