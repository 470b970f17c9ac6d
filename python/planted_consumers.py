"""Planted Python consumers: from_dlpack implementations that each ask a producer wrongly in one
way, for `dlconform matrix --adapter python/planted_consumers.py --filter 'asks/*'`. Each takes
what it was handed through the bridge's strict consumer (_dlconform.consume), so the only defect
is in how it asks. consumer_asks_test.py checks that each is caught with its class and rule, and
that the correct one has no finding.

  correct-consumer       max_version first, again without it only after TypeError, copy= and
                         device= passed on as __dlpack__'s copy and dl_device
  retry-on-buffer-error  asks again without max_version after any error, BufferError included
  stream-zero            passes stream=0 to a CPU producer
  stream-minus-two       passes stream=-2, below the -1 the Array API allows on any device
  calls-twice            calls __dlpack__ twice (once to peek at the version)
  no-max-version         a DLPack 1.3 consumer that never passes max_version
  copy-inverted          passes copy=not copy
  takes-any-return       takes whatever __dlpack__ returns for a capsule: an int is read as the
                         address of its struct (a crash)
  asarray-fallback       makes an array of anything without __dlpack__, None included
  wrong-error-for-none   tries the buffer protocol on an object without __dlpack__: TypeError for
                         None, not AttributeError
  no-type-error-fallback asks with max_version only: a producer of the old signature's TypeError
                         ends the import, where the consumer must ask again without it
  max-version-as-list    passes max_version=[1, 3], a list where the Array API says a 2-tuple
  device-as-list         passes dl_device=[1, 0], a list where the Array API says a 2-tuple
  device-as-pinned-host   maps from_dlpack(device="cpu") to dl_device=(3, 0), kDLCUDAHost, not the
                         CPU's (1, 0)
  any-device-as-cpu      takes any device= for the CPU: an unknown device's import returns an
                         array (unknown-device-accepted STRM-3), where the others raise ValueError
  keeps-keywords-on-retry  asks again after TypeError without max_version but with copy and
                         dl_device, which the old signature rejects as well: it gives up

The memory cases (asks/*/memory/*) need arrays over the producer's memory; these consumers take
the struct themselves (rename, view, deleter when the last view dies):
  viewing-consumer       shares what it is handed, copies for copy=True unless IS_COPIED crossed;
                         its capsule API (from_capsule) takes a bare capsule the same way
  ignores-copy           never passes copy on and never copies: copy=True shares
  always-copies          copies every import, copy=False too, and through its capsule API
  copies-by-default      copies a from_dlpack(copy=None) import, though it shares for copy=False:
                         reuse was possible (buffer-not-reused STRM-4, OB-197)
  heap-used-name         renames each capsule it takes to used_* with a bytes object's bytes,
                         heap memory, where python_spec.rst wants the names statically
                         allocated (LIFE-1)
  clears-destructor-unrenamed  takes each capsule by clearing its destructor, without the rename
                         (LIFE-1: a second consumer would take the struct again), as MLX does
"""
import ctypes
import os
import sys

import numpy

import _dlconform as bridge
import dlconform_adapter as dlc
from dlconform_workers import HeldCapsule, is_capsule

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reproducers"))
import dlconform_capsule as cap  # noqa: E402  (beside this file, in reproducers/)

cap.use_static_names(bridge.static_capsule_names())  # python_spec.rst: static names (LIFE-1)
# heap-used-name's names: bytes objects (heap memory, alive as long as this module).
HEAP_USED_NAMES = {name: bytes(bytearray(cap.USED[name])) for name in cap.USED}

IS_COPIED = 1 << 1


def checked(capsule):
    """The planted library's own check (not its adapter's): __dlpack__ must return a capsule."""
    if not is_capsule(capsule):
        raise TypeError(f"expected a PyCapsule from __dlpack__ but found {type(capsule).__name__}")
    return capsule


class Planted(dlc.PlantedParty):
    """The correct consumer, and the base of the planted ones."""
    name = "numpy"  # the module the interface imports; the arrays are the bridge's records
    exports = False
    planted = "correct-consumer"
    # What it passes for max_version, and for dl_device when its caller names a device.
    asked_max_version = (1, 3)
    asked_device = (1, 0)
    any_device = False  # whether any device= is taken for the CPU

    def probe(self):
        return {"dtypes": ["float32"], "has_xapi": False}

    def cpu_device(self):
        return "cpu"

    def keywords(self, copy, device):
        if device not in (None, "cpu") and not self.any_device:
            raise ValueError(f"expected device None or 'cpu' but found {device!r}")
        out = {"max_version": self.asked_max_version}
        if copy is not None:
            out["copy"] = copy
        if device is not None:
            out["dl_device"] = self.asked_device
        return out

    def ask(self, obj, keywords):
        try:
            return obj.__dlpack__(**keywords)
        except TypeError:
            return obj.__dlpack__()

    def import_(self, obj, copy=None, device=None):
        return bridge.consume(HeldCapsule(checked(self.ask(obj, self.keywords(copy, device)))),
                              max_version=(1, 3))

    def to_np(self, value):
        raise dlc.Unsupported("asks cases only")


class RetryOnBufferError(Planted):
    planted = "retry-on-buffer-error"

    def ask(self, obj, keywords):
        try:
            return obj.__dlpack__(**keywords)
        except Exception:  # the bug: BufferError means "cannot export", not "old signature"
            return obj.__dlpack__()


