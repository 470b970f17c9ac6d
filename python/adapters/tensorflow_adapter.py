"""tensorflow: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import (COMMON, NARROW_FLOATS, Framework, Unsupported, legacy_capsule,
                               sliced_view)


class TensorFlow(Framework):
    views = ("T", "step", "reversed", "offset", "broadcast")
    name = "tensorflow"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64", "complex128"]
    strides = ""  # documented: compact row-major only
    dunder = True
    writable_concept = False
    immutable = True
    asks = False  # its from_dlpack takes a capsule only

    def __init__(self):
        super().__init__()
        self.tf_dlpack = self.module.experimental.dlpack
        self.legacy_exports = {"to_dlpack": self.tf_dlpack.to_dlpack}
        self.capsule_imports = {"experimental.dlpack.from_dlpack": self.tf_dlpack.from_dlpack}

    def from_np(self, array):
        return self.module.constant(array)

    def view(self, value, kind):
        tf = self.module
        return sliced_view(value, kind, tf.broadcast_to, transpose=tf.transpose,
                           reverse=lambda v: tf.reverse(v, [0]))

    def import_(self, obj):
        return self.tf_dlpack.from_dlpack(legacy_capsule(obj))

    header_file = "include/external/dlpack/include/dlpack/dlpack.h"

    def to_np(self, value):
        if value.shape.rank is not None and value.shape.rank > 64:
            # NumPy holds 64 dimensions at most, and a .numpy() that fails on more keeps the
            # tensor alive (its import would never be released): not read back at all.
            raise Unsupported("more dimensions than NumPy holds")
        return value.numpy()

    def writable(self, value):
        return False

    def unexpressible(self):
        return {"string": ("a string tensor", lambda: self.module.constant(["ab", "cd"]))}

    def narrow_floats(self):
        import ml_dtypes  # TensorFlow's float8 types are ml_dtypes' types
        experimental = self.module.dtypes.experimental
        return {name: (dtype, lambda codes, t=getattr(ml_dtypes, name):
                       self.module.constant(codes.view(t)))
                for name, dtype in NARROW_FLOATS.items()
                if hasattr(ml_dtypes, name) and hasattr(experimental, name)}
