"""CuPy: an adapter of the interface in dlconform_adapter.py for CuPy's arrays (kDLCUDA), judged
on a GPU machine (tools/gpu-check passes it with --adapter). The stream a consumer should pass
is CuPy's current stream (STRM-1)."""
from dlconform_adapter import COMMON, DeviceFramework


class CuPy(DeviceFramework):
    name = "cupy"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "complex64", "complex128"]
    strides = "positive negative zero overlapping"
    views = ("T", "step", "reversed", "offset", "broadcast")
    writable_concept = False
    device = (2, 0)
    imports_host = False  # "CPU arrays cannot be directly imported to CuPy" (a TypeError)

    def start(self):
        if not self.started:
            if self.module.cuda.runtime.getDeviceCount() == 0:
                raise RuntimeError("no CUDA device: cupy.cuda.runtime.getDeviceCount() is 0")
            # A non-blocking stream of its own, current from now on (as torch's adapter does): the
            # stream checks then tell the default stream apart from the one CuPy works on.
            self.work_stream = self.module.cuda.Stream(non_blocking=True)
            self.work_stream.use()
        self.started = True

    def to_np(self, value):
        if isinstance(value, self.np.ndarray):
            return value
        return self.module.asnumpy(value)

    def cpu_device(self):
        return None  # CuPy has no host device object for from_dlpack(device=...)

    def own_device(self):
        return self.module.cuda.Device(0)

    def stream(self):
        handle = self.module.cuda.get_current_stream().ptr
        return handle if handle != 0 else 1

    def memories(self):
        def managed(array):  # an array over CUDA managed memory: DLPack's kDLCUDAManaged
            cp = self.module
            value = cp.ndarray(array.shape, array.dtype, cp.cuda.malloc_managed(array.nbytes))
            value.set(array)
            return value
        return {"managed": managed}

    def pending_write(self, array):
        cp = self.module
        spin = cp.RawKernel(r"""extern "C" __global__ void spin(long long cycles) {
            long long start = clock64();
            while (clock64() - start < cycles) {}
        }""", "spin")
        source = cp.asarray(array)
        target = cp.zeros_like(source) - 1  # what a read before the write sees
        cp.cuda.Device(0).synchronize()
        spin((1,), (1,), (cp.int64(200_000_000),))  # on the current stream: about 0.1 s
        target[...] = source
        return target
