"""Hand-made DLPack tensors for the reproducers, with nothing but the standard library (ctypes),
so that a reproducer needs only the framework whose finding it shows.

  capsule(dtype, shape, strides=None, byte_offset=0, device=(1, 0), versioned=False,
          null_deleter=False, null_data=False, guarded=False, null_shape=False, ndim=None,
          version=(1, 3), flags=0, misalign=0)
                                                    a "dltensor" (or "dltensor_versioned") capsule;
      guarded=True puts the struct alone in a page that its deleter makes unreadable, so that a
      consumer touching it after the deleter ran dies on SIGSEGV instead of reading stale bytes;
      null_shape, ndim (default len(shape)), version, flags and misalign (bytes off the 256-byte
      alignment) rebuild what a fuzz input says: the fuzz targets print such a call for a finding
      in a Python importer
  Producer(..., legacy=False, answers_legacy=False) an object with __dlpack__/__dlpack_device__
      over such capsules: legacy=True has the old signature (a TypeError for max_version);
      answers_legacy=True takes max_version but answers with a legacy capsule, as a legacy
      producer may (VER-4).
  PendingPinned(count=4096, hold=0.2)               a producer of `count` float32 zeros in pinned
      host memory (kDLCUDAHost) whose ones are written on a stream of its own behind a spin of
      `hold` seconds; its __dlpack__ makes the stream it is given (None or 1: the legacy
      default) wait for that write, as a conformant CUDA producer does, so a consumer that reads
      without waiting on that stream reads zeros (STRM-1). The only helper that needs CuPy.
  deleter_calls()                                   deleter calls so far, over every capsule
  flags(capsule), dtype_of(capsule), strides_of(capsule), name_of(capsule)
                                                    what a framework's capsule says
  name_in_loaded_object(capsule)                    the file of the loaded object whose memory
      holds the bytes of the capsule's name (statically allocated), or None (the heap)
  xapi_from_py_object(obj)                          the DLTensor that the C exchange API of
      type(obj) (__dlpack_c_exchange_api__, DLPack 1.2) makes of obj with its
      managed_tensor_from_py_object_no_sync; what it raises on -1

dtype is a name ("f32", "f64", "i16", "u16", "i64", "u8", "bool", "f32x4") or (code, bits,
lanes). Element k (row-major) holds k + 1, so that a reader that ignores byte_offset reads the
zero padding in front; data is 256-byte aligned, so that importers take it without a copy. Layouts follow the DLPack ABI of docs/rules.md; this is a
test tool, not an exporter for real use.
"""
import ctypes
import mmap

__all__ = ["capsule", "Producer", "PendingPinned", "deleter_calls", "flags", "dtype_of",
           "strides_of", "name_of", "name_in_loaded_object", "xapi_from_py_object"]

READ_ONLY, IS_COPIED = 1, 2

DTYPES = {"f32": (2, 32, 1), "f64": (2, 64, 1), "i16": (0, 16, 1), "u16": (1, 16, 1),
          "i64": (0, 64, 1), "u8": (1, 8, 1), "bool": (6, 8, 1), "f32x4": (2, 32, 4)}
_SCALAR = {(2, 32): ctypes.c_float, (2, 64): ctypes.c_double, (0, 16): ctypes.c_int16,
           (1, 16): ctypes.c_uint16, (0, 64): ctypes.c_int64, (1, 8): ctypes.c_uint8,
           (6, 8): ctypes.c_uint8, (0, 32): ctypes.c_int32, (0, 8): ctypes.c_int8}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


def _python_function(name, restype, *argtypes):
    """A private prototype: setting argtypes on ctypes.pythonapi's shared functions would change
    them for every other user in the process (MXNet calls the same ones)."""
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


# No capsule destructor: one would run while the consumer's exception is pending, where ctypes
# cannot call anything; a capsule nobody took leaks its (small) tensor in a reproducer.
_capsule_new = _python_function("PyCapsule_New", ctypes.py_object, ctypes.c_void_p,
                                ctypes.c_void_p, ctypes.c_void_p)
