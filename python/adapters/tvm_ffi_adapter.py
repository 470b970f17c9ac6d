"""tvm_ffi: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, Unsupported, Framework, numpy_view


class TVMFFI(Framework):
    views = ("T", "step", "reversed", "offset", "broadcast")
    name = "tvm_ffi"
    header_file = "include/dlpack/dlpack.h"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "complex64", "complex128"]
    strides = "positive negative zero overlapping"
    writable_concept = False

    def __init__(self):
        super().__init__()
        # An FFI function's tensor argument is converted through its type's exchange-API table
        # (looked up on the class), and handed back through the same table's to_py_object.
        echo = self.module.get_global_func("testing.echo", allow_missing=True)
        self.xapi_imports = {"ffi-call": echo} if echo is not None else {}

    def from_np(self, array):
        self._keep = array.copy()
        return self.module.from_dlpack(self._keep)

    def view(self, value, kind):
        array = self.np.from_dlpack(value)
        if kind in ("T", "step", "reversed", "offset", "broadcast"):
            # A writable broadcast: numpy's own is read-only, which a legacy capsule cannot say.
            view = (self.np.lib.stride_tricks.as_strided(array, (4,) + array.shape,
                                                         (0,) + array.strides)
                    if kind == "broadcast" else numpy_view(self.np, array, kind))
            self._keep_view = view
            return self.module.from_dlpack(view)
        raise Unsupported(kind)

    def to_np(self, value):
        return self.np.from_dlpack(value)
