"""The planted C exchange-API tables of python/planted_xapi.cpp as parties of the matrix, for
`dlconform matrix --no-builtin --adapter python/planted_xapi_adapter.py --filter 'xapi/*'`: one
party per table (xapi-TABLE@1), whose arrays are the module's 2x3 float32 arrays (0 to 5) and
whose type carries the table. They go through the same case body as torch's and Paddle's tables
(dlconform_negotiation.xapi); xapi_matrix_test.py checks that each broken table fails with
xapi-violation of the rule it breaks, and that the controls pass. Two CUDA stand-ins add the
device row current-work-stream (dlconform_devices.xapi_work_stream), as torch's on a GPU."""
import _dlconform_planted_xapi as planted

import dlconform_adapter as dlc


class PlantedTable(dlc.PlantedParty):
    """The correct table; each planted one below differs by `table` only."""
    name = "numpy"  # the module the interface imports; the arrays are planted_xapi.cpp's
    dtypes = ["float32"]
    imports = False
    writable_concept = False
    table = "correct"

    @property
    def planted(self):  # labelled xapi-TABLE@1
        return f"xapi-{self.table}"

    def probe(self):
        return {"dtypes": ["float32"], "has_xapi": True}

    def from_np(self, array):
        return getattr(planted, self.table)()

    def to_np(self, value):
        return self.np.asarray(value.tolist(), dtype="float32")

    def writable(self, value):
        return False

    def read_only(self, value):  # a read-only view, as torch's ReadOnlyTensorWrapper
        return planted.read_only(value)

    def unexpressible(self):
        return {"ragged": ("a planted array DLPack cannot describe",
                           lambda: planted.unexpressible(getattr(planted, self.table)))}


class CudaStandIn(PlantedTable):
    """A CUDA stand-in (its arrays are the module's host arrays) whose current stream is the
    legacy default: its device row asks current_work_stream(kDLCUDA, 0) of its type's table,
    which must give that stream (NULL or 1; dlpack.h: "it should map to torch.cuda.current_stream
    in PyTorch"). The correct table answers NULL."""
    device = (2, 0)
    planted = "xapi-cuda-stand-in"  # not xapi-TABLE: the correct table's party is xapi-correct

    def stream(self):
        return 1  # the legacy default stream is current


class CudaWorkStreamNotCurrent(CudaStandIn):
    """Its table answers a handle that is no stream of its own (XAPI-5, OB-082)."""
    table = "work_stream_not_current"
    planted = "xapi-cuda-work-stream-not-current"


# One party per table the module has, named by the table (work_stream_not_current breaks only
# what a CUDA party is asked: CudaWorkStreamNotCurrent).
for _table in planted.names():
    if _table not in (PlantedTable.table, CudaWorkStreamNotCurrent.table):
        _name = "Xapi" + "".join(part.title() for part in _table.split("_"))
        globals()[_name] = type(_name, (PlantedTable,), {"table": _table})
