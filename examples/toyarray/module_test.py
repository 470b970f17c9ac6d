#!/usr/bin/env python3
"""A library judged by its module name, as its own CI would (docs/adapters.md): a fresh
virtual environment of the bridge's interpreter, the example library toyarray
installed in editable mode, then `dlconform matrix --no-builtin --module toyarray`:

- correct, it has no unexpected case (exit 0), by --module and by DLCONFORM_MODULE;
- each bug planted behind TOYARRAY_BUG is caught with its class and rule, and nothing else; a
  bug in toyarray's own __dlpack__ or __dlpack_device__ is a finding on toyarray, never
  plugin-error; a consumer that passes stream=None shows an exporter without stream in the pairs;
- every bad input gets one line naming the problem and exit 1, or a line in the report.

Without network access to PyPI (numpy, setuptools) the test skips (77), and fails under CI."""
import json
import os
import subprocess
import sys
import tempfile

DLCONFORM = os.environ["DLCONFORM"]
PYTHON = os.environ["BRIDGE_PYTHON"]
TOYARRAY = os.environ["TOYARRAY_DIR"]
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def run(args, env=None, timeout=600):
    full = dict(os.environ, **(env or {}))
    p = subprocess.run([DLCONFORM, "matrix", "--no-builtin", "--quiet"] + args, env=full,
                       capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def unexpected(report_path):
    with open(report_path, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    return cases, {(c["finding_class"], c["rule_id"]) for c in cases if not c["as_expected"]}


def classes(report_path):
    """Every (class, rule, severity) of the report, INFO ones (verdict pass) too."""
    with open(report_path, encoding="utf-8") as f:
        return {(c["finding_class"], c["rule_id"], c["severity"])
                for c in json.load(f)["cases"] if c["finding_class"]}


def notes(report_path):
    with open(report_path, encoding="utf-8") as f:
        return " ".join(json.load(f)["run"].get("notes", []))


def main():
    work = tempfile.mkdtemp(prefix="dlconform-module-")
    venv = os.path.join(work, "venv")
    subprocess.run([PYTHON, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    pip = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                          "numpy", "-e", TOYARRAY], capture_output=True, text=True)
    if pip.returncode != 0:
        print("SKIP: cannot pip install numpy and toyarray here:", pip.stderr.strip()[-300:])
        return 1 if os.environ.get("CI") == "true" else 77
    report = os.path.join(work, "toyarray.json")

    # Correct: no unexpected case, every role played; the same through DLCONFORM_MODULE.
    code, out = run(["--module", "toyarray", "--python", python, "--json", report])
    cases, found = unexpected(report)
    check(code == 0 and not found, f"toyarray is correct: exit {code}, unexpected {found}")
    check(sum(c["id"].startswith("framework/module/toyarray@") for c in cases) > 20,
          "toyarray exported as a producer")
    check(sum("/toyarray@0.1.0/" in c["id"] and c["id"].startswith("framework/module/versioned")
              for c in cases) > 100, "toyarray imported the mock producers' tensors")
    check(any(c["id"].startswith("pairs/module/numpy@") for c in cases), "pairs with NumPy")
    check(any(c["id"].startswith("negotiation/module/toyarray@") for c in cases), "negotiation")
    code, out = run(["--python", python, "--json", report], env={"DLCONFORM_MODULE": "toyarray"})
    check(code == 0 and len(unexpected(report)[0]) == len(cases),
          f"DLCONFORM_MODULE=toyarray runs the same {len(cases)} cases: exit {code}")

    # Each planted bug, with its class and rule alone.
    # drop-deleter's capsule protocol by hand asks for a legacy capsule without max_version: an
    # INFO observation of the same importer (VER-5: the Array API lets consumers hold off); it
    # renames the capsule with a ctypes string's bytes, heap memory where python_spec.rst wants
    # the names statically allocated (capsule-misnamed, judged once by asks/*/used-name).
    # A bug in toyarray's own __dlpack__ or __dlpack_device__ is toyarray's finding, with the
    # INFO observations it also makes (`info`), and never plugin-error (issue #42).
    # The exit code's bits: 8 for a MUST-level finding, 4 for a SHOULD-level one (a missing
    # deleter call: LIFE-3's "should call the deleter"; VER-5's fallback: "should be used"), both
    # for drop-deleter (12).
    for bug, want, info, bits in (
            ("drop-deleter", {("deleter-never-called", "LIFE-3"),
                              ("capsule-misnamed", "LIFE-1")},
             {("no-max-version-asked", "VER-5", "INFO")}, 12),
            ("wrong-strides", {("wrong-data", "LAY-4")}, set(), 8),
            ("no-fallback", {("no-version-fallback", "VER-5")}, set(), 4),
            ("device-raises", {("unexpected-exception", "DEV-1")}, set(), 8),
            ("device-malformed", {("malformed-device-answer", "DEV-1")}, set(), 8),
            ("dlpack-not-capsule", {("not-a-capsule", "VER-4")}, set(), 8),
            # ValueError for a refusal is VER-4 at INFO; for its own device, STRM-3's export;
            # for a device it cannot reach (dl_device=(2, 0)), STRM-3's BufferError
            ("dlpack-raises-value-error", {("producer-violation", "STRM-3"),
                                           ("wrong-refusal-exception", "STRM-3")},
             {("refusal-not-buffer-error", "VER-4", "INFO")}, 8),
            ("no-stream-keyword", {("no-stream-keyword", "VER-4")}, set(), 8),
            ("no-keywords", {("no-stream-keyword", "VER-4")},
             {("old-dlpack-signature", "VER-4", "INFO")}, 8)):
        code, out = run(["--module", "toyarray", "--python", python, "--json", report],
                        env={"TOYARRAY_BUG": bug})
        found = unexpected(report)[1]
        seen = classes(report)
        check(code == bits and found == want and info <= seen and
              not any(c[0] == "plugin-error" for c in seen),
              f"TOYARRAY_BUG={bug}: exit {code}, found {found}, all {sorted(seen)}")

    # Bad input: one line, exit 1, no traceback; or a note in the report.
    fakes = os.path.join(work, "fakes")
    os.makedirs(fakes)
    with open(os.path.join(fakes, "crashes_at_import.py"), "w") as f:
        f.write("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    with open(os.path.join(fakes, "exports_only.py"), "w") as f:  # no from_dlpack
        f.write("import numpy\nasarray = numpy.asarray\nfloat32 = numpy.float32\n")
    with open(os.path.join(fakes, "imports_only.py"), "w") as f:  # arrays without __dlpack__
        f.write("import numpy\nclass A:\n    def __init__(self, d): self.d = d\n"
                "    shape = property(lambda s: s.d.shape)\n    dtype = property(lambda s: s.d.dtype)\n"
                "    def __getitem__(self, k): return A(self.d[k])\n"
                "    def __float__(self): return float(self.d)\n"
                "    def __int__(self): return int(self.d)\n"
                "    def __bool__(self): return bool(self.d)\n"
                "def from_dlpack(x): return A(numpy.from_dlpack(x))\nfloat32 = numpy.float32\n")
    with open(os.path.join(fakes, "stream_consumer.py"), "w") as f:  # passes stream=None, as JAX
        f.write("import numpy\nasarray = numpy.asarray\nfloat32 = numpy.float32\n"
                "class _Held:\n    def __init__(s, c): s.c = c\n"
                "    def __dlpack__(s, stream=None): return s.c\n"
                "    def __dlpack_device__(s): return (1, 0)\n"
                "def from_dlpack(x): return numpy.from_dlpack(_Held(x.__dlpack__(stream=None)))\n")
    with open(os.path.join(fakes, "narrow_matrices.py"), "w") as f:  # 3x3 float64 only
        f.write("import numpy\nfloat64 = numpy.float64\n"
                "def asarray(obj, dtype=None):\n"
                "    a = numpy.array(obj, dtype=dtype)\n"
                "    if a.dtype != numpy.float64 or a.shape != (3, 3):\n"
                "        raise TypeError('narrow_matrices makes 3x3 float64 matrices only')\n"
                "    return a\n")
    with open(os.path.join(fakes, "makes_nothing.py"), "w") as f:  # no array, no from_dlpack
        f.write("def asarray(obj, dtype=None):\n    raise TypeError('makes nothing')\n")
    profile = os.path.join(work, "bad.profile")
    with open(profile, "w") as f:
        f.write("dtypes = f32\nfeatures = zero-dim teleport\n")
    fake_env = {"PYTHONPATH": fakes}
    for args, env, words in (
            (["--module", "no_such_module_here"], None,
             "expected module no_such_module_here to import but found ModuleNotFoundError"),
            (["--module", "crashes_at_import"], fake_env,
             "module crashes_at_import crashed the interpreter at import (SIGSEGV)"),
            (["--module", "toyarray=" + profile], None, "bad.profile:2: expected one of:"),
            (["--module", "toyarray", "--python", "/bin/true"], None,
             "expected CPython 3.9 or later but found"),
            (["--module", "toyarray", "--python", "/no/such/python"], None,
             "expected CPython 3.9 or later but found"),
            (["--module", "not a name"], None, "expected --module NAME[=PROFILE]"),
            (["--module", "makes_nothing"], fake_env,
             "makes no array dlconform asks for (any dtype it names, of shape (2,),")):
        full = args if "--python" in args else args + ["--python", python]
        code, out = run(full, env=env)
        lines = [line for line in out.splitlines() if line.strip() and "usage:" not in line
                 and not line.startswith("   ")]  # a usage error is followed by the usage
        check(code in (1, 3) and len(lines) <= 2 and words in out and "Traceback" not in out,
              f"{' '.join(args)}: exit {code}, one line naming it: {out.strip()[:200]}")
    code, out = run(["--module", "exports_only", "--python", python, "--json", report],
                    env=fake_env)
    check("exports_only@? has no from_dlpack: judged as a producer only" in notes(report) and
          not any("exports_only" in c["consumer"]["name"] for c in unexpected(report)[0]),
          f"a module without from_dlpack is judged as a producer only: {out.strip()[-300:]}")
    code, out = run(["--module", "imports_only", "--python", python, "--json", report],
                    env=fake_env)
    check("arrays have no __dlpack__: judged as a consumer only" in notes(report) and
          not any(c["id"].startswith("framework/module/imports_only") for c in
                  unexpected(report)[0]),
          f"arrays without __dlpack__ are judged as a consumer only: {out.strip()[-300:]}")
    # A narrow surface (3x3 float64 matrices only): judged on what it makes, the rest n/a.
    code, out = run(["--module", "narrow_matrices", "--python", python, "--json", report],
                    env=fake_env)
    with open(report, encoding="utf-8") as f:
        cases = {c["id"]: c for c in json.load(f)["cases"]}
    sample = cases.get("framework/module/narrow_matrices@?/dlconform-consumer@v1.3/sample_f64_3x3")
    check(code == 0 and sample is not None and sample["verdict"] == "pass" and
          "makes no float32 array of 2 elements: judged on what it makes (float64; first "
          "float64 of shape (3, 3))" in notes(report) and
          not any(c["finding_class"] == "plugin-error" for c in cases.values()),
          f"a narrow surface is judged on what it makes: exit {code}, sample "
          f"{sample['verdict'] if sample else 'missing'}, {out.strip()[-300:]}")
    # The pairs: a consumer that passes stream=None fails on an exporter without stream, and the
    # finding is the exporter's signature (VER-4); with stream, the same pairs pass.
    pairs = ["--module", "toyarray", "--module", "stream_consumer", "--python", python,
             "--filter", "pairs/module/toyarray@*/stream_consumer@*", "--json", report]
    for bug, want in (("no-stream-keyword", {("no-stream-keyword", "VER-4")}), ("", set())):
        code, out = run(pairs, env=dict(fake_env, TOYARRAY_BUG=bug))
        cases, found = unexpected(report)
        check(len(cases) >= 5 and found == want and
              all(c["finding_class"] == "no-stream-keyword" for c in cases if bug),
              f"pairs into a stream=None consumer, TOYARRAY_BUG={bug!r}: exit {code}, "
              f"{len(cases)} cases, found {found}")
    print(f"{len(failures)} failed" if failures else "all passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
