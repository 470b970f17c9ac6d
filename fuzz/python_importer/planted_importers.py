"""Planted Python importers for the python-importer plugin's tests (fuzz/meson.build): a small
legacy-capsule importer written in Python with ctypes, correct, and with one bug planted in each
subclass. Each is an adapter of python/dlconform_adapter.py, chosen with
DLCONFORM_PYTHON_ADAPTER=planted_importers.py:CLASS. The correct one takes what it can read and
refuses the rest with BufferError; it copies the elements out, renames the capsule (LIFE-1) and
calls the deleter once (LIFE-3) before it returns.

  CopyingImporter        correct
  IgnoresByteOffset      reads from data, forgetting byte_offset (LAY-4): wrong data
  DeletesTwice           calls the deleter a second time (LIFE-3)
  RefusesAtOnce          refuses every tensor unread: the do-nothing baseline of tools/fuzz-bench
  VectorsAsAxis          correct too: shows a dtype of lanes > 1 as one more, trailing axis of its
                         scalar type (as Warp means to), which the harness reads as the vector
  HidesItsCrashes        reads a NULL shape (LAY-6), and sets a SIGSEGV handler of its own when it
                         starts that exits 0, as a library's backtrace printer exits on its own:
                         the plugin puts the harness's handler back, so the crash is still named
                         and the run still fails

For the protocol around the capsule (python_protocol_fuzzer):

  AsksAsTheSpecSays      correct: checks __dlpack_device__'s answer, asks __dlpack__(stream=None,
                         max_version=(1, 0)) and again with stream alone after a TypeError, and
                         takes only a capsule named dltensor
  NoVersionFallback      gives up on that TypeError (a SHOULD of VER-5: said, never a stop)
  TakesAnyName           takes the capsule under whatever name it has (LIFE-8 for used_dltensor)
  RefusesDevicesWrongly  refuses a tensor on a device it cannot read with RuntimeError, not
                         BufferError (DEV-3: a SHOULD, said as a note, never a stop)
  IndexesDeviceBlindly   reads __dlpack_device__'s answer as C code that indexes a tuple it never
                         checked: anything but a 2-tuple crashes it (DEV-1)

For device memory behind fuzzed CUDA tensors (DLCONFORM_FUZZ_DEVICE_MEMORY=cuda, with the stand-in
runtime fake_cuda_runtime.cpp as DLCONFORM_FUZZ_CUDART):

  CudaCopyingImporter    correct: takes CUDA tensors, read with the stand-in's kernel
  CudaReadsPastTheEnd    its kernel reads a page past the tensor: the device's error (out-of-bounds)
  CudaIgnoresDeviceId    reads a tensor of any CUDA device_id on device 0, as torch's 8-bit
                         device index does: out-of-bounds [DEV-3] on a device with no memory
  CudaReadsUnchecked     reads the first element of any CUDA tensor, valid or not, on device 0:
                         on an invalid one, hardening under the rule the input breaks
  CudaIgnoresByteOffset  reads a CUDA tensor from data, forgetting byte_offset (LAY-4): wrong data

For an importer that is another library's (DLCONFORM_KNOWN_VIA, fuzz/known_bugs.cpp):

  WrapsNumpy             NumPy's from_dlpack behind a function of its own, as a NumPy-based
                         library has it, with nothing filed under its name: NumPy's known bugs
                         are routed for it as NumPy's
"""
import ctypes
import functools
import os

import dlconform_adapter as dlc

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_void_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]

Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class ManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


NUMPY_NAMES = {(code, bits): name for name, (code, bits, lanes) in dlc.DTYPES.items()
               if name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                           "uint64", "float16", "float32", "float64", "complex64", "complex128",
                           "bool")}


