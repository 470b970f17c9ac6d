#!/usr/bin/env python3
"""Real frameworks in the dlconform matrix: runs the framework cases and prints one record per
case for `dlconform matrix --framework NAME`.

  dlconform_frameworks.py --framework numpy --framework torch [--producers DIR] [--list]

Needs the _dlconform bridge on PYTHONPATH (the CLI sets it). Cases run in forked workers, so a
framework that crashes yields a crash verdict for that case, not the end of the run. A framework
that cannot be imported yields one "skip" record naming why.

Cases, per framework F at version V:
  framework/F@V/dlconform-consumer@v1.3/T   F exports T; dlconform's strict consumer imports it as
      the spec says (asks max_version, falls back on TypeError, renames, validates, reads every
      element, deletes once) and compares the values with F's own.
  framework/P@H/F@V/T                       a dlconform mock producer P built against header H
      exports catalogue tensor T to F.from_dlpack: F must import the right values or refuse
      cleanly, rename the capsule (LIFE-1), and call the deleter exactly once when its array dies
      (LIFE-3); an invalid tensor must be refused (accepted-invalid otherwise).
  framework/F1@V1/F2@V2/T                   F1 exports, F2.from_dlpack imports; values must match.
  negotiation/F@V/max_version=...           what F.__dlpack__ answers for each max_version (VER-4).

Record: tab-separated id, scenario, producer, producer header, consumer, consumer header, tensor,
verdict (pass/fail/crash/skip), finding class, rule, detail."""
import argparse
import gc
import importlib
import os
import signal
import sys

import _dlconform as bridge

FRAMEWORKS = ("numpy", "torch")


def version_of(module):
    return module.__version__.split("+")[0]


# Tensors a framework exports, built with its own API: (name, builder, rule).
def framework_tensors(name, np):
    if name == "numpy":
        return [
            ("f32_2x3", lambda: np.arange(6, dtype=np.float32).reshape(2, 3), "LAY-4"),
            ("f64_transposed", lambda: np.arange(12, dtype=np.float64).reshape(3, 4).T, "LAY-4"),
            ("i16_offset_slice", lambda: np.arange(16, dtype=np.int16)[5:], "LAY-4"),
            ("f32_negative_strides", lambda: np.arange(8, dtype=np.float32)[::-1], "LAY-8"),
            ("f32_broadcast", lambda: np.broadcast_to(np.arange(3, dtype=np.float32), (4, 3)), "LAY-8"),
            ("f32_scalar", lambda: np.array(3.5, dtype=np.float32), "LAY-3"),
            ("f32_zero_size", lambda: np.zeros((0, 4), dtype=np.float32), "LAY-7"),
            ("bool_5", lambda: np.array([True, False, True, True, False]), "DT-1"),
            ("u8_7", lambda: np.arange(7, dtype=np.uint8), "DT-1"),
            ("c64_3", lambda: np.array([1 + 2j, 3 - 4j, 0j], dtype=np.complex64), "DT-1"),
            ("f16_4", lambda: np.arange(4, dtype=np.float16), "DT-1"),
            ("f32_read_only", lambda: read_only(np.arange(4, dtype=np.float32)), "FLAG-1"),
        ]
    import torch
    return [
        ("f32_2x3", lambda: torch.arange(6, dtype=torch.float32).reshape(2, 3), "LAY-4"),
        ("f64_transposed", lambda: torch.arange(12, dtype=torch.float64).reshape(3, 4).t(), "LAY-4"),
        ("i16_offset_slice", lambda: torch.arange(16, dtype=torch.int16)[5:], "LAY-4"),
        ("f32_broadcast", lambda: torch.arange(3, dtype=torch.float32).expand(4, 3), "LAY-8"),
        ("f32_scalar", lambda: torch.tensor(3.5, dtype=torch.float32), "LAY-3"),
        ("f32_zero_size", lambda: torch.zeros((0, 4), dtype=torch.float32), "LAY-7"),
        ("bool_5", lambda: torch.tensor([True, False, True, True, False]), "DT-1"),
        ("u8_7", lambda: torch.arange(7, dtype=torch.uint8), "DT-1"),
        ("c64_3", lambda: torch.tensor([1 + 2j, 3 - 4j, 0j], dtype=torch.complex64), "DT-1"),
        ("f16_4", lambda: torch.arange(4, dtype=torch.float16), "DT-1"),
        ("bf16_4", lambda: torch.arange(4, dtype=torch.bfloat16), "DT-1"),
    ]


