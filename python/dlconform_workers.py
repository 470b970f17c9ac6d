"""The driver's worker pool: each case of dlconform_frameworks.py runs in a forked worker, and
what it returns becomes one `case` record; a worker that dies takes only its case with it (a
crash verdict, named by the guard arena when the fault was in guarded memory), one that runs past
the timeout is killed."""
import os
import select
import signal
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
    return " ".join(str(text).replace("\t", " ").split())[:480]


def outcome(finding, passed_detail):
    """A case's (verdict, class, rule, severity, detail) from a judge's finding."""
    if finding is None:
        return ("pass", "", "", "", passed_detail)
    cls, rule, severity, words = finding
    return ("pass" if severity == "INFO" else "fail", cls, rule, severity, words)


def crash_words(stderr_path):
    try:
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    for marker in ("what():", "terminate called", "Error:", "error:"):
        for line in lines:
            if marker in line:
                return line[:240]
    return lines[-1][:240] if lines else ""


def run_case(case):
    bridge.begin_case(case.rule, "+".join(fw.label for fw in case.parties) or "-")
    for fw in case.parties:
        fw.start()
    try:
        return case.body()
    except Unsupported as e:
        return ("skip", "", "", "", f"n/a: the framework cannot make this tensor ({e})")
    except Exception as e:  # a bug of the case itself, not of the framework
        return ("fail", "plugin-error", "", "MUST",
                f"the driver failed: {type(e).__name__}: {e} "
                f"{traceback.format_exc().splitlines()[-3:]}")


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
                    os.write(result_write, out.encode("utf-8", "replace"))
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
                emit(cases[int(index)], result)
                done += 1
                w.current = None
        now = time.monotonic()
        for i, w in enumerate(slots):
            if w.current is not None and w.deadline <= now and w.results not in ready:
                os.kill(w.pid, signal.SIGKILL)
                emit(cases[w.current], w.death(cases[w.current], timeout))
                slots[i] = Worker(cases, i)
                done += 1
        progress(done, len(cases))
    for w in slots:
        w.stop()
