#!/usr/bin/env python3
"""Every tracked file lies in a folder (or is a file) that the layout table of docs/layout.md
("Layout of the tree", linked from the README) lists, so that nothing stray is committed (a crash
file, an output folder).

  check_tree.py SOURCE_DIR

Outside a git checkout there is nothing to check: the test skips (exit 77), and fails under CI."""
import os
import re
import subprocess
import sys


def main():
    root = sys.argv[1]
    try:
        files = subprocess.run(["git", "-C", root, "ls-files"], check=True, capture_output=True,
                               text=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        print("SKIP: not a git checkout")
        return 1 if os.environ.get("CI") == "true" else 77
    path = os.path.join(root, "docs", "layout.md")
    try:
        layout = open(path, encoding="utf-8").read()
    except OSError as e:
        print(f"expected the layout table in docs/layout.md but found none ({e.strerror})")
        return 1
    section = layout.split("# Layout of the tree", 1)
    if len(section) != 2:
        print("expected a '# Layout of the tree' heading in docs/layout.md but found none")
        return 1
    table = section[1].split("\n#", 1)[0]
    listed = set()
    for row in table.splitlines():
        if not row.startswith("| `"):
            continue
        first_cell = row.split("|")[1]
        listed.update(re.findall(r"`([^`]+)`", first_cell))
    stray = []
    for f in filter(None, files):
        if not any(f == p or (p.endswith("/") and f.startswith(p)) for p in listed):
            stray.append(f)
    for f in stray:
        print(f"{f}: not in a folder the layout table (docs/layout.md) lists")
    if stray:
        print(f"expected every tracked file under the layout table (docs/layout.md) but found {len(stray)} "
              "outside it (remove it, or add its folder to the table)")
        return 1
    print(f"{len([f for f in files if f])} tracked files, all under the {len(listed)} entries of the "
          "layout table (docs/layout.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
