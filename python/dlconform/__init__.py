"""dlconform as installed by pip: the command, its plugins and the CPython bridge in this package.

  python -m dlconform ARGS   (or the `dlconform` script) runs bin/dlconform of this package."""
import os

__all__ = ["command", "get_include"]

_here = os.path.dirname(os.path.abspath(__file__))


def command():
    """The path of the bundled C++ command."""
    return os.path.join(_here, "bin", "dlconform")


def get_include():
    """The folder that holds dlconform/plugin.h (the plugin ABI), for building adapters."""
    return os.path.join(_here, "include")
