"""warp: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import Unsupported, Framework


class Warp(Framework):
    views = ("offset",)
    name = "warp"
    dtypes = ["int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "bool"]
    strides = "positive"
    features = "zero-size"
    max_ndim = 4  # warp.types.ARRAY_MAX_DIMS: a Warp array has at most 4 dimensions

    def __init__(self):
        super().__init__()
        self.legacy_exports = {"to_dlpack": self.module.to_dlpack}

    def start(self):
        if not self.started:
            self.module.config.quiet = True
            self.module.init()
        self.started = True

    def from_np(self, array):
        if array.ndim == 0:
            raise Unsupported("0-d")
        return self.module.array(array, device="cpu")

    def view(self, value, kind):
        if kind == "offset":
            return value[5:]
        raise Unsupported(kind)

    def to_np(self, value):
        return value.numpy()

    def writable(self, value):
        return True

    def header(self):
        """Warp's importer is a ctypes mirror of DLPack 0.8 (warp/_src/thirdparty/dlpack.py): it
        takes dltensor capsules only, so it rightly asks without max_version."""
        return (0, 8)
