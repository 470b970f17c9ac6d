# finding: tvm_ffi DT-2 accepted-invalid: tvm_ffi.from_dlpack imports a dtype code no DLPack version defines (99) instead of refusing it
# env: frameworks
# expect: exit 0
import tvm_ffi
from dlconform_capsule import Producer
x = tvm_ffi.from_dlpack(Producer((99, 32, 1), [4]))
