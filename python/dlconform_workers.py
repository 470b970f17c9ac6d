"""The driver's worker pool: each case of dlconform_frameworks.py runs in a forked worker, and
what it returns becomes one `case` record; a worker that dies takes only its case with it (a
crash verdict, named by the guard arena when the fault was in guarded memory), one that runs past
the timeout is killed. An exception out of a case is blamed where it came from: a library's own
__dlpack__, __dlpack_device__ or from_dlpack (a finding on it: LibraryFault and the checks below),
an adapter file's method, or the driver itself (plugin-error, its words say which)."""
import enum
import gc
import inspect
import operator
import os
import re
import select
import signal
import sys
import time
import traceback

import _dlconform as bridge
from dlconform_adapter import Unsupported

class Case:
    def __init__(self, case_id, scenario, producer, producer_header, consumer, consumer_header,
                 tensor, body, rule="", parties=()):
        self.fields = [case_id, scenario, producer, producer_header, consumer, consumer_header,
                       tensor]
        self.body = body
        self.rule = rule  # what a crash or a hang on this case breaks
        self.parties = parties  # the frameworks to start before the body runs


def error_words(e):
    """TYPE: message; an importer that returns NULL without an exception gets one wording
    (CPython words that SystemError in two ways, depending on the call path)."""
    if isinstance(e, SystemError) and "without" in str(e):
        return "SystemError: the importer returned NULL without setting an exception"
    return f"{type(e).__name__}: {e}"


def clean(text):
    """One line of at most 480 characters, with no object address: a framework's message that
    shows a Python repr (JAX's names the array it refused) must read the same on every run, so
    that the committed reports diff cleanly."""
    text = " ".join(str(text).replace("\t", " ").split())
    text = re.sub(r"\[\d\d:\d\d:\d\d\] ", "", text)  # MXNet's log time ("[21:21:11] ../src")
    return re.sub(r"\bobject at 0x[0-9a-fA-F]+", "object at 0x…", text)[:480]


class HeldCapsule:
    """A capsule made earlier, handed out once by __dlpack__ as if made at the call."""
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **keywords):
        capsule, self.capsule = self.capsule, None
        return capsule

    def __dlpack_device__(self):
        return (1, 0)


def outcome(finding, passed_detail):
    """A case's (verdict, class, rule, severity, detail) from a judge's finding."""
    if finding is None:
        return ("pass", "", "", "", passed_detail)
    cls, rule, severity, words = finding
    return ("pass" if severity == "INFO" else "fail", cls, rule, severity, words)


# What a crash handler prints as the process dies (LLVM's, in Intel's SYCL runtime), on some
# deaths only: no words of the runtime about the crash, and a detail that would change run to run.
CRASH_HANDLER_BANNERS = ("PLEASE submit a bug report", "Stack dump:")


def crash_words(stderr_path):
    try:
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            stripped = (line.strip() for line in f.read().splitlines())
            lines = [line for line in stripped if line and
                     not line.startswith(CRASH_HANDLER_BANNERS)]
    except OSError:
        return ""
    for marker in ("what():", "terminate called", "Error:", "error:"):
        for line in lines:
            if marker in line:
                return line[:240]
    return lines[-1][:240] if lines else ""


def run_case(case):
    bridge.begin_case(case.rule, "+".join(fw.label for fw in case.parties) or "-")
    try:
        for fw in case.parties:
            fw.start()
        # A framework's own SIGABRT handler (Paddle's reads the symbol tables of every library
        # loaded, some 100 ms) only delays the death the worker reports: the case's words come
        # from what the runtime printed before it aborted (what():), not from the handler.
        signal.signal(signal.SIGABRT, signal.SIG_DFL)
        return case.body()
    except LibraryFault as e:
        return outcome(e.finding, "")
    except Unsupported as e:
        return ("skip", "", "", "", f"n/a: the framework cannot make this tensor ({e})")
    except Exception as e:  # not the library's protocol surface: an adapter's or the driver's
        return ("fail", "plugin-error", "", "MUST", blame(e, case.parties))


# The driver's own files: an exception that leaves them for an adapter's file is the adapter's.
DRIVER_FILES = ("dlconform_frameworks.py", "dlconform_workers.py", "dlconform_asks.py",
                "dlconform_devices.py", "dlconform_device_pairs.py", "dlconform_imports.py",
                "dlconform_negotiation.py")


