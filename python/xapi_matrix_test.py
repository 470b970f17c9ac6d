#!/usr/bin/env python3
"""The planted exchange-API tables through the matrix: `dlconform matrix --adapter
python/planted_xapi_adapter.py --filter 'xapi/*'` runs the xapi cases of every planted table, the
case body torch's and Paddle's tables go through. Each broken table's case of the rule it breaks
fails with xapi-violation of that rule, its other cases pass, and the controls pass every case
(planted_xapi_expected.py says which table breaks what). A table without its five cases in
the report is a failure too."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import planted_matrix  # noqa: E402
from planted_xapi_expected import EXPECTED  # noqa: E402  (what each table breaks)

CHECKS = ("XAPI-1", "XAPI-2", "XAPI-3", "XAPI-4", "XAPI-5")


def main():
    seen = planted_matrix.run("planted_xapi_adapter.py", "xapi/*", timeout=600)
    if seen is None:
        return 1
    failures = 0
    for table, broken in EXPECTED.items():
        for check in CHECKS:
            found = seen.get(f"xapi/module/xapi-{table}@1/{check}")
            want = f"xapi-violation {check}" if broken and broken[0] == check else "none"
            got = planted_matrix.verdict(found)
            ok = got == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {table} {check}: expected {want}, found {got}"
                  + ("" if ok or found is None else f" ({found.get('detail', '')[:160]})"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
