#!/usr/bin/env python3
"""tools/gpu-check's dry run: on a machine without a GPU (here, and CI) the same script builds
(with the build folder given, nothing to do), runs the CUDA matrix and reports every GPU case
skipped, each with its reason; the framework rows and compute-sanitizer say why they did not run.

  gpu_check_test.py BUILD_DIR

Skipped (exit 77) where a GPU is: there the script's run is the real one (tools/gpu-check)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pending_write_agrees():
    """'' when tools/gpu-check reports the pending write that the CUDA producer holds for."""
    with open(os.path.join(ROOT, "cuda", "cuda_common.cuh"), encoding="utf-8") as f:
        header = re.search(r"kPendingWriteNs = (\d+)ull \* 1000 \* 1000;", f.read())
    with open(os.path.join(ROOT, "tools", "gpu-check"), encoding="utf-8") as f:
        script = re.search(r"^PENDING_WRITE_MS = (\d+)$", f.read(), re.M)
    if not header or not script or header.group(1) != script.group(1):
        return (f"expected tools/gpu-check's PENDING_WRITE_MS to equal cuda_common.cuh's "
                f"kPendingWriteNs in ms but found {script and script.group(1)} and "
                f"{header and header.group(1)}")
    return ""


def main():
    build = sys.argv[1]
    disagreement = pending_write_agrees()
    if disagreement:
        print(f"FAIL {disagreement}")
        return 1
    if shutil.which("nvidia-smi") and subprocess.run(["nvidia-smi", "-L"],
                                                     capture_output=True).returncode == 0:
        print("SKIP: a GPU is here: run tools/gpu-check itself")
        return 77
    failures = []
    with tempfile.TemporaryDirectory(prefix="dlconform-gpu-check-") as out:
        # The fuzz stage's plumbing, with the planted CUDA importer over the stand-in runtime
        # (fuzz/python_importer/fake_cuda_runtime.cpp) in Debian's Python with its NumPy.
        planted = os.path.join(ROOT, "fuzz", "python_importer", "planted_importers.py")
        runtime = os.path.join(build, "fuzz", "python_importer", "fake-cuda-runtime.so")
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        p = subprocess.run([os.path.join(ROOT, "tools", "gpu-check"), "--build-dir", build,
                            "--out", out, "--budget", "1500", "--python", python,
                            "--fuzz-seconds", "5",
                            "--fuzz-adapter", planted + ":CudaCopyingImporter"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=dict(os.environ, DLCONFORM_FUZZ_CUDART=runtime))
        print(p.stdout[-3000:])
        if p.returncode != 0:
            failures.append(f"expected exit 0 from the dry run but found {p.returncode}")
        try:
            with open(os.path.join(out, "gpu.json"), encoding="utf-8") as f:
                report = json.load(f)
            with open(os.path.join(out, "gpu.md"), encoding="utf-8") as f:
                text = f.read()
        except (OSError, ValueError) as e:
            print(f"FAIL expected gpu.json and gpu.md but found {e}")
            return 1
        cuda = [c for c in report.get("cuda_cases", [])
                if any("cuda" in p["name"] for p in (c["producer"], c["consumer"]))]
        if len(cuda) < 1000:
            failures.append(f"expected over 1000 CUDA cases but found {len(cuda)}")
        for c in cuda:
            if c["verdict"] != "skip" or not c.get("unavailable") or \
                    not c["detail"].startswith("no CUDA device"):
                failures.append(f"expected {c['id']} skipped with 'no CUDA device: ...' but "
                                f"found {c['verdict']}: {c['detail'][:100]}")
                break
        if "skipped because a party cannot run here: no CUDA device" not in text:
            failures.append("expected gpu.md to count the skipped CUDA cases and name why")
        stages = report.get("stages", {})
        frameworks = stages.get("frameworks", {})
        skipped = frameworks.get("skipped", {})
        if frameworks.get("adapters") or len(skipped) != 4 or \
                not all(why for why in skipped.values()):
            failures.append(f"expected the four GPU adapters skipped with a reason but found "
                            f"{frameworks or stages}")
        if stages.get("sanitizer", {}).get("skipped") != "no CUDA device":
            failures.append(f"expected compute-sanitizer skipped for want of a device but found "
                            f"{stages.get('sanitizer')}")
        rows = stages.get("fuzz", {}).get("rows", [])
        if sorted(r["target"] for r in rows) != ["import_legacy_fuzzer",
                                                 "import_versioned_fuzzer"] or \
                not all(r.get("exit") == 0 and r.get("executions", 0) > 0 for r in rows):
            failures.append(f"expected the planted CUDA importer fuzzed by both import targets "
                            f"without a finding but found {stages.get('fuzz')}")
        for name in ("GPU: none", "## CUDA matrix", "## GPU frameworks", "## compute-sanitizer",
                     "## GPU importers fuzzed", "python:CudaCopyingImporter"):
            if name not in text:
                failures.append(f"expected '{name}' in gpu.md")
    # tools/cuda-sanitize without compute-sanitizer on the PATH: one line, exit 1.
    if not shutil.which("compute-sanitizer"):
        p = subprocess.run([os.path.join(ROOT, "tools", "cuda-sanitize"), build],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines = p.stdout.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or "compute-sanitizer" not in lines[0]:
            failures.append(f"expected one line naming compute-sanitizer and exit 1 from "
                            f"tools/cuda-sanitize but found exit {p.returncode}: {p.stdout!r}")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
