#!/usr/bin/env bash
# The composite action (action.yml) as a library's CI runs it: a fresh virtual environment, then
# the action's steps (run_steps.py), which pip install dlconform from this checkout and a library
# the project does not wire in, from PyPI (ivy), and judge it by its module name alone. Then the
# example library, installed in editable mode, through the same pip-installed command.
#   examples/github-actions/action_test.sh SOURCE_DIR
# Without PyPI the test skips (exit 77), and fails under CI.
set -euo pipefail
src=$(cd "${1:?usage: action_test.sh SOURCE_DIR}" && pwd)
work=$(mktemp -d /tmp/dlconform-action-XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
export PATH="$work/venv/bin:$PATH"
if ! python -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null 2>&1; then
  echo "SKIP: PyPI cannot be reached from here"
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
mkdir "$work/repo"
cat >"$work/repo/dlconform-known.txt" <<'KNOWN'
# RULE  CLASS                    ROLE      PARTY     REASON
DEV-3   wrong-refusal-exception  consumer  ivy@1.0*  from_dlpack refuses CUDA and OpenCL tensors with NumPy's RuntimeError, not BufferError
STRM-1  stream-accepted-on-cpu   producer  ivy@1.0*  __dlpack__ exports a CPU array for stream=1 and -1, where on CPU only None is accepted
# (and a CPU tensor of device_id 3 taken, which binds producers only: INFO)
KNOWN
start=$SECONDS
python3 "$src/examples/github-actions/run_steps.py" "$src/action.yml" "$work/repo" \
  --action-path "$src" --input module=ivy --input "install=ivy==1.0.0.5" \
  --input suppressions=dlconform-known.txt
echo "action: pip install of dlconform and ivy, then the judge: $((SECONDS - start)) s"
for f in dlconform.json dlconform.xml dlconform.html dlconform.md; do
  [[ -s $work/repo/dlconform-reports/$f ]] || {
    echo "action_test: expected dlconform-reports/$f but found none"; exit 1; }
done
python3 - "$work/repo/dlconform-reports" <<'PY'
import json, sys, xml.etree.ElementTree as ET
folder = sys.argv[1]
report = json.load(open(f"{folder}/dlconform.json"))
cases = report["cases"]
ivy = [c for c in cases if "ivy@" in c["id"]]
assert len(ivy) > 300, f"expected ivy's cases in the report but found {len(ivy)}"
assert all(c["as_expected"] or c["known"] for c in cases), "expected no unexpected case"
roles = {p["label"]: p["role"] for p in report["run"]["parties"]}
assert any(k.startswith("ivy@") and v == "producer+consumer" for k, v in roles.items()), roles
junit = ET.parse(f"{folder}/dlconform.xml").getroot()
assert not junit.findall(".//failure"), "expected no JUnit failure"
known = sum(c["known"] for c in cases)
info = sum(c["severity"] == "INFO" for c in ivy)
print(f"ivy by module name: {len(ivy)} cases, {known} known, {info} INFO, 0 unexpected")
PY
# The example library in editable mode, judged by the same pip-installed command, in the time a
# library's CI would spend (the figure of docs/figures.md, "Judging a library by module name").
python -m pip install -q --disable-pip-version-check -e "$src/examples/toyarray"
python - "$work/toy.json" <<'PY'
import subprocess, sys, time
start = time.monotonic()
subprocess.run([sys.executable, "-m", "dlconform", "matrix", "--no-builtin", "--module", "toyarray",
                "--quiet", "--json", sys.argv[1]], check=True)
print(f"toyarray by module name from a warm pip install: {time.monotonic() - start:.1f} s")
PY
set +e
TOYARRAY_BUG=wrong-strides dlconform matrix --no-builtin --module toyarray --quiet \
  --json "$work/toy-bug.json" >/dev/null 2>&1
code=$?
set -e
[ "$code" = 8 ] || { echo "action_test: expected exit 8 for a planted bug but found $code"; exit 1; }
grep -q '"finding_class": "wrong-data", "expected_class": "", "expected_rule": "", "rule_id": "LAY-4"' \
  "$work/toy-bug.json"
# A library with no standard surface, through a Python adapter file of the public interface:
# Dr.Jit (its tensor types' constructors import; no from_dlpack, no asarray).
python -m pip install -q --disable-pip-version-check drjit==1.5.0
cat >"$work/drjit-known.txt" <<'KNOWN'
LIFE-8  deleter-called-twice  hardening  drjit@1.5*  cases=*/used-capsule/*  handed by a __dlpack__ that breaks LIFE-8 a capsule it consumed already (its deleter run), drjit.llvm.TensorXf(x) reads the freed struct's deleter field before refusing it (nanobind's ndarray caster, as MLX): a hardening finding [case: framework/module/versioned-producer@v1.3/drjit@1.5.0/used-capsule/legacy]
DEV-3   device-pointer-dereferenced  consumer  drjit@1.5*  cases=*/device_cuda  drjit.llvm.TensorXf(x), a CPU (LLVM) array, takes a CUDA tensor and reads its data on the host: the guard arena sees the read of the device pointer [case: framework/module/versioned-producer@v1.3/drjit@1.5.0/device_cuda]
STRM-1  stream-accepted-on-cpu  producer  drjit@1.5*  a CPU (LLVM) tensor's __dlpack__ exports for stream=1 and -1, where on CPU only None is accepted [case: negotiation/module/drjit@1.5.0/stream=1]
LIFE-1  capsule-not-renamed  consumer  drjit@1.5*  cases=*/used-name  drjit.llvm.TensorXf(x) takes the tensor of x.__dlpack__() by clearing the capsule's destructor, without the rename python_spec.rst asks for (nanobind's ndarray caster skips it when it takes itself for the capsule's only holder, as MLX): whoever else holds the capsule sees an unconsumed dltensor whose deleter ran [case: asks/module/drjit@1.5.0/used-name]
DEV-3   wrong-refusal-exception  consumer  drjit@1.5*  cases=*/device_opencl  drjit.llvm.TensorXf(x) refuses an OpenCL tensor with TypeError ("Unsupported source device!"), not BufferError [case: framework/module/versioned-producer@v1.3/drjit@1.5.0/device_opencl]
KNOWN
python -m dlconform matrix --no-builtin --adapter "$src/examples/adapters/drjit_adapter.py" \
  --suppressions "$work/drjit-known.txt" --quiet --json "$work/drjit.json"
python3 - "$work/drjit.json" <<'PY'
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
mine = [c for c in cases if "drjit@" in c["id"]]
assert len(mine) > 300, f"expected Dr.Jit's cases but found {len(mine)}"
print(f"drjit through its adapter file: {len(mine)} cases, "
      f"{sum(c['known'] for c in cases)} known (LIFE-8, LIFE-1, DEV-3, STRM-1), 0 unexpected")
PY
echo "action: every step ran; ivy judged by module name; toyarray's planted bug caught; Dr.Jit judged through its adapter"
