# finding: tvm_ffi XAPI-1 table-not-on-type: tvm_ffi.from_dlpack reads __dlpack_c_exchange_api__ from the object, where dlpack.h v1.3 says the consumer should look it up on the type: an instance attribute shadows type(x)'s table
# env: frameworks
# expect: raises ValueError: Expect a dlpack_exchange_api field
import torch, tvm_ffi
x = torch.arange(6.0).as_subclass(type("T", (torch.Tensor,), {}))
x.__dlpack_c_exchange_api__ = None  # on the instance; type(x) keeps torch's table
tvm_ffi.from_dlpack(x)  # reads None from the instance, not type(x)'s table