class NoTypeErrorFallback(Planted):
    planted = "no-type-error-fallback"

    def ask(self, obj, keywords):
        return obj.__dlpack__(**keywords)  # the bug: no second question after TypeError


class DeviceAsPinnedHost(Planted):
    planted = "device-as-pinned-host"
    asked_device = (3, 0)  # the planted mapping: "cpu" as kDLCUDAHost


class AnyDeviceAsCpu(Planted):
    planted = "any-device-as-cpu"
    any_device = True  # the planted mapping: every device= read as the CPU


class KeepsKeywordsOnRetry(Planted):
    planted = "keeps-keywords-on-retry"

    def ask(self, obj, keywords):
        try:
            return obj.__dlpack__(**keywords)
        except TypeError:  # the planted retry: max_version dropped, copy and dl_device kept
            return obj.__dlpack__(**{k: v for k, v in keywords.items() if k != "max_version"})


class MaxVersionAsList(Planted):
    planted = "max-version-as-list"
    asked_max_version = [1, 3]  # the planted list


class DeviceAsList(Planted):
    planted = "device-as-list"
    asked_device = [1, 0]  # the planted list


class StreamZero(Planted):
    planted = "stream-zero"

    def keywords(self, copy, device):
        return dict(super().keywords(copy, device), stream=0)


class StreamMinusTwo(Planted):
    planted = "stream-minus-two"

    def keywords(self, copy, device):
        return dict(super().keywords(copy, device), stream=-2)


class CallsTwice(Planted):
    planted = "calls-twice"

    def ask(self, obj, keywords):
        bridge.capsule_kind(super().ask(obj, keywords))  # a peek at the version, thrown away
        return super().ask(obj, keywords)


class NoMaxVersion(Planted):
    planted = "no-max-version"

    def keywords(self, copy, device):
        out = super().keywords(copy, device)
        del out["max_version"]
        return out


class CopyInverted(Planted):
    planted = "copy-inverted"

    def keywords(self, copy, device):
        out = super().keywords(copy, device)
        if copy is not None:
            out["copy"] = not copy
        return out


class TakesAnyReturn(Planted):
    planted = "takes-any-return"

    def ask(self, obj, keywords):
        capsule = super().ask(obj, keywords)
        if isinstance(capsule, int):  # the planted read: the int as the struct's address
            ctypes.string_at(capsule, 8)
        return capsule


class AsarrayFallback(Planted):
    planted = "asarray-fallback"

    def import_(self, obj, copy=None, device=None):
        if not hasattr(obj, "__dlpack__"):
            return self.np.asarray(obj)
        return super().import_(obj, copy, device)


class WrongErrorForNone(Planted):
    planted = "wrong-error-for-none"

    def import_(self, obj, copy=None, device=None):
        if not hasattr(obj, "__dlpack__"):  # the buffer protocol's TypeError for None
            return self.np.frombuffer(obj)
        return super().import_(obj, copy, device)


def take(capsule, heap_name=False, unrenamed=False):
    """The planted library's import: the capsule renamed (with a heap name's bytes where
    heap_name; its destructor cleared instead where unrenamed), a NumPy view over its float32
    data and whether the producer copied (IS_COPIED)."""
    name, struct = cap.struct_of(capsule)
    versioned = name == b"dltensor_versioned"
    # taken: the deleter is ours to call
    if unrenamed:
        cap.clear_destructor(capsule)
    else:
        cap.mark_used(capsule, name, HEAP_USED_NAMES[name] if heap_name else None)
    t = struct.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    # The float32 elements of a compact tensor; the owner calls the deleter once (LIFE-3).
    interface = {"data": (t.data + t.byte_offset, False), "shape": shape, "typestr": "<f4",
                 "version": 3}
    view = numpy.asarray(cap.View(interface, cap.Owner(struct)))
    return view, versioned and bool(struct.flags & IS_COPIED)


class ViewingConsumer(Planted):
    planted = "viewing-consumer"

    def __init__(self):
        super().__init__()
        # A capsule API beside from_dlpack, as TensorFlow's and MXNet's (asks/*/API/memory/*).
        self.capsule_imports = {"from_capsule": self.from_capsule}

    def import_(self, obj, copy=None, device=None):
        return self.taken(self.ask(obj, self.keywords(copy, device)), copy)

    def from_capsule(self, capsule):
        return self.taken(capsule, None)

    def taken(self, capsule, copy):
        """The capsule taken, and copied where `copy` and what crossed call for it."""
        view, producer_copied = take(checked(capsule), self.planted == "heap-used-name",
                                     self.planted == "clears-destructor-unrenamed")
        return view.copy() if self.copies(copy, producer_copied) else view

    def copies(self, copy, producer_copied):
        return copy is True and not producer_copied

    def to_np(self, value):
        return value

    def writable(self, value):
        return True


class IgnoresCopy(ViewingConsumer):
    planted = "ignores-copy"

    def keywords(self, copy, device):
        return super().keywords(None, device)

    def copies(self, copy, producer_copied):
        return False


class AlwaysCopies(ViewingConsumer):
    planted = "always-copies"

    def copies(self, copy, producer_copied):
        return True


class CopiesByDefault(ViewingConsumer):
    planted = "copies-by-default"

    def copies(self, copy, producer_copied):
        return copy is not False  # the planted copy: copy=None copies, though it need not


class HeapUsedName(ViewingConsumer):
    planted = "heap-used-name"


class ClearsDestructorUnrenamed(ViewingConsumer):
    planted = "clears-destructor-unrenamed"
