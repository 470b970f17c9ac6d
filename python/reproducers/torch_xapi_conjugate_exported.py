# finding: torch XAPI-5 xapi-violation: the C exchange API's managed_tensor_from_py_object_no_sync of a conjugate view hands over its stored values, not the conjugates the tensor holds, where Tensor.__dlpack__ refuses it with BufferError
# env: frameworks latest mxnet
# expect: exit 0
import ctypes, torch
from dlconform_capsule import xapi_from_py_object
t = xapi_from_py_object(torch.tensor([1 + 2j]).conj())
assert list((ctypes.c_float * 2).from_address(t.data + t.byte_offset)) == [1.0, 2.0]  # not [1, -2]
