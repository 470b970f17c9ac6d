"""Who the driver judges: the built-in adapters an environment installs, or the libraries named
on the command line (--module, --adapter) with NumPy beside them, each imported and probed in a
forked child first; and the one line a library that cannot be judged at all gets."""
import importlib
import os
import select
import signal
import sys
import time

from dlconform_adapter import (PROBE_SHAPES, ModuleAdapter, ORDER_FILES, builtin_adapter,
                               load_adapters)
from dlconform_workers import clean


DISTRIBUTIONS = {"numpy": "numpy", "paddle": "paddlepaddle", "torch": "torch", "jax": "jax",
                 "pyarrow": "pyarrow", "tensorflow": "tensorflow-cpu", "mlx": "mlx",
                 "tvm_ffi": "apache-tvm-ffi", "warp": "warp-lang",
                 "array_api_strict": "array-api-strict", "mxnet": "mxnet", "dpnp": "dpnp"}


def installed(name):
    from importlib import metadata
    try:
        metadata.distribution(DISTRIBUTIONS.get(name, name))
        return True
    except metadata.PackageNotFoundError:
        return False


class quiet_stderr:
    """Sends fd 2 to /dev/null for a block."""
    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)
        os.close(quiet)

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False


def probe_in_child(fw, timeout):
    """fw.probe() in a forked child, so that no framework runtime starts in the parent."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        quiet = os.open(os.devnull, os.O_WRONLY)  # banners and warnings of starting runtimes
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        try:
            text = repr(fw.probe())
        except BaseException as e:  # noqa: B036 (the child must always answer)
            text = repr({"error": f"{type(e).__name__}: {clean(e)[:200]}"})
        os.write(write_end, text.encode())
        os._exit(0)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout
    while True:
        ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            break
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    try:
        import ast
        return ast.literal_eval(b"".join(chunks).decode())
    except (ValueError, SyntaxError):
        how = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
               else f"exit {os.WEXITSTATUS(status)}")
        return {"error": f"the probe died ({how})"}


def fatal(records, text):
    """One line for the command to print, and no cases: the run cannot judge what was asked."""
    print(f"fatal\t{clean(text)}", file=records)
    records.flush()
    os._exit(3)


def import_in_child(name):
    """Imports `name` in a forked child first: a module that crashes the interpreter at import
    must be a line, not the end of the driver. None, or why it cannot be imported."""
    pid = os.fork()
    if pid == 0:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: B036 (the parent imports it again and names the error)
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return (f"module {name} crashed the interpreter at import "
                f"({signal.Signals(os.WTERMSIG(status)).name})")
    return None


def take_probe(fw, facts, records):
    """What the probe found fw makes, and a note where it is narrow: a library that makes only
    some arrays is judged on those, one that makes none as a consumer only. False when fw is
    left with nothing to judge."""
    fw.dtypes, fw.has_xapi = facts["dtypes"], facts["has_xapi"]
    shapes = ", ".join(map(str, PROBE_SHAPES))
    facts.setdefault("sample", fw.sample)  # an adapter's own probe may not say: its default
    if facts["sample"] is None:
        fw.exports = False
        if fw.imports:
            print(f"note\t{fw.label} makes no array dlconform asks for (any dtype it names, of "
                  f"shape {shapes}): judged as a consumer only", file=records)
        return fw.imports
    fw.sample = facts["sample"]
    if fw.sample != ("float32", (2,)):
        dtype, shape = fw.sample
        print(f"note\t{fw.label} makes no float32 array of 2 elements: judged on what it makes "
              f"({', '.join(fw.dtypes)}; first {dtype} of shape {shape}), the rest left out as "
              f"n/a", file=records)
    return True


def libraries_under_test(args, records):
    """The modules named on the command line and the adapters of the files given, each probed;
    NumPy joins as a pair partner. A module that cannot be judged at all is fatal."""
    made = []
    for spec in args.module:
        name, _, profile = spec.partition("=")
        crashed = import_in_child(name)
        if crashed:
            fatal(records, crashed)
        try:
            with quiet_stderr():
                made.append(ModuleAdapter(name, profile))
        except Exception as e:
            fatal(records, f"expected module {name} to import but found {type(e).__name__}: "
                           f"{clean(e)[:300]}")
    for path in args.adapter:
        try:
            classes = load_adapters(path)
        except Exception as e:
            fatal(records, f"--adapter {path}: {type(e).__name__}: {clean(e)[:300]}")
        for cls in classes:
            try:
                with quiet_stderr():
                    made.append(cls())
            except Exception as e:
                fatal(records, f"--adapter {path}: expected {cls.__name__}() to start but found "
                               f"{type(e).__name__}: {clean(e)[:300]}")
    usable = []
    for fw in made:
        facts = probe_in_child(fw, args.timeout)
        if "error" in facts:
            fatal(records, f"{fw.label} cannot be probed: {facts['error']}")
        if "dunder" in facts:
            fw.dunder = facts["dunder"]
            fw.exports = fw.dunder or bool(fw.legacy_exports)
        if not take_probe(fw, facts, records):
            fatal(records, f"{fw.label} makes no array dlconform asks for (any dtype it names, of "
                           f"shape {', '.join(map(str, PROBE_SHAPES))}) and has no from_dlpack: "
                           f"nothing to judge")
        if not fw.imports:
            print(f"note\t{fw.label} has no from_dlpack: judged as a producer only", file=records)
        if not fw.exports:
            print(f"note\t{fw.label}'s arrays have no __dlpack__: judged as a consumer only",
                  file=records)
        usable.append(fw)
    if not any(fw.name == "numpy" for fw in usable):
        partner = builtin_adapter("numpy", "NumPy")()
        partner.partner_only = True
        usable.append(partner)
    return usable




def environment_frameworks(args, records):
    """Every framework of ORDER that this environment installs, probed."""
    usable = []
    for name, class_name in ORDER_FILES:
        try:
            with quiet_stderr():  # import-time warnings and banners
                fw = builtin_adapter(name, class_name)()
        except Exception as e:
            # A framework installed here that cannot run is a line in the report, never dropped
            # silently; one this environment does not install belongs to another environment.
            if installed(name):
                print(f"note\t{name} is installed in environment {args.env} but cannot be "
                      f"imported: {type(e).__name__}: {clean(e)[:200]}", file=records)
            continue
        facts = probe_in_child(fw, args.timeout)
        if "error" in facts:
            print(f"note\t{fw.label} is installed in environment {args.env} but cannot make a "
                  f"tensor on this machine: {facts['error']}", file=records)
            continue
        if take_probe(fw, facts, records):
            usable.append(fw)
    # An environment that exists for some of its frameworks (oneapi: dpnp, beside the frameworks
    # environment's libraries) judges those in every role and the others as their pair partners
    # only: their own rows are the frameworks environment's.
    focus = [n for n in os.environ.get("DLCONFORM_FOCUS", "").split(",") if n]
    if focus:
        for fw in usable:
            fw.partner_only = fw.name not in focus
    return usable
