"""torch on CUDA: an adapter of the interface in dlconform_adapter.py for PyTorch's CUDA tensors
(kDLCUDA), judged on a GPU machine (tools/gpu-check passes it with --adapter). What torch makes,
views and imports is the built-in host adapter's (adapters/torch_adapter.py); here tensors live on
cuda:0, and the stream a consumer should pass is torch's current stream (STRM-1)."""
from dlconform_adapter import builtin_adapter

Torch = builtin_adapter("torch", "Torch")


class TorchCUDA(Torch):
    device = (2, 0)

    def __init__(self):
        super().__init__()
        self.legacy_exports = {}  # to_dlpack is judged on the host; the GPU rows are __dlpack__'s

    @property
    def label(self):
        return f"torch-cuda@{self.version}"

    def start(self):
        if not self.started:
            if not self.module.cuda.is_available():
                raise RuntimeError("no CUDA device: torch.cuda.is_available() is False")
            # A stream of its own, current from now on: the streams torch passes and the exchange
            # API's current_work_stream are judged against a stream that is not the default, where
            # a library that passes 1 (the legacy default) whatever it works on is told apart.
            self.work_stream = self.module.cuda.Stream(device=0)
            self.module.cuda.set_stream(self.work_stream)
        self.started = True

    def from_np(self, array):
        self.start()
        return super().from_np(array).to("cuda:0")

    def to_np(self, value):
        return super().to_np(value.detach().to("cpu"))

    def cpu_device(self):
        return self.module.device("cpu")

    def own_device(self):
        return self.module.device("cuda", 0)

    def stream(self):
        """torch's current stream on cuda:0 as DLPack names it: 1 for the legacy default."""
        handle = self.module.cuda.current_stream(0).cuda_stream
        return handle if handle != 0 else 1

    def memories(self):
        # A host tensor in page-locked memory (a CUDA host allocation): DLPack's kDLCUDAHost.
        return {"pinned": lambda array: self.module.from_numpy(array.copy()).pin_memory()}

    def pending_write(self, array):
        torch = self.module
        source = super().from_np(array).to("cuda:0")
        target = torch.zeros_like(source) - 1  # what a read before the write sees
        torch.cuda.synchronize()
        torch.cuda._sleep(200_000_000)  # clock cycles on the current stream: about 0.1 s
        target.copy_(source)
        return target
