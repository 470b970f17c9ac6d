"""Planted Python producers: arrays whose __dlpack__ breaks one rule of an export, for
`dlconform matrix --adapter python/planted_producers.py`. Each builds its capsules with
reproducers/dlconform_capsule.py over its own values, so the only defect is the planted one.
producer_exports_test.py checks that each is caught with its class and rule, and that the
correct one has no finding.

  correct-producer     each capsule its own struct, which keeps the array alive until its deleter
                       runs, and a capsule destructor that calls the deleter of a capsule dropped
                       unconsumed; any stream but None refused on the CPU
  caches-one-struct    hands out one struct in every capsule of an array (a cache of one): the
                       second capsule consumed reads a struct whose deleter already ran (LIFE-3)
  frees-with-source    frees its data when the array dies, though a capsule still points at it
                       (LIFE-6): its structs do not keep the array alive
  no-capsule-destructor  sets no capsule destructor: a capsule dropped unconsumed never calls
                       its deleter, and the array it keeps alive leaks (LIFE-2)
  stream-on-cpu        exports a CPU array for any stream (STRM-1, INFO)
  ignores-byte-order   exports an array of the other byte order as if it were native, where
                       DLPack has no way to say so
  max-version-unchecked  reads max_version as a tuple without a check, as C code that takes the
                       item of what it was given: a bare int is read as an address (a crash)
  any-max-version      takes a max_version that is no 2-tuple for None, and exports (INFO)
  unpacked-float4      exports float4 elements one per byte, without the padded flag: a
                       consumer reads them packed, two to a byte (DT-3)
  exports-none         has a to_dlpack() that never checks what it is handed: None gives a
                       capsule of an empty tensor
  ignores-copy         hands out the array's own memory for copy=True too (with IS_COPIED)
  ignores-copy-with-device  the same, only when dl_device is passed too: each keyword works
                       alone, not together (STRM-4)
  copies-for-copy-false  hands out a copy for copy=False, where it must never copy (STRM-4)
  copies-for-copy-none  hands out a copy (IS_COPIED) for copy=None, though it shares for
                       copy=False: where reuse is possible, copy=None must reuse (STRM-4)
  device-id-one        says its CPU arrays are on device (1, 1), in __dlpack_device__ and in the
                       struct: a CPU device_id is 0 (DEV-2)
  unknown-device-type  says its CPU arrays are on device type 99, which DLPack does not name
                       (DEV-1)
  returns-bytes        returns the struct's bytes from __dlpack__, not a capsule (VER-4)
  no-keywords          a __dlpack__ that takes no keyword at all, stream included (VER-4)
  refuses-own-device   raises BufferError for dl_device=(1, 0), its arrays' own device (STRM-3)
  device-value-error   raises ValueError, not BufferError, for a dl_device it cannot export to
                       (STRM-3)
  equal-version-only   exports a versioned struct only when max_version equals its own (1, 3)
                       exactly, a legacy one for (1, 0) and (2, 0) (VER-4: a downgrade)
  sub-byte-as-byte     states its float4_e2m1fn and float6_e2m3fn elements as 8 bits wide (DT-1:
                       4 and 6 bits)
  unknown-dtype-code   states its float32 data with type code 99, no DLDataTypeCode (DT-2)
  zero-lanes           states its float32 data with 0 lanes (DT-1)
  bool-as-uint8        states its bool arrays as 8-bit unsigned integers, not type code 6 (DT-1)
  complex-part-width   states its complex arrays with the width of one part (complex64 as 32
                       bits), where `bits` is the pair's (DT-3)
  device-of-first-element  finds a size-0 array's device by its first element, which it lacks:
                       __dlpack_device__() raises IndexError there (DEV-1); __dlpack__ is right
  capsule-on-other-device  says (1, 0) in __dlpack_device__ but states kDLCUDAHost (3, 0) in every
                       struct, host memory all the same: the capsule is not on self's device
                       (DEV-1; STRM-3 where dl_device=(1, 0) was asked)
  truncates-byte-strides  exports an array whose byte strides are no multiple of its itemsize
                       with the strides divided down to whole elements, where the others refuse
                       with BufferError: the tensor addresses other values (LAY-4)
  name-blind-destructor  a capsule destructor that calls the deleter whatever the capsule's name:
                       a capsule its consumer renamed used_* and deleted is deleted again (LIFE-2;
                       its structs outlive their deleter, so the second call reads a live one)
  no-device-method     its arrays have __dlpack__ but no __dlpack_device__, which from_dlpack
                       calls first (DEV-1: an AttributeError where the device was due)
  destructor-clears-exception  a capsule destructor that clears the pending error before it
                       deletes: an exception in flight while an unconsumed capsule dies is lost
                       (LIFE-2)
  flags-own-memory-copied  sets IS_COPIED on every export, its own memory shared too: the
                       consumer is told the tensor is solely its own while the array still uses
                       it (FLAG-2)
  exports-conjugate-view  its complex arrays can be lazily conjugated (a conjugate bit, as
                       torch's conj()); such a view exports its stored values, where it must
                       refuse or resolve them: the consumer reads the unconjugated ones (LAY-4)
  heap-capsule-name    names its capsules with bytes objects, heap memory, where python_spec.rst
                       wants the names statically allocated (LIFE-1): the capsule keeps the
                       pointer, which dangles once the bytes' owner dies (as ctypes exporters do)
  deleter-without-gil  its deleter releases a Python object of its own before it takes the GIL
                       (LIFE-7): right where a Python consumer calls it, wrong on a thread of a
                       C consumer that holds no GIL

Device producers: arrays that say they live on oneAPI device 0 (kDLOneAPI, 14), their values in
host memory all the same, a stand-in that no judge reads on the host (the device rows judge a
device export by its metadata, its values through the host copy dl_device=(1, 0) asks for). Their
rows are those of dpnp on a real oneAPI device (devices/*/F/negotiation/..., devices/*/F/C@H/...):

  device-stand-in      a correct one: a host copy for dl_device=(1, 0) with IS_COPIED, refused with
                       BufferError under copy=False (the Array API: "raise a BufferError in case
                       a copy is deemed necessary"); another device refused with BufferError
  device-copies-for-copy-false  hands out the host copy for dl_device=(1, 0) under copy=False too
                       (STRM-4: a cross-device movement that copy=False forbids)
  device-copy-unflagged  its host copies do not say IS_COPIED (FLAG-2: the consumer is not told
                       the tensor is solely its own, P-33)
  cuda-stand-in        the correct one on CUDA device 0 (kDLCUDA): every stream value the Array
                       API defines taken (None, 1, 2, -1; 0 too); the CUDA rows that need no GPU
                       (the stream values, the dl_device x copy table, the mock consumers)
  cuda-stand-in-with-memories  the same, with arrays in pinned and managed memory (answering
                       kDLCUDAHost and kDLCUDAManaged): devices/*/F/memory/KIND/f32_2x3
  cuda-managed-as-host  says its managed arrays are plain host memory (1, 0), a device type
                       managed memory has not (DEV-1, P-37)
  cuda-pinned-as-device  says its pinned arrays are CUDA device memory (2, 0), as torch 2.11 does
                       in the GPU run (DEV-1, P-36)
  cuda-refuses-default-stream  refuses an explicit stream=None (BufferError), where it must assume
                       the legacy default stream (STRM-1: "None: producer must assume the legacy
                       default stream"); without stream= it exports
  cuda-misreads-legacy-stream  takes stream=1 for a handle and fails with a CUDA error (STRM-2:
                       "1: the legacy default stream")
  cuda-misreads-per-thread-stream  the same for 2 (STRM-2: "2: the per-thread default stream")
"""
import ctypes
import mmap
import os
import sys

