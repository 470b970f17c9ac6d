"""toyarray: the example library of dlconform's docs/adapters.md, "The example library: toyarray".

A NumPy-backed array type with the Array API's DLPack surface: arrays have __dlpack__ and
__dlpack_device__, the namespace has asarray, from_dlpack, permute_dims, flip and broadcast_to.
Installed in editable mode (pip install -e examples/toyarray), it is judged by its name alone:

    dlconform matrix --no-builtin --module toyarray

TOYARRAY_BUG plants one bug, each of which dlconform must catch with its class and rule. In
from_dlpack:
    drop-deleter   takes a legacy capsule (asked without max_version) and copies the data,
                   never calling the deleter                  -> deleter-never-called [LIFE-3]
                                                                 and no-max-version-asked [VER-5];
                   its rename's bytes are a ctypes string's      capsule-misnamed [LIFE-1]
    wrong-strides  reads the tensor as if it were compact, ignoring its strides
                                                              -> wrong-data [LAY-4]
    no-fallback    asks with max_version and gives up on an old producer's TypeError instead of
                   asking again without it                    -> no-version-fallback [VER-5]
In the arrays' own __dlpack_device__ and __dlpack__ (findings on toyarray, not dlconform's errors):
    device-raises      __dlpack_device__ raises ValueError    -> unexpected-exception [DEV-1]
    device-malformed   __dlpack_device__ answers ("cpu", 0)   -> malformed-device-answer [DEV-1]
    dlpack-not-capsule __dlpack__ returns the NumPy array it holds instead of its capsule
                                                              -> not-a-capsule [VER-4]
    dlpack-raises-value-error  __dlpack__ refuses every export with ValueError, not BufferError
                                   -> refusal-not-buffer-error [VER-4, INFO]; producer-violation
                                      [STRM-3] for dl_device=(1, 0), its own device
    no-stream-keyword  __dlpack__(self, *, max_version=None, dl_device=None, copy=None): no stream
                                                              -> no-stream-keyword [VER-4]
    no-keywords        __dlpack__(self): the signature of no Array API version
                                   -> no-stream-keyword [VER-4]; old-dlpack-signature [VER-4, INFO]
"""
import builtins
import ctypes
import os

import numpy as np

__version__ = "0.1.0"
_BUG = os.environ.get("TOYARRAY_BUG", "")

int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128, bool = np.complex64, np.complex128, np.bool_  # noqa: A001


class Array:
    """An array: a NumPy array it owns or views."""

    def __init__(self, data):
        self._data = data

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)
    T = property(lambda self: Array(self._data.T))

    def __getitem__(self, key):
        return Array(self._data[key])

    def __bool__(self):
        return builtins.bool(self._data)

    def __int__(self):
        return int(self._data)

    def __float__(self):
        return float(self._data)

    def __complex__(self):
        return complex(self._data)

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __repr__(self):
        return f"toyarray.Array({self._data!r})"

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if _BUG == "dlpack-raises-value-error":
            raise ValueError("toyarray cannot export this array")
        kwargs = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        if _BUG == "dlpack-not-capsule":
            return self._data  # the planted bug: the array, not its capsule
        return self._data.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        if _BUG == "device-raises":
            raise ValueError("toyarray has no device for this array")
        if _BUG == "device-malformed":
            return ("cpu", 0)
        return self._data.__dlpack_device__()

    if _BUG == "no-stream-keyword":
        def __dlpack__(self, *, max_version=None, dl_device=None, copy=None):  # noqa: F811
            kwargs = {"max_version": max_version} if max_version is not None else {}
            if dl_device is not None:
                kwargs["dl_device"] = dl_device
            if copy is not None:
                kwargs["copy"] = copy
            return self._data.__dlpack__(**kwargs)
    elif _BUG == "no-keywords":
        def __dlpack__(self):  # noqa: F811
            return self._data.__dlpack__()


def asarray(obj, dtype=None):
    return Array(np.array(obj._data if isinstance(obj, Array) else obj, dtype=dtype))