def read_only(array):
    array.setflags(write=False)
    return array


def logical_bytes(name, value):
    """The values in logical row-major order, as bytes (what the digest covers)."""
    import numpy as np
    if name == "torch":
        import torch
        if value.dtype == torch.bfloat16:
            return value.contiguous().view(torch.int16).numpy().tobytes()
        return value.contiguous().numpy().tobytes()
    return np.ascontiguousarray(value).tobytes()


class Case:
    def __init__(self, case_id, scenario, producer, producer_header, consumer, consumer_header,
                 tensor, body, rule=""):
        self.fields = [case_id, scenario, producer, producer_header, consumer, consumer_header,
                       tensor]
        self.body = body
        self.rule = rule  # what a crash or a hang on this case breaks


def record(case, verdict, finding="", rule="", detail=""):
    detail = " ".join(str(detail).split())[:400]
    return "\t".join(case.fields + [verdict, finding, rule, detail])


def crash_words(stderr_path):
    """The framework's own last words before it died (a C++ exception's what(), say)."""
    try:
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            lines = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    for marker in ("what():", "terminate called", "Error:", "error:"):
        for line in lines:
            if marker in line:
                return line[:200]
    return lines[-1][:200] if lines else ""


def run_all(cases, timeout, emit):
    """Runs every case in forked workers: a worker runs cases one after another and reports each;
    when it dies (or hangs past `timeout`), the case it was running gets a crash (or timeout)
    verdict and a fresh worker, forked from this process, carries on with the next case."""
    next_case = 0
    stderr_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"dlconform-fw-{os.getpid()}.err")
    while next_case < len(cases):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(err, 2)
            for index in range(next_case, len(cases)):
                os.ftruncate(err, 0)
                os.lseek(err, 0, os.SEEK_SET)
                signal.alarm(int(timeout))
                try:
                    outcome = cases[index].body()
                except Exception as e:  # a bug of the case itself, not of the framework
                    outcome = ("fail", "harness-error", "", f"{type(e).__name__}: {e}")
                signal.alarm(0)
                line = f"{index}\x1f" + "\x1f".join(outcome) + "\n"
                os.write(write_end, line.encode("utf-8", "replace"))
            os._exit(0)
        os.close(write_end)
        buffered = b""
        with os.fdopen(read_end, "rb") as pipe:
            for raw in pipe:
                index, *outcome = raw.decode("utf-8", "replace").rstrip("\n").split("\x1f")
                emit(record(cases[int(index)], *outcome))
                next_case = int(index) + 1
        _, status = os.waitpid(pid, 0)
        if next_case < len(cases) and (os.WIFSIGNALED(status) or os.WEXITSTATUS(status) != 0):
            case = cases[next_case]
            words = crash_words(stderr_path)
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
                emit(record(case, "timeout", "timeout", case.rule, f"killed after {timeout} s"))
            else:
                how = signal.Signals(os.WTERMSIG(status)).name if os.WIFSIGNALED(status) else \
                    f"exit {os.WEXITSTATUS(status)}"
                emit(record(case, "crash", "crash", case.rule,
                            f"the framework crashed ({how})" + (f": {words}" if words else "")))
            next_case += 1
        del buffered
    try:
        os.remove(stderr_path)
    except OSError:
        pass


# --- case bodies (run in the child) ---------------------------------------------------------