def adapter_codes(parties):
    """{code object: adapter class name} of every method and property of every party's adapter
    class and its bases: an adapter's own code, wherever its file also holds other classes (files
    loaded by path are in no sys.modules entry, so the code objects say where they are)."""
    codes = {}
    for fw in parties:
        for cls in type(fw).__mro__[:-1]:
            for member in vars(cls).values():
                code = getattr(getattr(member, "fget", member), "__code__", None)
                if code is not None:
                    codes.setdefault(code, cls.__name__)
    return codes


def blame(e, parties):
    """plugin-error's words: whose code raised e. The first frame outside the driver's files is
    where the driver called out: an adapter's method is that adapter's failure; none (the
    driver's own line, or a C function it called) is dlconform's."""
    frames = traceback.extract_tb(e.__traceback__)
    words = f"{type(e).__name__}: {clean(e)[:300]}"
    last = frames[-1] if frames else None
    at = (f" (at {os.path.join(*last.filename.split(os.sep)[-2:])}:{last.lineno} in "
          f"{last.name}())") if last else ""
    codes = adapter_codes(parties)
    for tb, _ in traceback.walk_tb(e.__traceback__):
        code = tb.f_code
        if os.path.basename(code.co_filename) in DRIVER_FILES:
            continue
        if code in codes:
            return (f"the adapter file {os.path.basename(code.co_filename)} (class "
                    f"{codes[code]}) raised in {code.co_name}(): {words}{at}")
        break
    return f"dlconform's driver failed: {words}{at}"


def adapter_raised(e, parties):
    """Whether e was raised by an adapter's own `raise` statement (before or instead of the
    library's call), not by the library the adapter called: an adapter's exception is never the
    library's answer. The innermost frame runs an adapter method, and its line is a raise."""
    tb = e.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    if tb.tb_frame.f_code not in adapter_codes(parties):
        return False
    line = traceback.extract_tb(tb)[-1].line or ""
    return line.lstrip().startswith("raise")


# --- what a library's own protocol calls answer: findings on that library ----------------------

class LibraryFault(Exception):
    """A library's own __dlpack_device__, __dlpack__ or from_dlpack did what the Array API does
    not allow (raised, or answered something malformed): the case's verdict is this finding on
    the library, never a failure of the driver. `finding` is a make_finding tuple."""
    def __init__(self, finding):
        super().__init__(finding[3])
        self.finding = finding


def is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def as_int(x):
    """x as an int, or None: the Array API's answer is Tuple[Enum, int], and an enum of
    DLDeviceType's values or any integer (an IntEnum, a NumPy integer) will do."""
    x = x.value if isinstance(x, enum.Enum) else x
    if isinstance(x, bool):
        return None
    try:
        return operator.index(x)
    except TypeError:
        return None


def device_ints(answer):
    """(device type, device id) as ints, or None."""
    if not isinstance(answer, tuple) or len(answer) != 2:
        return None
    kind, index = as_int(answer[0]), as_int(answer[1])
    return None if kind is None or index is None else (kind, index)


def device_finding(label, answer=None, error=None):
    """What `label`'s __dlpack_device__() answered, judged: None when it is two integers. The
    Array API names no exception for it. An answer that is no (device type, device id) pair, or
    whose type is no integer, names no standard device type (DEV-1), and every consumer asks it
    first; a device id that is no integer is no valid id (DEV-2; Paddle's (kDLCPU, None))."""
    if error is not None:
        return bridge.make_finding(
            "unexpected-exception", "DEV-1", f"expected {label}'s __dlpack_device__() to answer "
            f"(device type, device id) but found {type(error).__name__}: {clean(error)[:200]}")
    if device_ints(answer) is not None:
        return None
    rule = ("DEV-2" if isinstance(answer, tuple) and len(answer) == 2
            and as_int(answer[0]) is not None else "DEV-1")
    return bridge.make_finding(
        "malformed-device-answer", rule, f"expected {label}'s __dlpack_device__() to answer a "
        f"tuple of two integers (device type, device id) but found {clean(repr(answer))[:120]}")


def device_of(label, obj):
    """obj.__dlpack_device__(), as two ints; a LibraryFault when the library's answer is none."""
    try:
        answer = obj.__dlpack_device__()
    except Exception as e:
        raise LibraryFault(device_finding(label, error=e)) from None
    finding = device_finding(label, answer)
    if finding is not None:
        raise LibraryFault(finding)
    return device_ints(answer)