def permute_dims(x, axes):
    return Array(np.transpose(x._data, axes))


def flip(x, axis=None):
    return Array(np.flip(x._data, axis=axis))


def broadcast_to(x, shape):
    return Array(np.broadcast_to(x._data, shape))


def from_dlpack(x, /, *, device=None, copy=None):
    device_type, device_id = x.__dlpack_device__()
    if device_type != 1 or device_id != 0:  # DEV-2: a CPU tensor is device 0 (NumPy takes any)
        raise BufferError(f"toyarray takes CPU tensors of device 0, not ({device_type}, {device_id})")
    if _BUG == "drop-deleter":
        data = _take_without_deleting(x)
        return Array(data.copy() if copy else data)
    if _BUG == "no-fallback":
        x = _Asked(x.__dlpack__(max_version=(1, 0)))  # an old producer's TypeError ends it here
    data = np.from_dlpack(x)
    if copy:  # its own copy: the producer is asked for none
        data = data.copy()
    if _BUG == "wrong-strides" and data.ndim > 0 and data.size > 0:
        # The planted bug: the element at logical index k is read from memory slot k, within the
        # memory the tensor spans (a broadcast spans fewer slots than it has elements).
        low = data.__array_interface__["data"][0]
        low += sum((e - 1) * s for e, s in zip(data.shape, data.strides) if s < 0)
        span = sum((e - 1) * abs(s) for e, s in zip(data.shape, data.strides)) + data.itemsize
        count = min(data.size, span // data.itemsize)
        buffer = (ctypes.c_char * (count * data.itemsize)).from_address(low)
        buffer.source = data  # the import's memory lives as long as a view of it
        slots = np.frombuffer(buffer, dtype=data.dtype)
        # A view where the slots cover every element (no copy made), repeated where they do not.
        data = slots.reshape(data.shape) if count == data.size else np.resize(slots, data.shape)
    return Array(data)


class _Asked:
    """A capsule already asked for, handed on to NumPy's importer (one __dlpack__ call in all)."""
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


# --- the planted drop-deleter importer: the capsule protocol by hand, through ctypes ---------

class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


# A capsule keeps the pointer: the bytes must live on. Pure Python has no static storage, so this
# hand-written take (the drop-deleter bug's) also breaks "statically allocated" (LIFE-1).
_USED = ctypes.c_char_p(b"used_dltensor")
_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _take_without_deleting(x):
    capsule = x.__dlpack__()  # a legacy DLManagedTensor, its DLTensor first
    pointer = _api.PyCapsule_GetPointer(capsule, b"dltensor")
    _api.PyCapsule_SetName(capsule, _USED)  # taken: from here on the deleter is owed
    t = _DLTensor.from_address(pointer)
    shape = [t.shape[i] for i in range(t.ndim)]
    itemsize = t.bits * t.lanes // 8
    strides = ([t.strides[i] * itemsize for i in range(t.ndim)] if t.strides
               else list(np.empty(shape, dtype=np.uint8).strides * 0) or None)
    dtype = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}[t.code] + str(itemsize)
    if strides is None or not any(strides):
        strides = [int(s) for s in np.empty(shape, dtype=dtype).strides]
    size = int(np.prod(shape)) if shape else 1
    start = (t.data or 0) + t.byte_offset
    if size == 0:
        return np.empty(shape, dtype=dtype)
    low = start + sum((e - 1) * s for e, s in zip(shape, strides) if s < 0)
    span = sum((e - 1) * abs(s) for e, s in zip(shape, strides)) + itemsize
    raw = (ctypes.c_char * span).from_address(low)
    base = np.frombuffer(raw, dtype=np.uint8)
    # A view: the deleter is never called (the planted bug), so the memory stays.
    return np.lib.stride_tricks.as_strided(base[start - low:].view(dtype), shape, strides)


class _Info:
    def dtypes(self, *, device=None, kind=None):
        names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128"]
        return {name: globals()[name] for name in names}

    def devices(self):
        return ["cpu"]

    def default_device(self):
        return "cpu"


def __array_namespace_info__():
    return _Info()
