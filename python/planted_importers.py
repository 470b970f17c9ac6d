"""Planted Python importers: from_dlpack implementations that take the tensor themselves (the
capsule renamed, a NumPy view over its memory with its shape, strides, byte_offset, dtype and
READ_ONLY flag, the deleter called when the last view dies), each with one defect, for
`dlconform matrix --adapter python/planted_importers.py --filter 'framework/*'`: the framework
import rows that every real importer gets (a mock producer's tensors, CUDA and OpenCL stand-ins
on the host). importer_rows_test.py checks that each is caught with its class and rule on the
tensors it gets wrong, and on no other; the correct one has no finding at all.

  correct-importer     takes every host tensor of its profile (the dtypes NumPy has, any strides,
                       up to 32 dimensions); a device it cannot reach is refused with BufferError
  caps-ndim-8          refuses a tensor of more than 8 dimensions, though its profile takes 32
                       (rejected-valid: NumPy's importers take 0 to 32, the peers' high rank)
  refuses-device-with-value-error  refuses a device it cannot reach with ValueError, where
                       DLPack recommends BufferError (wrong-refusal-exception DEV-3)
  bfloat16-as-float16  takes a bfloat16 tensor (kDLBfloat, 16 bits) as IEEE float16: its array
                       says float16 (wrong-metadata LAY-1, P-05: "bfloat16 crosses as bfloat16")
  ignores-byte-offset  views the data from `data`, without `byte_offset` (wrong-data LAY-4)
  null-strides-column-major  takes NULL strides for column-major order, where DLPack says
                       row-major (wrong-data LAY-5)
  capsule-api-keeps-name  has a capsule API beside from_dlpack (from_capsule(capsule), as
                       TensorFlow's and Paddle's) that takes a bare capsule without renaming it
                       (its array keeps the capsule): the capsule's destructor would delete the
                       tensor again after the array's deleter call (capsule-not-renamed LIFE-1;
                       the peers' capsule-API tests, P-65); from_dlpack renames
  scalar-copy-leaks    copies a 0-d tensor's value and clears the capsule's destructor, as
                       nanobind's importers do, but never calls that struct's deleter
                       (deleter-never-called LIFE-3: the rename and the leak seen without the
                       capsule's end)
  import-on-other-device  takes the tensor right, but its array says it lives in CUDA pinned
                       host memory (kDLCUDAHost): from_dlpack(x) without device= must put the
                       result on x's device, the CPU (producer-violation DEV-1 in
                       negotiation/module/import-on-other-device@1/__dlpack_device__/import,
                       reports/planted-importer-devices.json)

  no-host-copy         refuses from_dlpack(x, device="cpu") of a device array with BufferError
                       without asking the producer for a host copy: the exception a library
                       that "does not support such cases at all" must raise, where it should
                       offer a way (host-copy-not-offered STRM-3, SHOULD)
  host-copy-drops-copy  asked from_dlpack(x, device="cpu", copy=False) of a device array, asks
                       the producer for dl_device=(1, 0) without copy= and imports the host copy
                       it gets: a copy that copy=False forbids (copy-made STRM-4)

The pairs (`--filter 'pairs/*'`, reports/planted-pairs.json): each importer imports the arrays of
aligned-exporter, a correct exporter over NumPy that does what dlpack.h recommends for `data`
("aligned to 256 bytes", with `byte_offset` pointing "to the beginning of the data"): it hands
`data` 512 bytes before the first element, over a prefix of 0xa5 bytes. An importer that
reads wrong values or calls no deleter fails a pair as it fails a framework row:
ignores-byte-offset reads the prefix (wrong-data LAY-4), null-strides-column-major reads the
compact 2-D array that a NumPy before 2.0 exports with NULL strides in column-major order
(wrong-data LAY-5), scalar-copy-leaks never calls the 0-d array's deleter (deleter-never-called
LIFE-3). device-exporter, a correct exporter whose arrays say they live on oneAPI device 0
(host memory all the same), gives each importer five arrays plain, with device="cpu" and with
device="cpu", copy=False: each refuses the plain ones with BufferError; asked for the host, each
asks for a host copy (dl_device=(1, 0)), but refuses-device-with-value-error raises ValueError
without asking (wrong-refusal-exception STRM-3, DEV-3 plain: "If the array library does not
support such cases at all, the function must raise BufferError"), and host-copy-drops-copy
imports a copy under copy=False (copy-made STRM-4). device-exporter-copies-for-copy-false hands
out that host copy even when copy=False is passed on: the importers that pass it on (all but
host-copy-drops-copy and refuses-device-with-value-error) import it, the exporter's fault
(producer-violation STRM-4). importer_pairs_test.py checks each, and that every other importer
passes every pair.
"""
import ctypes
import os
import sys

