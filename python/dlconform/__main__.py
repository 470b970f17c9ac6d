"""python -m dlconform ARGS: runs the bundled command with ARGS, in this interpreter's environment."""
import os
import sys

from . import command


def main():
    exe = command()
    if not os.access(exe, os.X_OK):
        sys.stderr.write(f"dlconform: expected the command at {exe} but found none (reinstall)\n")
        return 1
    # The interpreter whose frameworks the framework rows should use.
    os.environ["DLCONFORM_PYTHON"] = sys.executable
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
