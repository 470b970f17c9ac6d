"""torch: a built-in adapter of the interface in dlconform_adapter.py."""
from dlconform_adapter import COMMON, NARROW_FLOATS, Framework, Unsupported, sliced_view


class Torch(Framework):
    views = ("T", "step", "offset", "broadcast")
    name = "torch"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64", "complex128"]
    strides = "positive zero overlapping"
    writable_concept = False

    def __init__(self):
        super().__init__()
        import torch.utils.dlpack
        self.legacy_exports = {"to_dlpack": torch.utils.dlpack.to_dlpack}
        # torch 2.15's read-only view for DLPack export only: its __dlpack__ asks read_only=True,
        # and its type publishes the const exchange API (torch._C._const_dlpack_exchange_api()).
        self.read_only_wrapper = getattr(torch.utils.dlpack, "ReadOnlyTensorWrapper", None)
        self.read_only_arrays = self.read_only_wrapper is not None

    def from_np(self, array):
        return self.module.from_numpy(array.copy()) if array.dtype.name != "bfloat16" else \
            self.module.tensor(array.astype("float32")).to(self.module.bfloat16)

    def view(self, value, kind):  # no negative strides, no read-only tensors
        return sliced_view(value, kind, lambda v, shape: v.expand(shape),
                           transpose=lambda v: v.t(), reverse=None)

    def read_only(self, value):
        if self.read_only_wrapper is None:
            raise Unsupported("no read-only tensors (torch.utils.dlpack.ReadOnlyTensorWrapper "
                              "is new in torch 2.15)")
        return self.read_only_wrapper(value)

    def to_np(self, value):
        if self.read_only_wrapper is not None and isinstance(value, self.read_only_wrapper):
            with self.module._C.DisableTorchFunctionSubclass():  # it refuses every torch op
                value = value.as_subclass(self.module.Tensor)
        if value.dtype == self.module.bfloat16:
            import ml_dtypes
            return value.contiguous().view(self.module.int16).numpy().view(ml_dtypes.bfloat16)
        # The values the tensor holds: a conjugate or negative view's bit resolved (numpy() refuses
        # a tensor with it set).
        return value.detach().resolve_conj().resolve_neg().contiguous().numpy()

    def writable(self, value):
        return True

    def narrow_floats(self):
        torch = self.module
        out = {name: (dtype, lambda codes, t=getattr(torch, name): torch.from_numpy(codes).view(t))
               for name, dtype in NARROW_FLOATS.items() if hasattr(torch, name)}
        if hasattr(torch, "float4_e2m1fn_x2"):  # two float4 in a byte: a vector of 2 lanes
            out["float4_e2m1fn_x2"] = ((17, 4, 2), lambda codes: torch.from_numpy(codes).view(
                torch.float4_e2m1fn_x2))
        return out

    def unexpressible(self):
        torch = self.module
        return {"requires-grad": ("a tensor that requires grad",
                                  lambda: torch.ones(3, requires_grad=True)),
                "conj": ("a complex tensor with the conjugate bit set",
                         lambda: torch.ones(3, dtype=torch.complex64).conj()),
                "sparse": ("a sparse COO tensor", lambda: torch.ones(3).to_sparse()),
                "quantized": ("a quantized tensor",
                              lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, 0,
                                                                torch.quint8))}

    header_file = "include/ATen/dlpack.h"