import _dlconform as bridge
import _dlconform_planted_capsules as planted_capsules
import dlconform_adapter as dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reproducers"))
import dlconform_capsule as cap  # noqa: E402  (beside this file, in reproducers/)

cap.use_static_names(bridge.static_capsule_names())  # python_spec.rst: static names (LIFE-1)
_released_pages = []  # the data pages of dead frees-with-source arrays: unreadable, kept mapped
_DESTRUCTORS = planted_capsules.destructors()
DESTRUCTOR = _DESTRUCTORS["unconsumed"]  # deletes a capsule dropped unconsumed (LIFE-2)
# The planted ones: any capsule deleted, the used ones too; the pending error cleared first.
PLANTED_DESTRUCTORS = {"name-blind-destructor": _DESTRUCTORS["name-blind"],
                       "destructor-clears-exception": _DESTRUCTORS["clearing"]}
_kept_structs = []  # name-blind-destructor's structs, kept past their deleter
# Capsules without the destructor: the planted one, and caches-one-struct's, whose one struct must
# outlive each capsule that carries it (its bug is the cache alone).
BARE_CAPSULES = ("no-capsule-destructor", "caches-one-struct")
# Structs that do not keep their array alive: frees-with-source's (its bug), caches-one-struct's
# (without a destructor, a held array would never be released).
UNHELD = ("frees-with-source", "caches-one-struct")


