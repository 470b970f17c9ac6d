"""An adapter of dlconform's Python interface (python/dlconform_adapter.py) for Dr.Jit, a library
with no Array API namespace: no asarray, no from_dlpack; its tensor types (drjit.llvm.TensorXf,
TensorXi, ...) are built from NumPy arrays and import any object with __dlpack__ through their
constructors. Judged with:

    pip install drjit==1.5.0
    dlconform matrix --no-builtin --adapter examples/adapters/drjit_adapter.py
"""
import dlconform_adapter as dlc


class DrJit(dlc.Framework):
    array_api_import = False  # no from_dlpack: TensorXf(x) is a constructor, not held to its Raises
    name = "drjit"
    # What it imports, honestly: its constructors take C-contiguous data of the tensor type's
    # own dtype ("order='C'"), and this adapter imports into TensorXf.
    dtypes = ["float32"]
    views = ("T", "step", "offset")  # its slices are gathers: copies with compact strides
    strides = "none"
    features = "read-only zero-size"
    writable_concept = False

    TYPES = {"int8": "TensorXi8", "int32": "TensorXi", "int64": "TensorXi64",
             "uint8": "TensorXu8", "uint32": "TensorXu", "uint64": "TensorXu64",
             "float16": "TensorXf16", "float32": "TensorXf", "float64": "TensorXf64",
             "bool": "TensorXb"}

    def __init__(self):
        super().__init__()
        import drjit.llvm
        self.llvm = drjit.llvm

    def tensor_type(self, dtype_name):
        try:
            return getattr(self.llvm, self.TYPES[dtype_name])
        except KeyError:
            raise dlc.Unsupported(dtype_name) from None

    def from_np(self, array):
        if array.ndim == 0:
            raise dlc.Unsupported("0-d")  # Dr.Jit tensors have at least one dimension
        return self.tensor_type(array.dtype.name)(array)

    def view(self, value, kind):
        if kind == "T":
            return value.T
        if kind == "step":
            return value[:, ::2]
        if kind == "offset":
            return value[5:]
        raise dlc.Unsupported(kind)

    def import_(self, obj):
        return self.llvm.TensorXf(obj)  # the constructor imports through __dlpack__

    def to_np(self, value):
        return self.np.array(value.numpy())  # its own copy-out, not DLPack