def ask_capsule(exported):
    """A capsule of `exported` as a DLPack 1.3 consumer asks for it, falling back to the old
    signature on a TypeError (VER-5)."""
    try:
        return exported.__dlpack__(max_version=(1, 3))
    except TypeError:
        return exported.__dlpack__()


def export_address(exported):
    """The first element's address in a capsule of `exported` (an array asked as a DLPack 1.3
    consumer asks, or a capsule already); None where it gives none (no export, or no capsule)."""
    if is_capsule(exported):
        return bridge.capsule_data(exported)
    try:
        capsule = ask_capsule(exported)
    except Exception:
        return None
    return bridge.capsule_data(capsule) if is_capsule(capsule) else None


def heap_name_finding(cls, expected):
    """`cls` [LIFE-1] for a capsule name whose bytes lie in no loaded object (python_spec.rst: the
    names "must be statically allocated"); `expected` says whose name, as "expected ..."."""
    return bridge.make_finding(
        cls, "LIFE-1", f"{expected} but found the name's bytes in memory that no loaded object "
        f"holds (the heap): the capsule keeps the pointer, and the bytes live only as long as "
        f"their owner")


def keywords_text(asked):
    """A call's keywords as the call shows them: "max_version=(1, 3), copy=False"."""
    return ", ".join(f"{k}={v!r}" for k, v in asked.items())


def capsule_finding(label, answer, asked):
    """not-a-capsule for what `label`'s __dlpack__(**asked) returned; None for a PyCapsule."""
    if is_capsule(answer):
        return None
    shown = keywords_text(asked)
    return bridge.make_finding(
        "not-a-capsule", "VER-4", f"expected {label}'s __dlpack__({shown}) to return a PyCapsule "
        f"but found {type(answer).__name__}")


def released(value, before):
    """Whether `value` is back to `before` references. As for the deleter (below), a runtime that
    releases an imported buffer on a thread of its own (JAX 0.12 does, for a copied transposed
    view) gets half a second; a leak never comes back."""
    deadline = time.monotonic() + 0.5
    while sys.getrefcount(value) > before + 1:  # + 1: the argument of getrefcount in here
        gc.collect()
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def signature_text(method):
    """__dlpack__'s signature as inspect shows it, or None (a C method may have none)."""
    try:
        return str(inspect.signature(method))
    except (TypeError, ValueError):
        return None


def declared_keywords(method):
    """The keywords __dlpack__ declares; None where its signature says nothing (none to read,
    or **kwargs)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def signature_finding(label, method, asked, error):
    """A TypeError of `label`'s __dlpack__(**asked), judged against the Array API's signature
    __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None) (VER-4,
    "Signature"): no stream is a finding; no max_version, dl_device or copy is the old signature
    consumers must handle (INFO). From the call's behaviour, the signature only explains it."""
    text = signature_text(method)
    shown = f"its signature is __dlpack__{text}" if text else "it shows no signature"
    declared = declared_keywords(method)
    if declared is not None and all(k in declared for k in asked):  # not an unknown keyword
        return bridge.make_finding(
            "producer-violation", "VER-5", f"expected {label}'s __dlpack__ to raise TypeError "
            f"only for an unknown keyword but found TypeError for {', '.join(asked)} although "
            f"{shown}: {clean(error)[:160]}")
    if "stream" in asked:
        return bridge.make_finding(
            "no-stream-keyword", "VER-4", f"expected {label}'s __dlpack__ to take stream="
            f"{asked['stream']!r} (a keyword since the Array API 2021.12; JAX's from_dlpack passes "
            f"it) but found TypeError: {clean(error)[:160]} ({shown})")
    missing = [k for k in asked if declared is None or k not in declared]
    return bridge.make_finding(
        "old-dlpack-signature", "VER-4", f"{label}'s __dlpack__ takes no {' or '.join(missing)} "
        f"keyword: the signature before DLPack 1.0, which consumers must handle by asking again "
        f"without it (VER-5); TypeError: {clean(error)[:160]} ({shown})")


RETIRED = "retired"  # a worker's last line: it left after that case, and a fresh one takes over