def framework_to_dlconform(name, build):
    def body():
        module = importlib.import_module(name)
        value = build()
        try:
            seen = bridge.consume(value, max_version=(1, 3))
        except BufferError as e:
            return ("pass", "", "", f"{name} refused to export: BufferError: {e}")
        except Exception as e:  # a refusal all the same, with another type than the spec's
            return ("pass", "", "", f"{name} refused to export with {type(e).__name__} "
                                    f"(the Python spec asks for BufferError): {e}")
        must = [v for v in seen["violations"] if v[1] == "MUST"]
        if must:
            return ("fail", "producer-violation", must[0][0], must[0][2])
        expected = bridge.digest(logical_bytes(name, value))
        if seen["digest"] != expected:
            return ("fail", "wrong-data", "LAY-4",
                    f"the struct describes other values than {name}'s own "
                    f"(digest {seen['digest']} vs {expected})")
        how = "legacy capsule after TypeError" if seen["fell_back"] else seen["capsule"]
        strides = "NULL" if seen["strides"] is None else list(seen["strides"])
        del module
        return ("pass", "", "", f"imported: {how}, shape {list(seen['shape'])}, strides "
                                f"{strides}, byte_offset {seen['byte_offset']}, "
                                f"{seen['elements']} elements as {name} reads them")
    return body


def dlconform_to_framework(name, producer_path, tensor, valid, rule):
    deleter_owed = 0 if "null_deleter" in tensor else 1  # LIFE-4: a NULL deleter is not called
    def body():
        module = importlib.import_module(name)
        t = bridge.MockTensor(producer_path, tensor)
        digest, count = t.expected()
        try:
            value = module.from_dlpack(t)
        except Exception as e:  # frameworks raise several types for a refusal
            gc.collect()
            calls = t.deleter_calls()
            if calls > 1:
                return ("fail", "deleter-called-twice", "LIFE-3", f"{calls} deleter calls after a refusal")
            renamed = t.capsule_renamed()
            if renamed and calls == 0:
                return ("fail", "deleter-never-called", "LIFE-3",
                        "renamed the capsule, refused, and never called the deleter")
            if renamed is None and calls == 0:
                return ("pass", "", "", f"refused before asking for a capsule: {type(e).__name__}: {e}")
            return ("pass", "", "", f"refused cleanly: {type(e).__name__}: {e}")
        if not valid:
            return ("fail", "accepted-invalid", rule,
                    f"{name}.from_dlpack imported an invalid tensor as shape {tuple(value.shape)}")
        got = bridge.digest(logical_bytes(name, value))
        del value
        gc.collect()
        calls, renamed = t.deleter_calls(), t.capsule_renamed()
        if got != digest:
            return ("fail", "wrong-data", "LAY-4",
                    f"{name} read other values than the producer made (digest {got} vs {digest})")
        if renamed is False:
            return ("fail", "capsule-not-renamed", "LIFE-1", "the capsule died still named dltensor")
        if calls != deleter_owed:
            return ("fail", "deleter-never-called" if calls < deleter_owed else "deleter-called-twice",
                    "LIFE-3", f"expected {deleter_owed} deleter call after the array died but "
                              f"found {calls}")
        return ("pass", "", "", f"imported {count} elements correctly; capsule renamed; deleter "
                                f"called {deleter_owed} time(s) when the array died")
    return body


def framework_to_framework(producer, build, consumer):
    def body():
        importlib.import_module(producer)
        target = importlib.import_module(consumer)
        value = build()
        try:
            imported = target.from_dlpack(value)
        except Exception as e:
            return ("pass", "", "", f"refused cleanly: {type(e).__name__}: {e}")
        if logical_bytes(consumer, imported) != logical_bytes(producer, value):
            return ("fail", "wrong-data", "LAY-4", f"{consumer} read other values than {producer} holds")
        return ("pass", "", "", f"imported shape {tuple(imported.shape)} with equal values")
    return body


