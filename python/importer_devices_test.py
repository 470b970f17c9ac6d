#!/usr/bin/env python3
"""Where a Python importer's import of a CPU array lives is judged
(negotiation/ENV/A@V/__dlpack_device__/import: the Array API's from_dlpack puts its result "on the
same device as x" when device is None): import-on-other-device, whose arrays say CUDA pinned host
memory, is caught with producer-violation DEV-1, and every other planted importer of
planted_importers.py passes.

Needs $DLCONFORM (the command) and $BRIDGE_PYTHON (the interpreter the bridge is built for)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402

IMPORTERS = ("correct-importer", "caps-ndim-8", "refuses-device-with-value-error",
             "bfloat16-as-float16", "ignores-byte-offset", "null-strides-column-major",
             "scalar-copy-leaks", "capsule-api-keeps-name", "import-on-other-device")
EXPECTED = {"import-on-other-device": "producer-violation DEV-1"}


def main():
    seen = planted_matrix.run("planted_importers.py", "negotiation/*/__dlpack_device__/import")
    if seen is None:
        return 1
    failures = 0
    for importer in IMPORTERS:
        failures += planted_matrix.checked(
            importer, EXPECTED.get(importer, "none"),
            seen.get(f"negotiation/module/{importer}@1/__dlpack_device__/import"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
