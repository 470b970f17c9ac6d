# finding: tvm_ffi DT-1 accepted-invalid: tvm_ffi.from_dlpack imports a dtype with 0 lanes instead of refusing it
# env: frameworks
# expect: exit 0
import tvm_ffi
from dlconform_capsule import Producer
x = tvm_ffi.from_dlpack(Producer((2, 32, 0), [4]))
