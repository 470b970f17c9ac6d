# finding: torch XAPI-5 wrong-refusal-exception: the C exchange API's managed_tensor_from_py_object_no_sync refuses a sparse (or quantized) tensor, which DLPack cannot describe, with RuntimeError, where dlpack.h says "this should be a BufferError"
# env: frameworks latest mxnet
# expect: raises RuntimeError: Cannot access data pointer of Tensor that doesn't have storage
import torch
from dlconform_capsule import xapi_from_py_object
xapi_from_py_object(torch.ones(2, 3).to_sparse())
