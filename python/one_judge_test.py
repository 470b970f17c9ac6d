#!/usr/bin/env python3
"""One judge: every planted consumer bug of harness/plan/planted_bugs.tsv that the matrix plans
reads the same class and rule in the matrix, through the Python bridge (a consumer plugin driven
like a framework's from_dlpack, judged by judge_import or, when it faults, by the fault handler),
and under its fuzz target where the table expects the matrix's words there too.

  one_judge_test.py TSV BUILD_DIR

Needs $DLCONFORM (the command) and $PYTHON_BRIDGE (_dlconform's .so); $DLC_PRELOAD, the sanitizer
runtimes a sanitized bridge needs in this unsanitized interpreter. Exit 77 (skip) without the
bridge, or 1 under CI ($CI=true), where it must be built.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

# Runs in a child: one planted consumer through the bridge, printing "class\trule" (or "none").
BRIDGE_CASE = r"""
import gc, sys
sys.path.insert(0, sys.argv[1])
import _dlconform as bridge
producer, consumer, label, tensor, fault_path = sys.argv[2:7]
used = tensor.startswith("used:")  # a capsule consumed already, handed again (LIFE-8)
tensor = tensor.split(":")[-1]
rule = "LIFE-8" if used else next(t["rule"] for t in bridge.tensor_names() if t["name"] == tensor)
print(f"rule\t{rule}", flush=True)  # for an abort, which ends this process before any verdict
bridge.guard_faults(fault_path)
bridge.begin_case(rule, label)
mock = bridge.MockTensor(producer, tensor)
plugin = bridge.PluginConsumer(consumer)
if used:
    import ctypes
    capsule = mock.__dlpack__(max_version=(1, 3))
    versioned = bridge.capsule_kind(capsule).startswith("versioned")
    used_name = b"used_dltensor_versioned" if versioned else b"used_dltensor"
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    set_name(capsule, used_name)  # this script is the first importer, and keeps the struct
    class Holder:
        def __dlpack__(self, **keywords):
            return capsule
        def __dlpack_device__(self):
            return (1, 0)
    seen = plugin.from_dlpack(Holder())
    plugin.release()
    gc.collect()
    finding = bridge.judge_used_capsule({"used_name": used_name.decode(),
                                         "imported": seen["imported"], "error": seen["error"],
                                         "consumer_calls": mock.deleter_calls(), "consumer": label})
    print("none" if finding is None else f"{finding[0]}\t{finding[1]}")
    sys.exit(0)
seen = plugin.from_dlpack(mock)
plugin.release()
gc.collect()
observed = {"consumer": label, "consumer_version": (1, 3), "must_accept": True,
            "imported": seen["imported"], "error": seen["error"]}
if seen["imported"]:
    observed.update(ndim=seen["ndim"], shape=seen["shape"], dtype=seen["dtype"],
                    digest=seen["digest"], elements=seen["elements"])
