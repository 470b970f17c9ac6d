"""dpnp: a built-in adapter of the interface in dlconform_adapter.py, for Intel's oneAPI arrays
(dpnp on dpctl's usm_ndarray), whose memory is a USM allocation of a SYCL device: kDLOneAPI
(14). On these machines the device is the OpenCL CPU device of Intel's runtime (intel-opencl-rt),
which the process finds only through OCL_ICD_FILENAMES and LD_LIBRARY_PATH (envs/oneapi.txt sets
both); without them dpctl sees no device, and the adapter says which variables to set."""
from dlconform_adapter import COMMON, DeviceFramework, Unsupported

OPENCL_HINT = ("set OCL_ICD_FILENAMES=<venv>/lib/libintelocl.so and LD_LIBRARY_PATH=<venv>/lib "
               "(envs/oneapi.txt sets them for the oneapi environment)")


class DPNP(DeviceFramework):
    name = "dpnp"
    dtypes = COMMON + ["uint16", "uint32", "uint64", "complex64", "complex128"]
    strides = "positive negative zero"
    views = ("T", "step", "reversed", "offset", "broadcast")
    writable_concept = False
    # Its arrays live on a SYCL device; from_dlpack of host data gives a NumPy array.
    device = (14, 0)

    def start(self):
        if not self.started:
            import dpctl
            if not dpctl.get_devices():  # the runtime starts here, in a worker, never at import
                raise RuntimeError(f"dpctl finds no SYCL device: {OPENCL_HINT}")
        self.started = True

    def cpu_device(self):
        return None  # dpnp's "cpu" names the SYCL CPU device, not the host

    def own_device(self):
        """The SYCL device its arrays live on, for from_dlpack(device=...)."""
        return self.module.zeros((1,), dtype="float32").sycl_device

    def stream(self):
        """What a consumer of its arrays passes as stream: a SYCL queue (STRM-2's oneAPI
        convention is not settled by the spec; dpnp's __dlpack__ takes dpctl.SyclQueue)."""
        import dpctl
        return dpctl.SyclQueue(self.own_device())

    def to_np(self, value):
        if isinstance(value, self.np.ndarray):
            return value  # from_dlpack of host data returns a NumPy array
        return self.module.asnumpy(value)

    def read_only(self, value):
        raise Unsupported("no read-only dpnp arrays")

    header_file = ""  # dpctl vendors its own dlpack.h inside its extension; 1.x by its exports