import numpy

import _dlconform as bridge
import dlconform_adapter as dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reproducers"))
import dlconform_capsule as cap  # noqa: E402  (beside this file, in reproducers/)

cap.use_static_names(bridge.static_capsule_names())  # python_spec.rst: static names (LIFE-1)

READ_ONLY = 1 << 0
# DLPack (code, bits) -> the NumPy type-string letter; lanes must be 1.
KINDS = {0: "i", 1: "u", 2: "f", 5: "c", 6: "b"}
NUMPY_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                "float16", "float32", "float64", "complex64", "complex128", "bool"]


_leaked_views = []  # scalar-copy-leaks's views, never released
_EMPTY = (ctypes.c_uint64 * 8)()  # where a size-0 view points (NumPy needs some address)


class Importer:
    """The planted library: its from_dlpack. (Not the adapter's code: what it raises is the
    library's answer, judged as any library's.)"""
    renames = True  # takes a capsule by renaming it used_* (LIFE-1)

    serves_host = True  # from_dlpack(device="cpu") of a device array asks for a host copy
    passes_copy = True  # ... and passes its copy= on to the producer

    def from_dlpack(self, obj, *, device=None, copy=None):
        kind, _ = obj.__dlpack_device__()
        if kind != 1 and device == "cpu" and self.serves_host:
            ask = {"max_version": (1, 3), "dl_device": (1, 0)}  # the producer copies, or refuses
            if self.passes_copy:
                ask["copy"] = copy
            return self.take(obj.__dlpack__(**ask))
        if kind != 1:
            self.refuse_device(kind)
        try:
            capsule = obj.__dlpack__(max_version=(1, 3))
        except TypeError:  # a producer of the old signature
            capsule = obj.__dlpack__()
        return self.take(capsule)

    def refuse_device(self, kind):
        raise BufferError(f"device type {kind} is not accessible from the host")

    def take(self, capsule):
        """The tensor of `capsule` as a NumPy view; the capsule renamed once it is ours."""
        name, struct = cap.struct_of(capsule)
        if name not in cap.USED:
            raise TypeError(f"expected a dltensor capsule but found {name!r}")
        versioned = name == b"dltensor_versioned"
        if versioned and struct.version.major != 1:
            raise BufferError(f"DLPack {struct.version.major}.x is not supported")
        t = struct.dl_tensor
        code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
        kind = self.kind_of(code, bits)
        if kind is None or lanes != 1 or bits % 8 or (code == 6 and bits != 8):
            raise BufferError(f"dtype ({code}, {bits}, {lanes}) is not supported")
        if t.device.device_type != 1:
            raise BufferError(f"device type {t.device.device_type} is not accessible")
        self.check_ndim(t.ndim)
        if self.renames:
            cap.mark_used(capsule, name)  # taken: the deleter is ours to call
        item = bits // 8
        shape = tuple(t.shape[i] for i in range(t.ndim))
        strides = (self.compact_strides(shape, item) if not t.strides else
                   tuple(t.strides[i] * item for i in range(t.ndim)))
        read_only = versioned and bool(struct.flags & READ_ONLY)
        first = ctypes.addressof(_EMPTY) if 0 in shape else self.first_element(t)
        interface = {"data": (first, read_only), "shape": shape, "strides": strides,
                     "version": 3, "typestr": "|b1" if code == 6 else f"<{kind}{item}"}
        return numpy.asarray(cap.View(interface, cap.Owner(struct)))  # the deleter once (LIFE-3)

    def kind_of(self, code, bits):
        """The NumPy type-string letter of a DLPack type code, or None for one NumPy lacks."""
        return KINDS.get(code)

    def check_ndim(self, ndim):
        pass

    def compact_strides(self, shape, item):
        return None  # NULL strides: compact row-major (LAY-5), NumPy's default


    def first_element(self, t):
        return t.data + t.byte_offset


class CapsuleApiKeepsName(Importer):
    def from_capsule(self, capsule):
        self.renames = False  # the planted take: the capsule keeps its name
        value = self.take(capsule)
        value.base.capsule = capsule  # the array keeps its capsule, which dies after the owner
        return value