class Worker:
    """A forked process that runs the cases it is sent, one at a time. The parent only imported
    the frameworks (no thread pools yet, so forking is safe); each worker starts a framework the
    first time one of its cases needs it."""
    parent_fds = set()  # the parent's ends of every worker's pipes, closed in each new worker

    def __init__(self, cases, slot):
        tmp = os.environ.get("TMPDIR", "/tmp")
        self.stderr_path = os.path.join(tmp, f"dlconform-fw-{os.getpid()}-{slot}.err")
        self.fault_path = os.path.join(tmp, f"dlconform-fw-{os.getpid()}-{slot}.fault")
        command_read, self.command = os.pipe()
        self.results, result_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.command)
            os.close(self.results)
            for fd in Worker.parent_fds:  # or a sibling never sees its command pipe close
                os.close(fd)
            err = os.open(self.stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(err, 2)
            os.dup2(err, 1)
            bridge.guard_faults(self.fault_path)
            with os.fdopen(command_read, "r") as commands:
                for line in commands:
                    index = int(line)
                    os.ftruncate(err, 0)
                    os.lseek(err, 0, os.SEEK_SET)
                    result = run_case(cases[index])
                    out = f"{index}\x1f" + "\x1f".join(clean(x) for x in result) + "\n"
                    # Leaked imports, or the freed blocks a worker keeps in quarantine, fill the
                    # arena: a fresh worker, before an allocation fails.
                    retire = bridge.guarded_blocks()[2]
                    if retire:
                        out += RETIRED + "\n"
                    os.write(result_write, out.encode("utf-8", "replace"))
                    if retire:
                        break
            os._exit(0)
        os.close(command_read)
        os.close(result_write)
        Worker.parent_fds.update((self.command, self.results))
        self.buffer = b""
        self.current = None
        self.deadline = 0.0

    def send(self, index, timeout):
        self.current = index
        self.deadline = time.monotonic() + timeout
        try:
            os.write(self.command, f"{index}\n".encode())
        except BrokenPipeError:
            pass  # it died between cases: its next read says so, and the case is its verdict

    def read(self):
        """The finished results; None when the worker died."""
        chunk = os.read(self.results, 65536)
        if not chunk:
            return None
        self.buffer += chunk
        lines = self.buffer.split(b"\n")
        self.buffer = lines.pop()
        return [line.decode("utf-8", "replace").split("\x1f") for line in lines]

    def death(self, case, killed):
        """The verdict of the case the worker was running when it died or was killed."""
        _, status = os.waitpid(self.pid, 0)
        self.close()
        if killed:
            return ["timeout", "timeout", case.rule, "MUST", f"killed after {killed:g} s"]
        how = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else \
            f"exit {os.WEXITSTATUS(status)}"
        named = None
        try:
            with open(self.fault_path, encoding="utf-8") as f:
                named = f.read().strip().split("\t")
            os.remove(self.fault_path)
        except OSError:
            pass
        if named and len(named) == 3:
            return ["crash", named[0], named[1], "MUST", f"{how}: {named[2]}"]
        words = crash_words(self.stderr_path)
        return ["crash", "crash", case.rule, "MUST",
                f"the framework crashed ({how})" + (f": {words}" if words else "")]

    def close(self):
        for fd in (self.command, self.results):
            os.close(fd)
            Worker.parent_fds.discard(fd)

    def stop(self):
        os.close(self.command)
        Worker.parent_fds.discard(self.command)
        os.waitpid(self.pid, 0)
        os.close(self.results)
        Worker.parent_fds.discard(self.results)
        for path in (self.stderr_path, self.fault_path):
            try:
                os.remove(path)
            except OSError:
                pass


def run_all(cases, timeout, jobs, emit, progress):
    """Runs the cases in `jobs` forked workers. A worker that dies or hangs gives its case a crash
    or timeout verdict, and a fresh worker takes its slot."""
    pending = list(range(len(cases)))
    pending.reverse()
    slots = [Worker(cases, slot) for slot in range(max(1, min(jobs, len(cases))))]
    done = 0
    while pending or any(w.current is not None for w in slots):
        for w in slots:
            if w.current is None and pending:
                w.send(pending.pop(), timeout)
        busy = {w.results: w for w in slots if w.current is not None}
        wait = max(0.0, min(w.deadline for w in busy.values()) - time.monotonic())
        ready, _, _ = select.select(list(busy), [], [], wait)
        for fd in ready:
            w = busy[fd]
            results = w.read()
            if results is None:
                emit(cases[w.current], w.death(cases[w.current], 0))
                slots[slots.index(w)] = Worker(cases, slots.index(w))
                done += 1
                continue
            for index, *result in results:
                if index == RETIRED:
                    w.stop()
                    slots[slots.index(w)] = Worker(cases, slots.index(w))
                    continue
                emit(cases[int(index)], result)
                done += 1
                w.current = None
        now = time.monotonic()
        for i, w in enumerate(slots):
            if w.current is not None and w.deadline <= now and w.results not in ready:
                # emit() may have blocked for a while (dlconform reads a driver's records only
                # once the mocks' cases are done): a worker whose result came meanwhile is no
                # timeout, and is read on the next round.
                if select.select([w.results], [], [], 0)[0]:
                    continue
                os.kill(w.pid, signal.SIGKILL)
                emit(cases[w.current], w.death(cases[w.current], timeout))
                slots[i] = Worker(cases, i)
                done += 1
        progress(done, len(cases))
    for w in slots:
        w.stop()


# The adapter's `strides` word a pair tensor needs: without it, a consumer may refuse it, late
# too. A transposition needs none (JAX takes compact layouts and their transpositions only).
STRIDES_NEEDED = {"f32_step": "positive", "f32_reversed": "negative", "f32_broadcast": "zero"}


def takes_layout(fw, tensor):
    """Whether fw's adapter says it takes the strides of pair tensor `tensor`."""
    needed = STRIDES_NEEDED.get(tensor)
    return needed is None or needed in fw.strides.split()


def wrong_refusal(who, error, rule, what):
    """A refusal the rules want as BufferError (an unsupported device: DEV-3, STRM-3) that came
    as another exception, which callers catching BufferError to fall back miss; None when it is
    a BufferError. The framework rows, the device rows and the pairs all judge with it."""
    if error.startswith("BufferError"):
        return None
    revision = REFUSAL_REVISION.get(rule, "")
    if rule == "DEV-3" and error.startswith("TypeError"):
        revision += "; v0.7 and v0.8 recommended TypeError, which this library follows"
    return bridge.make_finding("wrong-refusal-exception", rule,
                               f"expected {who} to refuse {what} with BufferError but found "
                               f"{error} ({revision})")


# The text each refusal's exception rests on, named in its finding: DEV-3 is a recommendation
# (SHOULD), STRM-3 and STRM-4 are the Array API's must (MUST).
REFUSAL_REVISION = {
    "DEV-3": "python_spec.rst v1.0 to v1.3: 'it is recommended to raise a BufferError'",
    "XAPI-5": "dlpack.h v1.3, managed_tensor_from_py_object_no_sync: 'If the data cannot be "
              "described using DLPack this should be a BufferError if possible'",
    "STRM-3": "the Array API 2023.12 and 2024.12: 'must raise BufferError'",
    "STRM-4": "the Array API 2024.12 __dlpack__ copy: 'raise a BufferError in case a copy is "
              "deemed necessary'",
}


def buffer_error_finding(label, ask, words, own_device):
    """A BufferError from label's __dlpack__(**ask), judged the same wherever it is asked (the
    negotiation rows and the device rows): None where the rules let a producer refuse, a finding
    where they do not: copy=True for the array's own device, where a copy is always possible
    ("If True, the function must always copy": STRM-4), and stream=None, the default every
    producer takes (STRM-1: "None: producer must assume the legacy default stream", and on the
    CPU "only None is accepted"), as the device rows' streams case judges it."""
    if "stream" in ask and ask["stream"] is None:
        return bridge.make_finding(
            "producer-violation", "STRM-1", f"expected {label}'s __dlpack__(stream=None) to "
            f"export (stream=None is the default every producer takes) but found "
            f"{clean(words)[:160]}")
    target = ask.get("dl_device")
    if ask.get("copy") is True and (target is None or tuple(target) == tuple(own_device)):
        shown = ", ".join(f"{k}={v}" for k, v in ask.items())
        return bridge.make_finding(
            "producer-violation", "STRM-4", f"expected {label}'s __dlpack__({shown}) to copy "
            f"(copy=True: always copy) but found {clean(words)[:160]}")
    return None
