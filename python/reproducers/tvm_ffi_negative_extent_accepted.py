# finding: tvm_ffi LAY-10 accepted-invalid: tvm_ffi.from_dlpack imports a tensor with a negative extent instead of refusing it
# env: frameworks
# expect: exit 0
import tvm_ffi
from dlconform_capsule import Producer
x = tvm_ffi.from_dlpack(Producer("f32", [-3]))