finding = bridge.judge_import(mock, observed)
print("none" if finding is None else f"{finding[0]}\t{finding[1]}")
"""


def plugin_path(build, party):
    """versioned-producer@v1.3 -> BUILD/producers/dlc-versioned-producer-v1_3.so"""
    name, header = party.split("@")
    stem = f"dlc-{name}-{header.replace('.', '_')}.so"
    for folder in ("producers", "consumers", "consumers/zoo"):
        path = os.path.join(build, folder, stem)
        if os.path.exists(path):
            return path
    raise SystemExit(f"expected the plugin {stem} under {build} but found none")


def through_bridge(build, row, tmp):
    fault = os.path.join(tmp, row["name"] + ".fault")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if os.environ.get("DLC_PRELOAD"):
        env.update(LD_PRELOAD=os.environ["DLC_PRELOAD"],
                   ASAN_OPTIONS="detect_leaks=0:handle_segv=0:handle_abort=0:"
                                "allow_user_segv_handler=1:alloc_dealloc_mismatch=0")
    run = subprocess.run(
        [sys.executable, "-c", BRIDGE_CASE, os.path.dirname(os.environ["PYTHON_BRIDGE"]),
         plugin_path(build, row["partner"]), plugin_path(build, row["name"] + "@v1.3"),
         row["name"] + "@v1.3", row["tensor"], fault],
        env=env, capture_output=True, text=True, timeout=120)
    if os.path.exists(fault):  # it faulted: the handler wrote the judge's class and rule
        with open(fault) as f:
            return tuple(f.read().split("\t")[:2])
    lines = run.stdout.strip().splitlines()
    rule = next((line.split("\t")[1] for line in lines if line.startswith("rule\t")), "")
    if run.returncode == -signal.SIGABRT and rule:
        # An abort ends the process a framework's from_dlpack runs in: the frameworks driver
        # judges that worker's death a crash under the case's rule (judge_death), as here.
        return ("crash", rule)
    if run.returncode != 0 or len(lines) < 2:
        return ("exit", f"{run.returncode}: {run.stderr.strip()[-300:]}")
    return tuple(lines[-1].split("\t")) if lines[-1] != "none" else ("none", "")


def through_fuzz(build, row):
    target = row["fuzz"]
    env = dict(os.environ, DLCONFORM_CONSUMER=row["name"] + "-v1_3")
    if target == "differential_fuzzer":
        env.pop("DLCONFORM_CONSUMER")
        env["DLCONFORM_PLUGIN"] = plugin_path(build, row["name"] + "@v1.3")
    corpus = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpus",
                          target, "seeds")
    run = subprocess.run([os.path.join(build, "fuzz", target), corpus], env=env,
                         capture_output=True, text=True, timeout=300)
    for line in (run.stderr + run.stdout).splitlines():
        words = line.split("dlconform fuzz: ", 1)
        if len(words) == 2 and " [" in words[1] and words[1].split(" ", 1)[0] == row["class"]:
            return (row["class"], words[1].split(" [", 1)[1].split("]", 1)[0])
    return ("not found", (run.stderr + run.stdout).strip()[-300:])


def main():
    tsv, build = sys.argv[1], sys.argv[2]
    if not os.environ.get("PYTHON_BRIDGE"):
        print("expected the Python bridge (meson option python) but found none: skipped")
        return 1 if os.environ.get("CI") == "true" else 77
    with open(tsv) as f:
        lines = [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]
    header = "name role kind bug matrix class rule tensor partner fuzz fuzz_words description".split()
    rows = [dict(zip(header, line.split("\t"))) for line in lines]
    # The consumers the matrix plans and a capsule can reach (a raw pointer has no capsule);
    # the CUDA ones read device memory, judged on a GPU only (tools/gpu-check).
    rows = [r for r in rows if r["role"] == "consumer" and r["matrix"] == "matrix"
            and not r["tensor"].startswith("raw:") and r["kind"] != "cuda"]
    # A used capsule (used:TENSOR) is renamed by the bridge's script before the plugin sees it.
    with tempfile.TemporaryDirectory(prefix="dlconform-one-judge-") as tmp:
        report = os.path.join(tmp, "matrix.json")
        subprocess.run([os.environ["DLCONFORM"], "matrix", "--filter", "planted/*", "--quiet",
                        "--json", report], capture_output=True, timeout=300)
        with open(report) as f:
            matrix = {c["consumer"]["name"]: (c.get("finding_class"), c.get("rule_id"))
                      for c in json.load(f)["cases"] if c["scenario"] == "planted"}
        failures = 0
        for row in rows:
            want = (row["class"], row["rule"])
            seen = {"matrix": matrix.get(row["name"], ("not planned", ""))}
            # A Python process has no malloc interposition (the matrix's dlconform has): the
            # bridge cannot see who frees what, so LIFE-5 is the matrix's and the fuzzers' alone.
            # Nor does judge_import see what the consumer asked: a legacy struct refused after a
            # versioned ask is VER-4 where the exchange is judged (the matrix, the pairs); the
            # bridge would name the refused tensor's own rule.
            if row["class"] != "frees-unowned" and (row["class"], row["rule"]) != (
                    "rejected-valid", "VER-4"):
                seen["bridge"] = through_bridge(build, row, tmp)
            if row["fuzz"] != "-" and row["fuzz_words"] == "-":
                seen["fuzz " + row["fuzz"]] = through_fuzz(build, row)
            wrong = {k: v for k, v in seen.items() if tuple(v) != want}
            failures += bool(wrong)
            print(f"{'ok ' if not wrong else 'BAD'} {row['name']}: expected {want[0]} [{want[1]}]" +
                  "".join(f"; {k} found {v[0]} [{v[1]}]" for k, v in wrong.items()) +
                  f" ({', '.join(seen)})")
        # The controls: a conformant consumer reads no finding through the bridge, from a new
        # capsule or from a used one.
        for tensor in ("f32_8x8", "used:f32_8x8"):
            control = through_bridge(build, {"name": "strict-consumer", "partner":
                                             "versioned-producer@v1.3", "tensor": tensor}, tmp)
            if control != ("none", ""):
                failures += 1
                print(f"BAD strict-consumer (conformant, {tensor}): expected no finding but "
                      f"found {control}")
        print(f"{len(rows) - failures} of {len(rows)} planted consumer bugs read the same class and "
              f"rule in the matrix, the bridge and the fuzz replays")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
