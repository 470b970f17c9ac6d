"""torch on CUDA: an adapter of the interface in dlconform_adapter.py for PyTorch's CUDA tensors
(kDLCUDA), judged on a GPU machine (tools/gpu-check passes it with --adapter). Tensors live on
cuda:0; the stream a consumer should pass is torch's current stream (STRM-1)."""
from dlconform_adapter import COMMON, Framework, sliced_view


class TorchCUDA(Framework):
    name = "torch"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "bfloat16", "complex64", "complex128"]
    strides = "positive zero overlapping"
    views = ("T", "step", "offset", "broadcast")
    writable_concept = False
    device = (2, 0)

    @property
    def label(self):
        return f"torch-cuda@{self.version}"

    def start(self):
        if not self.started and not self.module.cuda.is_available():
            raise RuntimeError("no CUDA device: torch.cuda.is_available() is False")
        self.started = True

    def from_np(self, array):
        self.start()
        torch = self.module
        host = torch.from_numpy(array.copy()) if array.dtype.name != "bfloat16" else \
            torch.tensor(array.astype("float32")).to(torch.bfloat16)
        return host.to("cuda:0")

    def view(self, value, kind):
        return sliced_view(value, kind, lambda v, shape: v.expand(shape), transpose=lambda v: v.t(),
                           reverse=None)

    def import_(self, obj, **keywords):
        return self.module.from_dlpack(obj, **keywords)

    def to_np(self, value):
        value = value.detach().to("cpu")
        if value.dtype == self.module.bfloat16:
            import ml_dtypes
            return value.contiguous().view(self.module.int16).numpy().view(ml_dtypes.bfloat16)
        return value.contiguous().numpy()

    def cpu_device(self):
        return self.module.device("cpu")

    def own_device(self):
        return self.module.device("cuda", 0)

    def stream(self):
        """torch's current stream on cuda:0 as DLPack names it: 1 for the legacy default."""
        handle = self.module.cuda.current_stream(0).cuda_stream
        return handle if handle != 0 else 1

    def writable(self, value):
        return True

    header_file = "include/ATen/dlpack.h"