class ScalarCopyLeaks(Importer):
    def take(self, capsule):
        view = super().take(capsule)  # renamed used_*
        if view.ndim != 0:
            return view
        cap.clear_destructor(capsule)  # as nanobind does once the tensor is its own
        _leaked_views.append(view)  # the planted leak: its deleter never runs
        return view.copy()  # the fast path: the value copied


class CapsNdim8(Importer):
    def check_ndim(self, ndim):
        if ndim > 8:  # the planted limit: its profile says 32
            raise BufferError(f"at most 8 dimensions are supported, not {ndim}")


class DeviceValueError(Importer):
    serves_host = False  # no host copy of a device array, device="cpu" or not

    def refuse_device(self, kind):
        raise ValueError(f"unsupported device type {kind}")


class Bfloat16AsFloat16(Importer):
    def kind_of(self, code, bits):
        if (code, bits) == (4, 16):
            return "f"  # the planted reading: kDLBfloat's 16 bits as IEEE half precision
        return super().kind_of(code, bits)


class IgnoresByteOffset(Importer):
    def first_element(self, t):
        return t.data  # the planted read: byte_offset dropped


class NullStridesColumnMajor(Importer):
    def compact_strides(self, shape, item):
        strides, step = [], item  # the planted reading: the first axis varies fastest
        for extent in shape:
            strides.append(step)
            step *= max(1, extent)
        return tuple(strides)


PREFIX = 512  # bytes between aligned-exporter's `data` and its first element: 0xa5 each
PREFIX_BYTE = 0xa5


