"""mxnet: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import Unsupported, Framework, legacy_capsule


class MXNet(Framework):
    views = ("offset",)
    name = "mxnet"
    asks = False  # nd.from_dlpack takes a capsule only
    dtypes = ["int8", "int32", "int64", "uint8", "float16", "float32", "float64", "bool"]
    strides = ""
    features = "zero-dim zero-size"
    dunder = False
    writable_concept = False
    # The CPU build takes a CUDA tensor, and its engine aborts ("GPU is not enabled") when it
    # frees it, at a moment a later case pays for: the C adapter's device_cuda case shows it
    # (suppressions/adapters.txt, DEV-3 crash of mxnet-c-api).
    device_tensor_cases = False

    def __init__(self):
        super().__init__()
        nd = self.module.nd
        self.capsule_imports = {"nd.from_dlpack": nd.from_dlpack}
        self.legacy_exports = {"to_dlpack_for_read": nd.to_dlpack_for_read,
                               "to_dlpack_for_write": nd.to_dlpack_for_write}

    def from_np(self, array):
        return self.module.nd.array(array, dtype=array.dtype)

    def view(self, value, kind):
        if kind == "offset":
            return value[5:]
        raise Unsupported(kind)

    def export(self, value):
        return self.module.nd.to_dlpack_for_read(value)

    def import_(self, obj):
        return self.module.nd.from_dlpack(legacy_capsule(obj))

    header_file = "include/dlpack/dlpack.h"

    def to_np(self, value):
        return value.asnumpy()

    def writable(self, value):
        return True