class CopyingImporter(dlc.Framework):
    name = "numpy"
    exports = False
    dtypes = sorted(NUMPY_NAMES.values())
    strides = "positive zero"
    features = "read-only zero-dim zero-size misaligned"
    max_ndim = 32

    @property
    def version(self):
        return "1"

    def header(self):
        return (0, 8)

    def origin(self, t):
        """Where the first element lies."""
        return t.data + t.byte_offset

    def delete(self, managed):
        if managed.deleter:
            Deleter(managed.deleter)(ctypes.addressof(managed))

    def import_(self, obj, **keywords):
        capsule = obj.__dlpack__()
        if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
            raise BufferError("expected a dltensor capsule")
        address = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        managed = ManagedTensor.from_address(address)
        _api.PyCapsule_SetName(capsule, b"used_dltensor")  # taken: the deleter is ours to call
        try:
            return self.copy_out(managed.dl_tensor)
        finally:
            self.delete(managed)

    readable_devices = (1, 3)

    def read_span(self, t, address, size):
        """The `size` bytes at `address`, where the tensor's elements lie."""
        return (ctypes.c_char * size).from_address(address)

    def copy_out(self, t):
        np = self.np
        if t.device_type not in self.readable_devices:
            raise BufferError(f"expected a host tensor but found device type {t.device_type}")
        name = NUMPY_NAMES.get((t.code, t.bits))
        if name is None or t.lanes != 1:
            raise BufferError(f"expected a known dtype but found {t.code}:{t.bits}:{t.lanes}")
        if not 0 <= t.ndim <= 32 or (t.ndim > 0 and not t.shape):
            raise BufferError(f"expected 0 to 32 dimensions with a shape but found {t.ndim}")
        shape = [t.shape[i] for i in range(t.ndim)]
        if any(e < 0 for e in shape):
            raise BufferError(f"expected extents >= 0 but found {shape}")
        compact, strides = 1, [0] * t.ndim
        for i in reversed(range(t.ndim)):
            strides[i] = t.strides[i] if t.strides else compact
            compact *= shape[i]
        if any(s < 0 for e, s in zip(shape, strides) if e > 1):
            raise BufferError("negative strides are not supported")
        itemsize = np.dtype(name).itemsize
        count = 1
        for e in shape:
            count *= e
        if count * itemsize >= 1 << 63:
            raise BufferError(f"expected a size below 2^63 bytes but found {count} elements")
        if count == 0:
            return np.zeros(shape, dtype=name)
        span = 1 + sum((e - 1) * s for e, s in zip(shape, strides))
        if span * itemsize > 1 << 30 or not t.data:
            raise BufferError(f"expected a readable tensor but found {span} elements of span")
        if t.data + t.byte_offset + span * itemsize > 1 << 64:
            raise BufferError(f"expected elements inside the address space but found data "
                              f"{t.data:#x} + byte_offset {t.byte_offset}")
        raw = self.read_span(t, self.origin(t), span * itemsize)
        base = np.frombuffer(raw, dtype=name)
        view = np.lib.stride_tricks.as_strided(base, shape, [s * itemsize for s in strides])
        return view.copy()


class IgnoresByteOffset(CopyingImporter):
    def origin(self, t):
        return t.data  # the planted bug: byte_offset forgotten


class DeletesTwice(CopyingImporter):
    def delete(self, managed):
        super().delete(managed)
        super().delete(managed)  # the planted bug


class RefusesAtOnce(CopyingImporter):
    """Not a bug: the do-nothing Python consumer of tools/fuzz-bench, the cost of the capsule, the
    call into Python and back, against which a library's importer is measured."""

    def import_(self, obj, **keywords):
        raise BufferError("refused unread")


class VectorsAsAxis(CopyingImporter):
    def copy_out(self, t):
        if t.lanes <= 1 or not 0 <= t.ndim < 32 or (t.ndim > 0 and not t.shape):
            return super().copy_out(t)
        axis = DLTensor.from_buffer_copy(t)  # the same tensor, its lanes one more axis
        shape = (ctypes.c_int64 * (t.ndim + 1))(*[t.shape[i] for i in range(t.ndim)], t.lanes)
        axis.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
        if t.strides:
            strides = (ctypes.c_int64 * (t.ndim + 1))(
                *[t.strides[i] * t.lanes for i in range(t.ndim)], 1)
            axis.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
        axis.ndim, axis.lanes = t.ndim + 1, 1
        return super().copy_out(axis)


_hidden = []  # HidesItsCrashes's handler, kept alive for the life of the process


class HidesItsCrashes(CopyingImporter):
    def __init__(self):
        super().__init__()
        libc = ctypes.CDLL(None)
        handler = ctypes.CFUNCTYPE(None, ctypes.c_int)(lambda signal: libc._exit(0))
        _hidden.append(handler)
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = [ctypes.c_int, ctypes.c_void_p]
        libc.signal(11, ctypes.cast(handler, ctypes.c_void_p))  # SIGSEGV

    def copy_out(self, t):
        if t.ndim > 0 and not t.shape:
            ctypes.c_int64.from_address(0).value  # the planted read: the first extent, via NULL
        return super().copy_out(t)


class AsksAsTheSpecSays(CopyingImporter):
    def device_of(self, obj):
        device = obj.__dlpack_device__()
        if not (type(device) is tuple and len(device) == 2 and
                all(type(v) is int for v in device)):
            raise BufferError(f"expected (device type, device id) but found {device!r}")
        return device

    def ask(self, obj):
        try:
            return obj.__dlpack__(stream=None, max_version=(1, 0))
        except TypeError:  # an exporter from before DLPack 1.0 (VER-5)
            return obj.__dlpack__(stream=None)

    def import_(self, obj, **keywords):
        self.device_of(obj)
        capsule = self.ask(obj)
        if not _api.PyCapsule_IsValid(capsule, b"dltensor"):
            raise BufferError("expected a dltensor capsule")
        return self.take(capsule, b"dltensor")

    def take(self, capsule, name):
        managed = ManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, name))
        _api.PyCapsule_SetName(capsule, b"used_dltensor")
        try:
            return self.copy_out(managed.dl_tensor)
        finally:
            self.delete(managed)


