#!/usr/bin/env python3
"""Runs every reproducer of python/reproducers/ in each framework environment it names, and checks
that it still shows its finding; checks that each is at most 5 lines of Python and is cited, with
its rule and framework, by the suppression file of every environment it names (and that every
framework suppression cites reproducers that exist).

  reproducers_test.py [--env NAME] [--jobs N] [--list] [--python PATH]

A reproducer starts with three comment lines:
  # finding: FRAMEWORK RULE CLASS: what happens
  # env: NAME...                          (envs/NAME.txt, or debian)
  # expect: exit 0 | SIGABRT | SIGSEGV | raises NAME: PATTERN
"exit 0" reproducers end in an assert that holds while the defect is there: when a release fixes
it, the assert fails, this test fails, and the suppression entry is to be removed (the matrix
reports it stale as well). An environment that is not installed is a visible skip (exit 77 when
nothing ran), and a failure under CI (CI=true), where `tools/dev envs` made them all.
"""
import argparse
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlconform_suppressions  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDER = os.path.join(ROOT, "python", "reproducers")
HELPER = "dlconform_capsule.py"
GPU_PYTHON = "python3"  # the interpreter of env gpu: --python, as tools/gpu-check passes it
MAX_LINES = 5


class Reproducer:
    def __init__(self, path):
        self.path = path
        self.name = os.path.basename(path)
        with open(path, encoding="utf-8") as f:
            self.lines = f.read().splitlines()
        header = {}
        for line in self.lines:
            m = re.match(r"#\s*(finding|env|expect):\s*(.*)$", line)
            if m:
                header[m.group(1)] = m.group(2).strip()
        self.errors = []
        for key in ("finding", "env", "expect"):
            if key not in header:
                self.errors.append(f"{self.name}: expected a '# {key}:' line but found none")
        finding = header.get("finding", "")
        m = re.match(r"(\S+)\s+([A-Z]+-\d+[a-z]?)\s+(\S+):", finding)
        if finding and not m:
            self.errors.append(f"{self.name}: expected '# finding: FRAMEWORK RULE CLASS: ...' but "
                               f"found '# finding: {finding[:60]}'")
        self.framework, self.rule, self.cls = (m.group(1), m.group(2), m.group(3)) if m else \
            ("", "", "")
        self.envs = header.get("env", "").split()
        self.expect = header.get("expect", "")
        # An exception is named with its message (a regular expression): a bare type also
        # passes when the library fails for an unrelated reason.
        if self.expect and not re.match(r"^(exit 0|SIGABRT|SIGSEGV|raises \w+: \S.*)$",
                                        self.expect):
            self.errors.append(f"{self.name}: expected '# expect: exit 0, SIGABRT, SIGSEGV or "
                               f"raises NAME: PATTERN' but found '{self.expect}'")
        code = [line for line in self.lines if line.strip() and not line.lstrip().startswith("#")]
        if len(code) > MAX_LINES:
            self.errors.append(f"{self.name}: expected at most {MAX_LINES} lines of Python but "
                               f"found {len(code)}")


def read_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def env_python(name):
    """The interpreter of a framework environment, or (None, why)."""
    if name == "debian":
        return ("/usr/bin/python3", "") if os.path.exists("/usr/bin/python3") else \
            (None, "Debian's /usr/bin/python3 is not installed")
    if name == "gpu":  # the interpreter tools/gpu-check names (--python), where a GPU is
        import shutil
        gpu = shutil.which("nvidia-smi") and subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True).returncode == 0
        return (GPU_PYTHON, "") if gpu else (None, "no CUDA device (nvidia-smi)")
    pins = read_file(os.path.join(ROOT, "envs", f"{name}.txt"))
    if pins is None:
        return None, f"no environment named {name} (expected envs/{name}.txt)"
    root = os.environ.get("DLCONFORM_ENV_DIR") or os.path.expanduser("~/.cache/dlconform/venvs")
    python = os.path.join(root, name, "bin", "python")
    if not os.path.exists(python) or read_file(os.path.join(root, name, ".dlconform-pins")) != pins:
        return None, f"environment {name} is not installed: run `tools/dev envs {name}`"
    return python, ""


def suppression_entries(env, file_name=None):
    """The entries (dlconform_suppressions) of suppressions/env-ENV.txt (or FILE_NAME), or None if
    there is no such file."""
    path = os.path.join(ROOT, "suppressions", file_name or f"env-{env}.txt")
    if not os.path.isfile(path):
        return None
    return dlconform_suppressions.read(path)


def cited(reason):
    m = re.search(r"\[repro:\s*([^\]]+)\]", reason)
    return m.group(1).split() if m else []