class OffsetArray:
    """An array of aligned-exporter: a NumPy array whose export says data = first element - PREFIX
    (a multiple of 256 when the element is) and byte_offset = PREFIX. Its memory starts PREFIX
    bytes of PREFIX_BYTE before the array's own first byte, so every view's `data` still lies in
    it, and an importer that drops byte_offset reads those bytes."""
    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **keywords):
        capsule = self.array.__dlpack__(**keywords)
        struct = cap.struct_of(capsule)[1]
        struct.dl_tensor.data -= PREFIX
        struct.dl_tensor.byte_offset += PREFIX
        return capsule

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def prefixed(array):
    """A copy of `array` whose memory PREFIX bytes of PREFIX_BYTE precede, 256-byte aligned."""
    buffer = numpy.full(PREFIX + array.nbytes + 256, PREFIX_BYTE, dtype="uint8")
    start = PREFIX + (-(buffer.ctypes.data + PREFIX)) % 256
    out = buffer[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


class AlignedExporter(dlc.PlantedParty):
    """The exporter of the pairs: correct, a partner only (no rows of its own), the NumPy of
    /usr/bin/python3 underneath (Debian's 1.24 exports legacy capsules, and refuses read-only
    arrays)."""
    name = "numpy"
    planted = "aligned-exporter"
    partner_only = True
    imports = False
    views = ("T", "step", "reversed", "offset", "broadcast", "read_only")
    dtypes = NUMPY_DTYPES
    strides = "positive negative zero overlapping"
    features = "read-only zero-dim zero-size"

    def header(self):
        return dlc.numpy_header(self.np)

    def from_np(self, array):
        return OffsetArray(prefixed(array))

    def view(self, value, kind):
        if kind == "read_only":
            out = prefixed(value.array)
            out.setflags(write=False)
            return OffsetArray(out)
        return OffsetArray(dlc.sliced_view(value.array, kind, numpy.broadcast_to))

    # The alignment checks every NumPy exporter gets (dlconform_frameworks.py) hand NumPy's own
    # arrays, which export themselves (byte_offset 0).
    def to_np(self, value):
        return value.array if isinstance(value, OffsetArray) else value

    def writable(self, value):
        return bool(self.to_np(value).flags.writeable)


class NoHostCopy(Importer):
    serves_host = False  # device="cpu" of a device array: refused, no host copy asked


class HostCopyDropsCopy(Importer):
    passes_copy = False  # the planted ask: dl_device=(1, 0) alone, whatever copy= said


ONEAPI = (14, 0)


class OneApiArray:
    """An array of device-exporter: NumPy's values said to live on oneAPI device 0, a stand-in no
    importer may read on the host (its exports state that device). dl_device=(1, 0) gets NumPy's
    export of a copy (Debian's NumPy 1.24: a legacy capsule), refused under copy=False."""
    def __init__(self, array, copies_for_copy_false=False):
        self.array, self.copies_for_copy_false = array, copies_for_copy_false

    def __dlpack_device__(self):
        return ONEAPI

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        target = ONEAPI if dl_device is None else tuple(dl_device)
        if target == (1, 0):
            if copy is False and not self.copies_for_copy_false:
                raise BufferError("the array is on oneAPI device 0: a host tensor needs a copy, "
                                  "and copy=False forbids one")
            return self.array.copy().__dlpack__()
        if target != ONEAPI or stream is not None:
            raise BufferError(f"cannot export to device {target} with stream {stream!r}")
        capsule = self.array.__dlpack__()
        cap.struct_of(capsule)[1].dl_tensor.device.device_type = ONEAPI[0]
        return capsule


class DeviceExporter(AlignedExporter):
    """The device exporter of the pairs: correct, a partner only, its arrays on oneAPI device 0
    (device=cpu and device=cpu,copy=False asked of each importer)."""
    planted = "device-exporter"
    device = ONEAPI
    views = ("T", "step")
    features = "zero-dim zero-size"

    copies_for_copy_false = False

    def from_np(self, array):
        return OneApiArray(numpy.ascontiguousarray(array), self.copies_for_copy_false)

    def view(self, value, kind):
        return OneApiArray(dlc.sliced_view(value.array, kind, numpy.broadcast_to),
                           self.copies_for_copy_false)

    def to_np(self, value):
        return value.array if isinstance(value, OneApiArray) else value

    def writable(self, value):
        return False


class DeviceExporterCopiesForCopyFalse(DeviceExporter):
    """device-exporter with the planted copy: a host copy for dl_device=(1, 0) under copy=False
    too, which an importer that passes copy=False on cannot help (the exporter's fault)."""
    planted = "device-exporter-copies-for-copy-false"
    copies_for_copy_false = True


class PinnedHostView(numpy.ndarray):
    """A NumPy view whose __dlpack_device__ says CUDA pinned host memory (kDLCUDAHost, 3)."""

    def __dlpack_device__(self):
        return (3, 0)


class ImportsOnOtherDevice(Importer):
    def take(self, capsule):
        return super().take(capsule).view(PinnedHostView)  # the planted device: not x's


class Planted(dlc.PlantedParty):
    """The adapter of the correct importer, and the base of the planted ones' adapters."""
    name = "numpy"  # the module the interface imports; the arrays are NumPy views of the tensors
    exports = False
    dunder = False  # its values are NumPy's arrays: their export is NumPy's, not judged here
    dtypes = NUMPY_DTYPES
    strides = "positive negative zero overlapping"
    features = "read-only zero-dim zero-size misaligned"
    max_ndim = 32
    planted = "correct-importer"
    library = Importer

    def probe(self):
        return {"dtypes": list(self.dtypes), "has_xapi": False, "sample": None}

    def cpu_device(self):
        return "cpu"

    def import_(self, obj, copy=None, device=None):
        return self.library().from_dlpack(obj, device=device, copy=copy)

    def to_np(self, value):
        return value

    def writable(self, value):
        return bool(value.flags.writeable)


class CapsNdim8Adapter(Planted):
    planted = "caps-ndim-8"
    library = CapsNdim8


class DeviceValueErrorAdapter(Planted):
    planted = "refuses-device-with-value-error"
    library = DeviceValueError


class Bfloat16AsFloat16Adapter(Planted):
    planted = "bfloat16-as-float16"
    library = Bfloat16AsFloat16


class IgnoresByteOffsetAdapter(Planted):
    planted = "ignores-byte-offset"
    library = IgnoresByteOffset


class NullStridesColumnMajorAdapter(Planted):
    planted = "null-strides-column-major"
    library = NullStridesColumnMajor


class ScalarCopyLeaksAdapter(Planted):
    planted = "scalar-copy-leaks"
    library = ScalarCopyLeaks


class ImportsOnOtherDeviceAdapter(Planted):
    planted = "import-on-other-device"
    library = ImportsOnOtherDevice


class NoHostCopyAdapter(Planted):
    planted = "no-host-copy"
    library = NoHostCopy


class HostCopyDropsCopyAdapter(Planted):
    planted = "host-copy-drops-copy"
    library = HostCopyDropsCopy


class CapsuleApiKeepsNameAdapter(Planted):
    planted = "capsule-api-keeps-name"
    library = CapsuleApiKeepsName

    def __init__(self):
        super().__init__()
        self.capsule_imports = {"from_capsule": self.from_capsule}

    def from_capsule(self, capsule):
        return self.library().from_capsule(capsule)