def negotiation(name, max_version):
    def body():
        module = importlib.import_module(name)
        value = module.ones((2, 2)) if name == "numpy" else module.ones(2, 2)
        try:
            capsule = value.__dlpack__() if max_version is None else \
                value.__dlpack__(max_version=max_version)
        except TypeError as e:
            if max_version is None:
                return ("fail", "producer-violation", "VER-4", f"TypeError without max_version: {e}")
            return ("pass", "", "", f"TypeError (a legacy producer: the caller falls back): {e}")
        except BufferError as e:
            return ("pass", "", "", f"BufferError: {e}")
        text = repr(capsule)
        versioned = '"dltensor_versioned"' in text
        legacy_caller = max_version is None or max_version[0] < 1
        if versioned and legacy_caller:
            return ("fail", "versioned-to-legacy-caller", "VER-4",
                    f"answered {text} to max_version={max_version}")
        return ("pass", "", "", f"answered {'dltensor_versioned' if versioned else 'dltensor'}")
    return body


def plan(frameworks, producers_dir):
    import numpy as np
    cases = []
    versions = {}
    for name in frameworks:
        # The report's grids label parties by header: a framework's is its name and version.
        versions[name] = f"{name}-{version_of(importlib.import_module(name))}"
    catalogue = bridge.tensor_names()
    producers = [("legacy-producer", "v0.6"), ("legacy-producer", "v0.8"),
                 ("versioned-producer", "v1.0"), ("versioned-producer", "v1.3"),
                 ("future-major-producer", "v1.3")]
    for name in frameworks:
        fw = versions[name].replace("-", "@", 1)
        for tensor, build, rule in framework_tensors(name, np):
            cases.append(Case(f"framework/{fw}/dlconform-consumer@v1.3/{tensor}", "framework",
                              name, versions[name], "dlconform-consumer", "v1.3", tensor,
                              framework_to_dlconform(name, build), rule))
        for producer, header in producers:
            path = os.path.join(producers_dir, f"dlc-{producer}-{header.replace('.', '_')}.so")
            if not os.path.exists(path):
                continue
            for tensor, rule, must, device in catalogue:
                if device != 1 or tensor.startswith("view/"):
                    continue  # CPU frameworks here; device tensors belong to the CUDA rows
                valid = must == "valid"
                cases.append(Case(f"framework/{producer}@{header}/{fw}/{tensor}", "framework",
                                  producer, header, name, versions[name], tensor,
                                  dlconform_to_framework(name, path, tensor, valid, rule), rule))
        for other in frameworks:
            for tensor, build, rule in framework_tensors(name, np):
                cases.append(Case(f"framework/{fw}/{versions[other].replace('-', '@', 1)}/{tensor}",
                                  "framework", name, versions[name], other, versions[other],
                                  tensor, framework_to_framework(name, build, other), rule))
        for mv in (None, (0, 8), (1, 0), (1, 3), (2, 0)):
            label = "none" if mv is None else f"{mv[0]}.{mv[1]}"
            cases.append(Case(f"negotiation/{fw}/max_version={label}", "negotiation", name,
                              versions[name], "dlconform-caller", "v1.3", f"max_version={label}",
                              negotiation(name, mv), "VER-4"))
    return cases


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--framework", action="append", default=[])
    parser.add_argument("--producers", default="")
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args()
    usable = []
    for name in args.framework:
        if name not in FRAMEWORKS:
            print(f"dlconform frameworks: expected a framework among {', '.join(FRAMEWORKS)} but "
                  f"found '{name}'", file=sys.stderr)
            return 3
        try:
            importlib.import_module(name)
            usable.append(name)
        except Exception as e:
            print("\t".join([f"framework/{name}/unavailable", "framework", name, "-", "-", "-", "-",
                             "skip", "", "", f"{name} cannot be imported by {sys.executable}: {e}"]))
    cases = plan(usable, args.producers) if usable else []
    if args.list:
        for case in cases:
            print(case.fields[0])
        return 0
    run_all(cases, args.timeout, lambda line: print(line, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