def check_citations(reproducers):
    errors = []
    by_name = {r.name: r for r in reproducers}
    envs = sorted({e for r in reproducers for e in r.envs})
    for env in envs:
        entries = suppression_entries(env)
        if entries is None:
            errors.append(f"suppressions/env-{env}.txt: expected a suppression file for {env} "
                          f"but found none")
            continue
        for r in reproducers:
            if env not in r.envs:
                continue
            # A library's device rows name it with the device (torch-cuda, jax-cuda). An entry
            # of the new form names the reproducer's class too.
            if not any(e["rule"] == r.rule and
                       e["party"].split("@")[0] in (r.framework, r.framework + "-cuda") and
                       (not e["classes"] or r.cls in e["classes"]) and
                       r.name in cited(e["reason"]) for e in entries):
                errors.append(f"suppressions/env-{env}.txt: expected an entry '{r.rule} {r.cls} "
                              f"ROLE {r.framework}@...' citing [repro: {r.name}] but found none")
    for name in sorted(os.listdir(os.path.join(ROOT, "suppressions"))):
        if not name.endswith(".txt"):
            continue
        # The plugins' files may cite a matrix case instead ([case: ID]); the adapter tests
        # check that those cases exist and are known.
        plugin_file = not name.startswith("env-")
        for e in suppression_entries(None, name) or []:
            rule, party, reason = e["rule"], e["party"], e["reason"]
            if not e["classes"]:
                errors.append(f"suppressions/{name}:{e['line']}: expected the form RULE CLASS "
                              f"ROLE PARTY REASON but found the old form {rule} {party} (rule "
                              f"and party only)")
            repros = cited(reason)
            for fuzz in re.findall(r"\[fuzz:\s*([^\]]+)\]", reason):
                if not os.path.isfile(os.path.join(ROOT, "corpus", fuzz.strip())):
                    errors.append(f"suppressions/{name}: {rule} {party} cites corpus/{fuzz}, "
                                  f"which does not exist")
            if not repros and not (plugin_file and ("[case: " in reason or "[fuzz: " in reason)):
                errors.append(f"suppressions/{name}: expected '[repro: FILE]' in the entry "
                              f"{rule} {party} but found none")
            for repro in repros:
                if repro not in by_name:
                    errors.append(f"suppressions/{name}: {rule} {party} cites {repro}, which "
                                  f"is not in python/reproducers/")
    return errors


def run_one(reproducer, env, python):
    """'' when it still shows its finding, else what it did instead."""
    # JAX takes 75 % of a GPU's memory per process unless told not to: the reproducers run at
    # once, and a CuPy one beside JAX ones ran out of memory (the GPU run of 2026-11-30).
    environ = dict(os.environ, PYTHONPATH=FOLDER, PYTHONDONTWRITEBYTECODE="1",
                   TF_CPP_MIN_LOG_LEVEL="3", XLA_PYTHON_CLIENT_PREALLOCATE="false")
    # What the environment's driver runs with (envs/NAME.txt's '# environment:' line, written
    # resolved by tools/dev): oneapi's OpenCL runtime is found only through it.
    settings = os.path.join(os.path.dirname(os.path.dirname(python)), ".dlconform-environment")
    for line in (read_file(settings) or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            environ[key.strip()] = value
    with tempfile.TemporaryDirectory() as cwd:  # frameworks write caches beside themselves
        try:
            p = subprocess.run([python, reproducer.path], cwd=cwd, env=environ,
                               capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return "it ran past 300 s"
    tail = [line for line in p.stderr.splitlines() if line.strip()]
    last = tail[-1].strip() if tail else ""
    got = (f"signal {signal.Signals(-p.returncode).name}" if p.returncode < 0
           else f"exit {p.returncode}")
    expect = reproducer.expect
    if expect == "exit 0" and p.returncode == 0:
        return ""
    if expect in ("SIGABRT", "SIGSEGV") and p.returncode == -getattr(signal, expect):
        return ""
    if expect.startswith("raises ") and p.returncode == 1 and \
            re.search(r"\b" + expect[len("raises "):], p.stderr):
        return ""
    return f"expected {expect} but found {got}" + (f": {last[:200]}" if last else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", action="append", help="only these environments")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--python", default="python3",
                        help="the interpreter of env gpu (tools/gpu-check's --python)")
    args = parser.parse_args()
    global GPU_PYTHON
    GPU_PYTHON = args.python
    paths = sorted(os.path.join(FOLDER, n) for n in os.listdir(FOLDER)
                   if n.endswith(".py") and n != HELPER)
    reproducers = [Reproducer(p) for p in paths]
    if args.list:
        for r in reproducers:
            print(f"{r.name}\t{r.framework}\t{r.rule}\t{' '.join(r.envs)}\t{r.expect}")
        return 0
    errors = [e for r in reproducers for e in r.errors] + check_citations(reproducers)
    runs, skipped = [], {}
    for r in reproducers:
        for env in r.envs:
            if args.env and env not in args.env:
                continue
            python, why = env_python(env)
            if python is None:
                skipped[env] = why
            else:
                runs.append((r, env, python))
    for env, why in sorted(skipped.items()):
        print(f"SKIP {env}: {why}")
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        outcomes = list(pool.map(lambda job: run_one(*job), runs))
    for (r, env, _), failure in zip(runs, outcomes):
        if failure:
            errors.append(f"{r.name} in {env}: no longer shows its finding ({r.framework} "
                          f"{r.rule}): {failure}")
    for error in errors:
        print(f"FAIL {error}")
    print(f"reproducers: {len(reproducers)} files, {len(runs)} runs in "
          f"{len({e for _, e, _ in runs})} environments, {len(errors)} failures, "
          f"{len(skipped)} environments skipped")
    if errors:
        return 1
    # CI never has a GPU: the gpu environment's reproducers are tools/gpu-check's to replay.
    if set(skipped) - {"gpu"} and os.environ.get("CI") == "true":
        print("FAIL under CI every environment must be installed (tools/dev envs)")
        return 1
    return 77 if not runs else 0


if __name__ == "__main__":
    sys.exit(main())
