# finding: tvm_ffi DEV-2 accepted-invalid: tvm_ffi.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import tvm_ffi
from dlconform_capsule import Producer
x = tvm_ffi.from_dlpack(Producer("f32", [4], device=(1, 3)))