_capsule_pointer = _python_function("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                                    ctypes.c_char_p)
_capsule_name = _python_function("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
_capsule_set_name = _python_function("PyCapsule_SetName", ctypes.c_int, ctypes.py_object,
                                     ctypes.c_void_p)
USED = {b"dltensor": b"used_dltensor", b"dltensor_versioned": b"used_dltensor_versioned"}


# What PyCapsule_New and PyCapsule_SetName get for each name: a capsule keeps the pointer, not
# the bytes. python_spec.rst wants the names statically allocated; a bytes object is heap memory
# (alive here as long as this module), so a caller with a C extension hands in its static
# strings' addresses (use_static_names) and this test tool then keeps to the rule.
_NAME_STORAGE = {name: name for name in (b"dltensor", b"dltensor_versioned", b"used_dltensor",
                                         b"used_dltensor_versioned")}


def use_static_names(addresses):
    """Name every capsule with the static strings at `addresses` ({b"dltensor": address, ...}),
    as the bridge's static_capsule_names() gives them."""
    _NAME_STORAGE.update(addresses)


def mark_used(capsule, name, storage=None):
    """Renames a capsule its consumer took, named `name` (LIFE-1): the deleter is the taker's.
    storage: what PyCapsule_SetName gets instead of the used_* name's own (a planted defect)."""
    _capsule_set_name(capsule, storage if storage is not None else _NAME_STORAGE[USED[name]])


_capsule_set_destructor = _python_function("PyCapsule_SetDestructor", ctypes.c_int,
                                           ctypes.py_object, ctypes.c_void_p)


def clear_destructor(capsule):
    """Sets no destructor on a capsule, as nanobind's caster does once it took the tensor."""
    _capsule_set_destructor(capsule, None)

_LEGACY, _VERSIONED = b"dltensor", b"dltensor_versioned"
_alive = {}  # struct address -> everything the struct points into
_calls = [0]


_PAGE = mmap.PAGESIZE


@DELETER
def _deleter(address):
    _calls[0] += 1
    kept = _alive.pop(address, None)
    if kept is not None and isinstance(kept[-1], mmap.mmap):  # guarded: nothing may touch it now
        _guarded_pages.append(kept[-1])  # the mapping stays, unreadable
        ctypes.CDLL(None).mprotect(ctypes.c_void_p(address), ctypes.c_size_t(_PAGE), 0)


_guarded_pages = []


def deleter_calls():
    return _calls[0]


def _dtype(dtype):
    return DTYPES[dtype] if isinstance(dtype, str) else tuple(dtype)


def capsule(dtype="f32", shape=(8,), strides=None, byte_offset=0, device=(1, 0),
            versioned=False, null_deleter=False, null_data=False, guarded=False,
            null_shape=False, ndim=None, version=(1, 3), flags=0, misalign=0, destructor=None,
            name_storage=None):
    code, bits, lanes = _dtype(dtype)
    ndim = len(shape) if ndim is None else ndim
    item = max(1, (bits * lanes + 7) // 8)
    steps = list(strides) if strides is not None else None
    if steps is None:  # compact row-major, for placing the values
        steps, run = [0] * ndim, 1
        for i in reversed(range(ndim)):
            steps[i], run = run, run * max(1, shape[i])
    count, low, high = 1, 0, 0
    for extent, step in zip(shape, steps):
        count *= max(0, extent)
        reach = (extent - 1) * step if extent > 0 else 0
        low, high = low + min(0, reach), high + max(0, reach)
    # A geometry a fuzz input makes up (extents of 2^62, strides of INT64_MAX) gets a token
    # storage: its tensor is invalid, and what matters is that the consumer is handed it.
    plausible = (all(e >= 0 for e in shape) and count < 1 << 20 and lanes > 0 and
                 (high - low) * item < 1 << 24 and byte_offset < 1 << 20)
    span = (high - low + 1) * item if plausible else 64
    reserve = byte_offset if plausible else 0
    storage = (ctypes.c_uint8 * (reserve + span + 64 + 256 + misalign))()
    start = ctypes.addressof(storage) + (-ctypes.addressof(storage)) % 256  # as DLPack advises
    start += misalign
    first = start + byte_offset + (-low) * item
    scalar = _SCALAR.get((code, bits))
    if plausible and scalar is not None and count > 0:
        for k in range(count):
            index, rest = [], k
            for extent in reversed(shape):
                index.append(rest % extent)
                rest //= extent
            offset = sum(i * s for i, s in zip(reversed(index), steps))
            for lane in range(lanes):
                value = (k + 1) % 2 if code == 6 else k + 1
                scalar.from_address(first + (offset * lanes + lane) * (bits // 8)).value = value
    shape_array = (ctypes.c_int64 * max(1, ndim))(*shape)
    strides_array = (ctypes.c_int64 * max(1, ndim))(*strides) if strides is not None else None
    struct = DLManagedTensorVersioned if versioned else DLManagedTensor
    page = mmap.mmap(-1, _PAGE) if guarded else None
    managed = struct.from_buffer(page) if guarded else struct()
    t = managed.dl_tensor
    # data + byte_offset is the first element: behind it, negative strides reach back (-low).
    t.data = None if null_data else start + (-low) * item if plausible else start
    t.device = DLDevice(*device)
    t.ndim = ndim
    t.dtype = DLDataType(code, bits, lanes)
    t.shape = None if null_shape else shape_array
    t.strides = strides_array
    t.byte_offset = byte_offset
    if versioned:
        managed.version = DLPackVersion(*version)
        managed.flags = flags
    managed.deleter = DELETER() if null_deleter else _deleter
    address = ctypes.addressof(managed)
    _alive[address] = (managed, storage, shape_array, strides_array) + ((page,) if guarded else ())
    # destructor: the address of a C PyCapsule_Destructor (see the comment on _capsule_new).
    # name_storage: what PyCapsule_New gets instead of the name's own storage (a planted defect).
    name = _VERSIONED if versioned else _LEGACY
    return _capsule_new(address, name_storage if name_storage is not None else _NAME_STORAGE[name],
                        destructor)


class Owner:
    """A struct a consumer took: its deleter runs once, when the last view of its data dies."""

    def __init__(self, struct):
        self.struct = struct

    def __del__(self):
        if self.struct.deleter:
            self.struct.deleter(ctypes.addressof(self.struct))


class View:
    """What numpy.asarray views: memory as an __array_interface__ describes it, and its owner."""

    def __init__(self, interface, owner):
        self.__array_interface__ = interface
        self.owner = owner


class Producer:
    """An array-like object over capsule(**spec). `asks` keeps the keywords of every
    __dlpack__ call a consumer made, in order."""

    def __init__(self, dtype="f32", shape=(8,), legacy=False, answers_legacy=False, **spec):
        self.spec = dict(spec, dtype=dtype, shape=shape)
        self.asks = []
        self.legacy, self.answers_legacy = legacy, answers_legacy
        if legacy:  # the old signature: no keyword a new consumer passes
            self.__dlpack__ = lambda stream=None: capsule(**self.spec)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.asks.append({"stream": stream, "max_version": max_version, "dl_device": dl_device,
                          "copy": copy})
        versioned = max_version is not None and max_version[0] >= 1 and not self.answers_legacy
        return capsule(**self.spec, versioned=versioned)

    def __dlpack_device__(self):
        return tuple(self.spec.get("device", (1, 0)))


_SPIN = r"""extern "C" __global__ void spin(long long ns) {
  long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}"""


class PendingPinned:
    """Pinned float32 zeros whose ones land `hold` seconds later, written on a stream of its own
    (see the module's docstring); CuPy does the CUDA calls."""

    def __init__(self, count=4096, hold=0.2):
        import cupy
        self.count, self.asks = count, []
        self.memory = cupy.cuda.alloc_pinned_memory(count * 4)
        ctypes.memset(self.memory.ptr, 0, count * 4)
        ones = cupy.ones(count, cupy.float32)
        cupy.cuda.Device().synchronize()  # the ones exist before the write is queued
        stream = cupy.cuda.Stream(non_blocking=True)
        cupy.RawKernel(_SPIN, "spin")((1,), (1,), (cupy.int64(int(hold * 1e9)),), stream=stream)
        cupy.cuda.runtime.memcpyAsync(self.memory.ptr, ones.data.ptr, count * 4, 2, stream.ptr)
        self.done = cupy.cuda.Event()
        self.done.record(stream)
        self.keep = (ones, stream)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        import cupy
        self.asks.append({"stream": stream, "max_version": max_version})
        if stream != -1:  # -1: the consumer synchronises itself
            cupy.cuda.runtime.streamWaitEvent(1 if stream is None else stream, self.done.ptr, 0)
        cap = capsule("f32", [self.count], device=(3, 0),
                      versioned=max_version is not None and max_version[0] >= 1)
        struct_of(cap)[1].dl_tensor.data = self.memory.ptr
        return cap

    def __dlpack_device__(self):
        return (3, 0)

    def landed(self):
        """Whether the ones have been written."""
        return self.done.done


def _managed(cap):
    name = _capsule_name(cap)
    return name, _capsule_pointer(cap, name)


def struct_of(cap):
    """(name, struct) of a capsule: its DLManagedTensorVersioned when it is named
    dltensor_versioned, else its DLManagedTensor."""
    name, address = _managed(cap)
    kind = DLManagedTensorVersioned if name == _VERSIONED else DLManagedTensor
    return name, kind.from_address(address)


def name_of(cap):
    """A capsule's name: "dltensor", or "used_dltensor" once a consumer took it (LIFE-1)."""
    return _capsule_name(cap).decode()


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


_capsule_name_address = _python_function("PyCapsule_GetName", ctypes.c_void_p, ctypes.py_object)
_dladdr = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_DlInfo))(
    ("dladdr", ctypes.CDLL(None)))


def name_in_loaded_object(cap):
    """The file of the loaded object (dladdr) whose memory holds the bytes of a capsule's name,
    statically allocated as python_spec.rst asks; None when no loaded object does (the heap)."""
    info = _DlInfo()
    if not _dladdr(_capsule_name_address(cap), ctypes.byref(info)):
        return None
    return (info.dli_fname or b"").decode(errors="replace")


def flags(cap):
    """The flags of a dltensor_versioned capsule."""
    name, struct = struct_of(cap)
    if name != _VERSIONED:
        raise ValueError(f"expected a dltensor_versioned capsule but found {name!r}")
    return struct.flags


def strides_of(cap):
    """The strides of a capsule's tensor (in elements), or None where it has none (compact)."""
    t = struct_of(cap)[1].dl_tensor
    return None if not t.strides else tuple(t.strides[i] for i in range(t.ndim))


def dtype_of(cap):
    """(code, bits, lanes) of a capsule's tensor."""
    d = struct_of(cap)[1].dl_tensor.dtype
    return (d.code, d.bits, d.lanes)


def device_of(cap):
    """(device_type, device_id) of a capsule's tensor."""
    d = struct_of(cap)[1].dl_tensor.device
    return (d.device_type, d.device_id)


class DLPackExchangeAPIHeader(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("prev_api", ctypes.c_void_p)]


class DLPackExchangeAPI(ctypes.Structure):  # dlpack.h v1.3, the slots as addresses
    _fields_ = [("header", DLPackExchangeAPIHeader),
                ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
                ("current_work_stream", ctypes.c_void_p)]


# The from_py_object slots take a PyObject* and need the GIL: PYFUNCTYPE keeps it, and raises the
# Python error a slot sets with -1.
FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                   ctypes.POINTER(ctypes.POINTER(DLManagedTensorVersioned)))
DLTENSOR_FROM_PY_OBJECT = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object,
                                            ctypes.POINTER(DLTensor))


def exchange_table(capsule):
    """The DLPackExchangeAPI table of a dlpack_exchange_api capsule."""
    return DLPackExchangeAPI.from_address(_capsule_pointer(capsule, b"dlpack_exchange_api"))


def xapi_from_py_object(obj):
    """The DLTensor (a DLTensor view of the owning struct, which leaks) that type(obj)'s C
    exchange API makes of obj through managed_tensor_from_py_object_no_sync. Called with the GIL
    held, so that an error the function sets is raised here."""
    table = exchange_table(type(obj).__dlpack_c_exchange_api__)
    out = ctypes.POINTER(DLManagedTensorVersioned)()
    if FROM_PY_OBJECT(table.managed_tensor_from_py_object_no_sync)(obj, ctypes.byref(out)) != 0:
        raise RuntimeError("from_py_object returned -1 without a Python exception")
    return out.contents.dl_tensor

