"""Planted consumers of the DLPack C exchange API: from_dlpack implementations that take an array
through the table its type publishes (__dlpack_c_exchange_api__), each with one defect, for
`dlconform matrix --no-builtin --adapter python/planted_xapi_consumers.py --filter
'xapi-consumer/*'` (reports/planted-xapi-consumers.json). They call the table's slots through
ctypes (dlconform_capsule's DLPackExchangeAPI), with the GIL held, as a C consumer would.
xapi_consumers_test.py checks that each is caught with its class and rule on its case, and on no
other; the correct one has no finding.

  xapi-correct-consumer  the table of type(obj), cached per type; an owning tensor
                         (managed_tensor_from_py_object_no_sync), its deleter called when the
                         array dies
  xapi-instance-lookup   takes the table from obj's attribute, where an instance's own table
                         shadows the type's (table-not-on-type XAPI-1: "The consumer should look
                         up the attribute on the type")
  xapi-first-table       caches the first table it meets for every later object, whatever its
                         type (xapi-consumer-violation XAPI-5: py_object "Must have the same type
                         as the one the DLPackExchangeAPI was discovered from")
  xapi-borrows-dltensor  views what dltensor_from_py_object_no_sync fills in, and keeps no
                         reference to the object it came from (xapi-consumer-violation XAPI-5:
                         "only guaranteed until control is returned")
  xapi-ignores-work-stream  its call runs on a device tensor without asking the table's
                         current_work_stream (work-stream-not-queried XAPI-5: "The consumer should
                         query DLPackCurrentWorkStream to get the current work stream and launch
                         kernels on it")

Each has a call too (xapi_imports "call"): a function of the planted library run on its argument,
as TVM-FFI's FFI call is. Its tensor comes through the same table; for a device tensor the
correct call asks current_work_stream for that device first, the stream its kernel would run on.
"""
import ctypes
import os
import sys

import dlconform_adapter as dlc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reproducers"))
import dlconform_capsule as cap  # noqa: E402  (beside this file, in reproducers/)

ATTRIBUTE = "__dlpack_c_exchange_api__"
CPU = 1
# DLPackCurrentWorkStream: int (*)(DLDeviceType, int32_t, void**), called with the GIL held.
CURRENT_WORK_STREAM = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32,
                                        ctypes.POINTER(ctypes.c_void_p))


class Imported:
    """The planted library's array: a 2-D float32 view of what the table gave. `owned` is the
    tensor whose deleter it calls when it dies (None for a borrowed DLTensor)."""
    def __init__(self, tensor, owned=None):
        self.data = tensor.data + tensor.byte_offset
        self.shape = [tensor.shape[i] for i in range(tensor.ndim)]
        self.strides = ([tensor.strides[i] for i in range(tensor.ndim)] if tensor.strides else
                        [self.shape[1], 1])
        self.owned = owned
        self.device = (tensor.device.device_type, tensor.device.device_id)

    def tolist(self):
        floats = ctypes.POINTER(ctypes.c_float).from_buffer(ctypes.c_void_p(self.data))
        return [[float(floats[i * self.strides[0] + j * self.strides[1]])
                 for j in range(self.shape[1])] for i in range(self.shape[0])]

    def __del__(self):
        if self.owned is not None and self.owned.contents.deleter:
            self.owned.contents.deleter(ctypes.cast(self.owned, ctypes.c_void_p).value)


class Consumer:
    """The correct consumer: the table of type(obj), cached per type, and an owning tensor."""
    def __init__(self):
        self.tables = {}

    def table(self, obj):
        kind = type(obj)
        if kind not in self.tables:
            self.tables[kind] = cap.exchange_table(getattr(kind, ATTRIBUTE))
        return self.tables[kind]

    def from_dlpack(self, obj):
        if not hasattr(type(obj), ATTRIBUTE) and not hasattr(obj, ATTRIBUTE):
            raise TypeError(f"expected an array with {ATTRIBUTE} but found a "
                            f"{type(obj).__name__}")
        return self.take(self.table(obj), obj)

    def take(self, table, obj):
        out = ctypes.POINTER(cap.DLManagedTensorVersioned)()
        cap.FROM_PY_OBJECT(table.managed_tensor_from_py_object_no_sync)(obj, ctypes.byref(out))
        return Imported(out.contents.dl_tensor, owned=out)

    def call(self, obj):
        """A function of the library run on obj: its tensor, and for a device tensor the stream
        its kernel runs on, the table's current work stream of that device."""
        table = self.table(obj)
        result = self.take(table, obj)
        if result.device[0] != CPU:
            self.stream_of(table, result.device)
        return result

    def stream_of(self, table, device):
        stream = ctypes.c_void_p()
        CURRENT_WORK_STREAM(table.current_work_stream)(device[0], device[1], ctypes.byref(stream))
        return stream.value


class InstanceLookup(Consumer):
    def table(self, obj):
        # The planted lookup: the instance's attribute first, shadowing the type's.
        return cap.exchange_table(getattr(obj, ATTRIBUTE))


class FirstTable(Consumer):
    def table(self, obj):
        if not self.tables:
            self.tables[None] = cap.exchange_table(getattr(type(obj), ATTRIBUTE))
        return self.tables[None]  # the planted cache: one table for every type


class BorrowsDltensor(Consumer):
    def take(self, table, obj):
        if not table.dltensor_from_py_object_no_sync:  # "This function can be NULL"
            return super().take(table, obj)
        tensor = cap.DLTensor()
        fill = cap.DLTENSOR_FROM_PY_OBJECT(table.dltensor_from_py_object_no_sync)
        fill(obj, ctypes.byref(tensor))
        return Imported(tensor)  # the planted view: nothing keeps obj, or the DLTensor, alive


class IgnoresWorkStream(Consumer):
    def stream_of(self, table, device):
        return None  # the planted call: runs on a stream of its own, the producer's not asked


class Planted(dlc.PlantedParty):
    """The adapter of the correct consumer, and the base of the planted ones'."""
    name = "numpy"  # the module the interface imports; the arrays are Imported views
    exports = False
    planted = "xapi-correct-consumer"
    library = Consumer

    def __init__(self):
        super().__init__()
        self.consumer = self.library()  # one library, its cache kept across the case's imports
        self.xapi_imports = {"call": self.consumer.call}

    def probe(self):
        return {"dtypes": ["float32"], "has_xapi": False}

    def import_(self, obj, copy=None, device=None):
        return self.consumer.from_dlpack(obj)

    def to_np(self, value):
        return self.np.asarray(value.tolist(), dtype="float32")


class InstanceLookupAdapter(Planted):
    planted = "xapi-instance-lookup"
    library = InstanceLookup


class FirstTableAdapter(Planted):
    planted = "xapi-first-table"
    library = FirstTable


class BorrowsDltensorAdapter(Planted):
    planted = "xapi-borrows-dltensor"
    library = BorrowsDltensor


class IgnoresWorkStreamAdapter(Planted):
    planted = "xapi-ignores-work-stream"
    library = IgnoresWorkStream
