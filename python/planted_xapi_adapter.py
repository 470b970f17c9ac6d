"""The planted C exchange-API tables of python/planted_xapi.cpp as parties of the matrix, for
`dlconform matrix --no-builtin --adapter python/planted_xapi_adapter.py --filter 'xapi/*'`: one
party per table (xapi-TABLE@1), whose arrays are the module's 2x3 float32 arrays (0 to 5) and
whose type carries the table. They go through the same case body as torch's and Paddle's tables
(dlconform_negotiation.xapi); xapi_matrix_test.py checks that each broken table fails with
xapi-violation of the rule it breaks, and that the controls pass."""
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

    def unexpressible(self):
        return {"ragged": ("a planted array DLPack cannot describe",
                           lambda: planted.unexpressible(getattr(planted, self.table)))}


# One party per table the module has, named by the table.
for _table in planted.names():
    if _table != PlantedTable.table:
        _name = "Xapi" + "".join(part.title() for part in _table.split("_"))
        globals()[_name] = type(_name, (PlantedTable,), {"table": _table})
