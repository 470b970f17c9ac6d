"""The wheel holds every module its driver imports: each python/dlconform_*.py that
dlconform_frameworks.py reaches, directly or through another, is named in python/meson.build's
install_sources. (A module split out of the driver and left off that list breaks only the installed
command, which the install test finds late and slowly.)"""
import ast
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def local_imports(path):
    """The names of this folder's modules that the file at path imports."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {n for n in names if os.path.isfile(os.path.join(HERE, n + ".py"))}


def reached(start):
    """Every module of this folder that start imports, transitively, start included."""
    seen, todo = set(), [start]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += local_imports(os.path.join(HERE, name + ".py"))
    return seen


def installed():
    """The top-level .py files python/meson.build installs into the package."""
    with open(os.path.join(HERE, "meson.build"), encoding="utf-8") as f:
        text = f.read()
    return {m[:-3] for m in re.findall(r"'([A-Za-z_]+\.py)'", text)}


def main():
    needed = reached("dlconform_frameworks")
    missing = sorted(needed - installed())
    if missing:
        for name in missing:
            print(f"python/meson.build: expected {name}.py in install_sources (the driver imports "
                  f"it) but found it missing")
        return 1
    print(f"ok: the {len(needed)} driver modules are all installed: {', '.join(sorted(needed))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