# heap-capsule-name's names: bytes objects (heap memory, alive as long as this module).
HEAP_NAMES = {True: bytes(bytearray(b"dltensor_versioned")), False: bytes(bytearray(b"dltensor"))}


def _dl_tensor(capsule):
    """The DLTensor inside a capsule of either struct kind."""
    return cap.struct_of(capsule)[1].dl_tensor


# What a planted producer states in the struct's dtype instead of the true one.
STATED = {("sub-byte-as-byte", (17, 4, 1)): (17, 8, 1),
          ("sub-byte-as-byte", (15, 6, 1)): (15, 8, 1),
          ("unknown-dtype-code", (2, 32, 1)): (99, 32, 1),
          ("zero-lanes", (2, 32, 1)): (2, 32, 0),
          ("bool-as-uint8", (6, 8, 1)): (1, 8, 1),
          ("complex-part-width", (5, 64, 1)): (5, 32, 1),
          ("complex-part-width", (5, 128, 1)): (5, 64, 1)}


class Array:
    """A float32 array (or a narrow float one: its bit patterns in uint8 `values`) with its own
    values and a planted __dlpack__. Its capsules share the values' memory unless asked for a
    copy (or the values must be packed, or the planted bug wants its own page)."""

    def __init__(self, values, planted, dtype=(2, 32, 1)):
        self.values, self.planted, self.dtype = values, planted, dtype
        self.cached = None  # caches-one-struct: (name, struct address) of the first export
        self.page = None    # frees-with-source: the page its data lives in

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        if stream is not None and self.planted != "stream-on-cpu":
            raise BufferError("only stream=None is accepted for a CPU array")
        if dl_device is not None and tuple(dl_device) != (1, 0):
            if self.planted == "device-value-error":
                raise ValueError(f"unsupported device {dl_device}")
            raise BufferError(f"cannot export to device {dl_device}")
        if dl_device is not None and self.planted == "refuses-own-device":
            raise BufferError("dl_device is not supported")
        if not self.values.dtype.isnative and self.planted != "ignores-byte-order":
            raise BufferError("DLPack has no byte order: only native arrays are exported")
        itemsize = self.values.dtype.itemsize
        odd_strides = any(step % itemsize for step in self.values.strides)
        if odd_strides and self.planted != "truncates-byte-strides":
            raise BufferError("byte strides that are no multiple of the itemsize")
        if max_version is not None and not isinstance(max_version, tuple):
            if self.planted == "max-version-unchecked":  # the planted read, at the int's address
                ctypes.string_at(max_version, 8)
            if self.planted == "any-max-version":
                max_version = None
        versioned = max_version is not None and max_version[0] >= 1
        if self.planted == "equal-version-only":  # the planted test: == where >= was meant
            versioned = max_version is not None and tuple(max_version) == (1, 3)
        if self.planted == "caches-one-struct" and self.cached is not None:
            name, address = self.cached
            return cap._capsule_new(address, cap._NAME_STORAGE[name], None)
        copies_for_none = copy is None and self.planted == "copies-for-copy-none"
        compact = [1] * self.values.ndim  # strides in elements: never NULL (LAY-5)
        for i in reversed(range(self.values.ndim - 1)):
            compact[i] = compact[i + 1] * max(1, self.values.shape[i + 1])
        if odd_strides:  # the planted division: 5 bytes make 1 element
            compact = [step // itemsize for step in self.values.strides]
        # guarded: the struct alone in a page its deleter makes unreadable
        capsule = cap.capsule(self.dtype, self.values.shape, strides=compact, versioned=versioned,
                              version=min(tuple(max_version or (1, 3)), (1, 3)),
                              flags=cap.IS_COPIED if copy or self.planted == "flags-own-memory-copied"
                              or copies_for_none else 0, device=self.device(),
                              guarded=self.planted == "caches-one-struct",
                              destructor=None if self.planted in BARE_CAPSULES else
                              PLANTED_DESTRUCTORS.get(self.planted, DESTRUCTOR),
                              name_storage=HEAP_NAMES[versioned]
                              if self.planted == "heap-capsule-name" else None)
        if self.planted == "name-blind-destructor":
            _kept_structs.append(cap._alive[cap._managed(capsule)[1]])
        tensor = _dl_tensor(capsule)
        tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes = STATED.get(
            (self.planted, self.dtype), self.dtype)
        ignores_copy = self.planted == "ignores-copy" or (
            self.planted == "ignores-copy-with-device" and dl_device is not None)
        shares = self.dtype == (2, 32, 1) and (not copy or ignores_copy)
        if (copy is False and self.planted == "copies-for-copy-false") or copies_for_none:
            shares = False
        if self.planted == "frees-with-source":
            if self.page is None:
                self.page = mmap.mmap(-1, max(mmap.PAGESIZE, self.values.nbytes))
            tensor.data = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        elif shares and self.values.size:
            tensor.data = self.values.ctypes.data
        if self.planted not in UNHELD:  # as a framework's manager_ctx holds its array
            _, address = cap._managed(capsule)
            cap._alive[address] += (self,)  # the array lives until the deleter runs
        if tensor.data != self.values.ctypes.data:
            stored = self.stored()
            ctypes.memmove(tensor.data, stored, len(stored))
        if self.planted == "caches-one-struct":
            self.cached = cap._managed(capsule)
        if self.planted == "deleter-without-gil":
            _, address = cap._managed(capsule)
            planted_capsules.release_without_gil(address, versioned, bytearray(16))
        if self.planted == "returns-bytes":  # the struct's bytes, where a capsule was due
            _, address = cap._managed(capsule)
            return ctypes.string_at(address, ctypes.sizeof(
                cap.DLManagedTensorVersioned if versioned else cap.DLManagedTensor))
        return capsule

    def stored(self):
        """The bytes of the values as DLPack lays them out: sub-byte elements packed, lowest bits
        first (DT-3), unless the planted bug keeps them one per byte."""
        width = self.dtype[1] * self.dtype[2]
        if width >= 8 or (self.planted, self.dtype) == ("unpacked-float4", (17, 4, 1)):
            return self.values.tobytes()
        bits = 0
        for i, code in enumerate(self.values.tolist()):
            bits |= code << (i * width)
        return bits.to_bytes((self.values.size * width + 7) // 8, "little")

    def device(self):
        """The device the array's structs state (the planted ones state a wrong one there too)."""
        return {"device-id-one": (1, 1), "unknown-device-type": (99, 0),
                "capsule-on-other-device": (3, 0)}.get(self.planted, (1, 0))

    def __dlpack_device__(self):
        if self.planted == "device-of-first-element" and self.values.size == 0:
            raise IndexError("index 0 is out of bounds for axis 0 with size 0")
        if self.planted == "capsule-on-other-device":
            return (1, 0)
        return self.device()

    def __del__(self):
        if self.page is not None:  # the planted free: no read of the data comes back
            address = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
            ctypes.CDLL(None).mprotect(ctypes.c_void_p(address), ctypes.c_size_t(len(self.page)), 0)
            _released_pages.append(self.page)


class Planted(dlc.PlantedParty):
    """The correct producer, and the base of the planted ones."""
    name = "numpy"  # the module the interface imports; the arrays are this file's
    dtypes = ["float32"]
    imports = False
    writable_concept = False
    planted = "correct-producer"
    array = Array  # the array type it makes

    def probe(self):
        return {"dtypes": ["float32"], "has_xapi": False}

    def from_np(self, array):
        return self.array(self.np.ascontiguousarray(array, dtype="float32"), self.planted)

    def to_np(self, value):
        return value.values

    def writable(self, value):
        return True

    def narrow_floats(self):
        return {name: (dtype, lambda codes, dtype=dtype: self.array(codes, self.planted, dtype))
                for name, dtype in (("float4_e2m1fn", (17, 4, 1)), ("float6_e2m3fn", (15, 6, 1)))}

    def unexpressible(self):
        np = self.np
        other_order = np.dtype("float32").newbyteorder()

        def odd_strides():  # 5-byte steps over float32, over bytes that differ
            return np.ndarray((3,), "float32", buffer=np.arange(16, dtype="uint8"), strides=(5,))
        return {"big-endian": ("a float32 array of the other byte order",
                               lambda: self.array(np.arange(4, dtype=other_order), self.planted)),
                "odd-byte-strides": ("byte strides that are no multiple of the itemsize",
                                     lambda: self.array(odd_strides(), self.planted))}


class NoCapsuleDestructor(Planted):
    planted = "no-capsule-destructor"


class CachesOneStruct(Planted):
    planted = "caches-one-struct"


class FreesWithSource(Planted):
    planted = "frees-with-source"


class StreamOnCpu(Planted):
    planted = "stream-on-cpu"


class IgnoresByteOrder(Planted):
    planted = "ignores-byte-order"


class MaxVersionUnchecked(Planted):
    planted = "max-version-unchecked"


class AnyMaxVersion(Planted):
    planted = "any-max-version"


class UnpackedFloat4(Planted):
    planted = "unpacked-float4"


def unchecked_to_dlpack(value):
    """exports-none's own exporter: whatever it is handed, a capsule (None: an empty tensor)."""
    if value is None:
        return cap.capsule("f32", (0,))
    return value.__dlpack__()


class ExportsNone(Planted):
    planted = "exports-none"
    legacy_exports = {"to_dlpack": staticmethod(unchecked_to_dlpack)}


class IgnoresCopy(Planted):
    planted = "ignores-copy"


class CopiesForCopyFalse(Planted):
    planted = "copies-for-copy-false"


class CopiesForCopyNone(Planted):
    planted = "copies-for-copy-none"


class DeviceIdOne(Planted):
    planted = "device-id-one"


class UnknownDeviceType(Planted):
    planted = "unknown-device-type"


class ReturnsBytes(Planted):
    planted = "returns-bytes"


class KeywordlessArray(Array):
    """An array of the DLPack 0.x era: __dlpack__ takes no keyword, stream included."""

    def __dlpack__(self):  # noqa: the planted signature
        return super().__dlpack__()


class NoKeywords(Planted):
    planted = "no-keywords"
    array = KeywordlessArray


class RefusesOwnDevice(Planted):
    planted = "refuses-own-device"


class DeviceValueError(Planted):
    planted = "device-value-error"


class EqualVersionOnly(Planted):
    planted = "equal-version-only"


class SubByteAsByte(Planted):
    planted = "sub-byte-as-byte"


class UnknownDtypeCode(Planted):
    planted = "unknown-dtype-code"


class ZeroLanes(Planted):
    planted = "zero-lanes"


class OtherDtypes:
    """For a planted producer that makes other dtypes than float32 too, each in its `_7` case (a
    mixin: the adapter loader takes every Framework subclass of this file for a party)."""

    def probe(self):
        return {"dtypes": list(self.dtypes), "has_xapi": False}

    def from_np(self, array):
        if array.dtype.name == "float32":
            return super().from_np(array)
        return self.array(self.np.ascontiguousarray(array), self.planted,
                          dlc.DTYPES[array.dtype.name])


class BoolAsUint8(OtherDtypes, Planted):
    planted = "bool-as-uint8"
    dtypes = ["float32", "bool"]


class ComplexPartWidth(OtherDtypes, Planted):
    planted = "complex-part-width"
    dtypes = ["float32", "complex64", "complex128"]


class DeviceOfFirstElement(Planted):
    planted = "device-of-first-element"


class CapsuleOnOtherDevice(Planted):
    planted = "capsule-on-other-device"


class TruncatesByteStrides(Planted):
    planted = "truncates-byte-strides"


class NameBlindDestructor(Planted):
    planted = "name-blind-destructor"


class DestructorClearsException(Planted):
    planted = "destructor-clears-exception"


class DevicelessArray(Array):
    """An array with __dlpack__ alone: the planted omission of __dlpack_device__."""

    @property
    def __dlpack_device__(self):
        raise AttributeError("'DevicelessArray' object has no attribute '__dlpack_device__'")


class NoDeviceMethod(Planted):
    planted = "no-device-method"
    array = DevicelessArray


class IgnoresCopyWithDevice(Planted):
    planted = "ignores-copy-with-device"


class ConjugateView(Array):
    """A complex array whose values are the conjugates of those it stores (a conjugate bit)."""


class ExportsConjugateView(OtherDtypes, Planted):
    planted = "exports-conjugate-view"
    dtypes = ["float32", "complex64"]

    def to_np(self, value):
        return self.np.conj(value.values) if isinstance(value, ConjugateView) else value.values

    def unexpressible(self):
        values = self.np.array([1 + 2j, 3 - 4j, -5 + 6j, 7j], dtype="complex64")
        return dict(super().unexpressible(), conj=(
            "a complex array with its conjugate bit set",
            lambda: ConjugateView(values, self.planted, dlc.DTYPES["complex64"])))


class FlagsOwnMemoryCopied(Planted):
    planted = "flags-own-memory-copied"


class HeapCapsuleName(Planted):
    planted = "heap-capsule-name"


class DeleterWithoutGil(Planted):
    planted = "deleter-without-gil"


ONEAPI = (14, 0)  # where the device producers say their arrays live
CUDA = (2, 0)  # ... and the CUDA ones (cuda-*)
HOST = (1, 0)
# The CUDA stand-ins' misreadings: a stream value the Array API defines (1 the legacy default
# stream, 2 the per-thread default) taken for a handle, as JAX 0.11 takes -1: a CUDA error.
MISREAD_STREAM = {"cuda-misreads-legacy-stream": 1, "cuda-misreads-per-thread-stream": 2}
CUDA_FAMILY = (2, 3, 13)  # CUDA device memory, pinned host memory, managed memory
NOT_PASSED = object()  # __dlpack__ called without stream=
EXPLICIT_NONE = object()  # ... and with stream=None, which cuda-refuses-default-stream refuses


class DeviceArray(Array):
    """An array on a device (`where`: oneAPI device 0, CUDA device 0, or CUDA's pinned or managed
    memory), its values in host memory (the stand-in): its own exports state that device;
    dl_device=(1, 0) gets a host copy, a CPU array of its own."""

    def __init__(self, values, planted, dtype=(2, 32, 1), where=ONEAPI):
        super().__init__(values, planted, dtype)
        self.where = where

    def device(self):
        return self.where

    def take_stream(self, stream):
        """Raises where the stand-in refuses or misreads `stream`. On CUDA every value the Array
        API defines is taken (None, -1, 1, 2, or a handle above 2), 0 too; elsewhere None alone
        (a SYCL queue would be oneAPI's stream: none is taken here)."""
        if self.device()[0] not in CUDA_FAMILY:
            if stream not in (None, EXPLICIT_NONE):
                raise BufferError("only stream=None is accepted")
            return
        if stream is EXPLICIT_NONE and self.planted == "cuda-refuses-default-stream":
            raise BufferError("stream=None is not supported: pass a CUDA stream")  # the planted
        if stream in (None, EXPLICIT_NONE):
            return
        if stream == MISREAD_STREAM.get(self.planted):
            raise RuntimeError(f"CUDA error: invalid resource handle (stream {stream:#x})")

    def __dlpack__(self, *, stream=NOT_PASSED, max_version=None, dl_device=None, copy=None):
        self.take_stream(EXPLICIT_NONE if stream is None else None if stream is NOT_PASSED
                         else stream)
        own = self.device()
        target = own if dl_device is None else tuple(dl_device)
        if target == own:
            return super().__dlpack__(max_version=max_version, copy=copy)
        if target != HOST:
            raise BufferError(f"cannot export to device {target}")
        if copy is False and self.planted != "device-copies-for-copy-false":
            raise BufferError(f"the array is on device {own}: a host tensor needs a copy, and "
                              f"copy=False forbids one")
        capsule = Array(self.values.copy(), "correct-producer", self.dtype).__dlpack__(
            max_version=max_version, copy=True)  # the host copy, with IS_COPIED
        if self.planted == "device-copy-unflagged" and cap.struct_of(capsule)[0] == \
                b"dltensor_versioned":
            cap.struct_of(capsule)[1].flags &= ~cap.IS_COPIED  # the planted omission
        return capsule


class DeviceStandIn(Planted):
    planted = "device-stand-in"
    device = ONEAPI

    def array(self, values, planted, dtype=(2, 32, 1)):
        """Its arrays live where the adapter says (`device`), as Planted's `array` type would."""
        return DeviceArray(values, planted, dtype, self.device)


class DeviceCopiesForCopyFalse(DeviceStandIn):
    planted = "device-copies-for-copy-false"


class DeviceCopyUnflagged(DeviceStandIn):
    planted = "device-copy-unflagged"


class CudaStandIn(DeviceStandIn):
    planted = "cuda-stand-in"
    device = CUDA


class CudaMemories:
    """The pinned and managed arrays of a CUDA stand-in (devices/*/F/memory/KIND/f32_2x3): pinned
    host memory says kDLCUDAHost (3, 0), managed memory kDLCUDAManaged (13, 0), unless the
    planted bug says otherwise (a mixin: the adapter loader takes every Framework subclass)."""
    wrong_memory = {}  # kind -> the device the planted bug says

    def memories(self):
        def builder(kind, where):
            return lambda array: DeviceArray(self.np.ascontiguousarray(array, dtype="float32"),
                                             self.planted, where=self.wrong_memory.get(kind, where))
        return {"pinned": builder("pinned", (3, 0)), "managed": builder("managed", (13, 0))}


class CudaStandInWithMemories(CudaMemories, CudaStandIn):
    planted = "cuda-stand-in-with-memories"


class CudaManagedAsHost(CudaMemories, CudaStandIn):
    planted = "cuda-managed-as-host"
    wrong_memory = {"managed": HOST}  # managed memory said to be plain host memory


class CudaPinnedAsDevice(CudaMemories, CudaStandIn):
    planted = "cuda-pinned-as-device"
    wrong_memory = {"pinned": CUDA}  # page-locked host memory said to be device memory


class CudaRefusesDefaultStream(CudaStandIn):
    planted = "cuda-refuses-default-stream"


class CudaMisreadsLegacyStream(CudaStandIn):
    planted = "cuda-misreads-legacy-stream"


class CudaMisreadsPerThreadStream(CudaStandIn):
    planted = "cuda-misreads-per-thread-stream"
