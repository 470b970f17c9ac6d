# finding: tvm_ffi VER-4 no-attribute-error: tvm_ffi.from_dlpack(None) raises TypeError, not the AttributeError the Array API's from_dlpack requires since 2023.12
# env: frameworks
# expect: raises TypeError: Expect from_dlpack to take
import tvm_ffi
tvm_ffi.from_dlpack(None)