class NoVersionFallback(AsksAsTheSpecSays):
    def ask(self, obj):
        return obj.__dlpack__(stream=None, max_version=(1, 0))  # the planted bug: no retry


class TakesAnyName(AsksAsTheSpecSays):
    def import_(self, obj, **keywords):
        self.device_of(obj)
        capsule = self.ask(obj)
        if type(capsule).__name__ != "PyCapsule":
            raise BufferError("expected a capsule")
        name = _api.PyCapsule_GetName(capsule)  # the planted bug: whatever name it has
        return self.take(capsule, ctypes.string_at(name) if name else None)


class IndexesDeviceBlindly(AsksAsTheSpecSays):
    def device_of(self, obj):
        device = obj.__dlpack_device__()
        if not (type(device) is tuple and len(device) == 2):
            ctypes.string_at(0)  # the planted bug: C code indexing a tuple it never checked
        return super().device_of(obj)


class RefusesDevicesWrongly(CopyingImporter):
    def copy_out(self, t):
        if t.device_type not in (1, 3):
            raise RuntimeError(f"device type {t.device_type} is not supported")  # the planted bug
        return super().copy_out(t)


@functools.lru_cache(maxsize=None)
def _stand_in_runtime():
    """The stand-in CUDA runtime the harness loaded ($DLCONFORM_FUZZ_CUDART), with its kernel."""
    runtime = ctypes.CDLL(os.environ["DLCONFORM_FUZZ_CUDART"])
    runtime.fake_cuda_read.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    runtime.fake_cuda_read_wide.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                            ctypes.c_size_t]
    return runtime


class CudaCopyingImporter(CopyingImporter):
    """Correct, and a CUDA library's importer for the tests of device memory behind fuzzed
    tensors: takes CUDA tensors too, and copies their elements out with the stand-in runtime's
    kernel (fake_cuda_runtime.cpp, loaded by the harness from $DLCONFORM_FUZZ_CUDART), which
    leaves cudaErrorIllegalAddress behind for a read outside the memory it was given."""
    device = (2, 0)
    readable_devices = (1, 2, 3)

    def copy_out(self, t):
        if t.device_type == 2 and t.device_id != 0:  # the one device the stand-in has
            raise BufferError(f"expected CUDA device 0 but found device {t.device_id}")
        return super().copy_out(t)

    def read_span(self, t, address, size):
        if t.device_type != 2:
            return super().read_span(t, address, size)
        runtime = _stand_in_runtime()
        wanted = self.read_size(size, t)
        out = (ctypes.c_char * wanted)()
        error = runtime.fake_cuda_read(address, wanted, out)
        if error:
            raise RuntimeError(f"CUDA error {error}")
        return out

    def read_size(self, size, t):
        return size


class CudaIgnoresDeviceId(CudaCopyingImporter):
    def copy_out(self, t):
        return CopyingImporter.copy_out(self, t)  # the planted bug: any device_id is device 0


class CudaReadsUnchecked(CudaIgnoresDeviceId):
    def copy_out(self, t):
        if t.device_type != 2:
            return super().copy_out(t)
        return bytes(self.read_span(t, self.origin(t), 1))  # the planted bug: nothing checked


class CudaReadsPastTheEnd(CudaCopyingImporter):
    def read_size(self, size, t):
        return size + 4096  # the planted bug: a kernel that reads a page past the tensor


class CudaAssumesAlignment(CudaCopyingImporter):
    """The planted bug: reads device elements with loads as wide as an element, never checking
    that the data is aligned to them (LAY-9), as torch's copy kernels do on the GPU."""
    def read_span(self, t, address, size):
        if t.device_type != 2:
            return super().read_span(t, address, size)
        out = (ctypes.c_char * size)()
        width = max(1, t.bits // 8)
        error = _stand_in_runtime().fake_cuda_read_wide(address, size, out, width)
        if error:
            raise RuntimeError(f"CUDA error {error}")
        return out


class CudaIgnoresByteOffset(CudaCopyingImporter):
    def origin(self, t):
        return t.data  # the planted bug: byte_offset forgotten, on the device


class WrapsNumpy(dlc.builtin_adapter("numpy", "NumPy")):
    def import_(self, obj, **keywords):
        return self.np.from_dlpack(obj, **keywords)  # from Python, as array-api-strict calls it
