#!/usr/bin/env python3
"""fuzz-show-input's C snippet compiles as C11 against abi/v1.3 with no warning, and, run, builds
the tensor of the input line: the same device, dtype, ndim, every extent and stride, the
byte_offset it lists, and storage that holds the fuzz targets' fill pattern. Checked on seeds of
each kind of data (backed, NULL, device, invalid), a legacy and a foreign-major struct, and on
inputs of 15 and 70 dimensions written here. Also: the input line holds every dimension, and a
bad target or a missing file is one line and exit 1.

  show_input_test.py FUZZ_SHOW_INPUT CC SOURCE_ROOT"""
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

show, cc, root = sys.argv[1], sys.argv[2], sys.argv[3]
if not cc:
    print("no C compiler found: skipped")
    sys.exit(77)
seeds = os.path.join(root, "corpus", "{}", "seeds", "{}.bin")
spec = importlib.util.spec_from_file_location("fuzz_seeds",
                                              os.path.join(root, "tools", "fuzz-seeds.py"))
fuzz_seeds = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fuzz_seeds)

failures = []

# Prints what the snippet built in the input line's words, and checks the storage byte by byte.
MAIN = r"""
#include <stdio.h>
#include "dlconform/plugin.h"
#include "snippet.c"

#if FUZZ_INPUT_HAS_DL_TENSOR
static void list(const char* name, const int64_t* v, int n) {
  printf(" %s=", name);
  if (v == NULL) {
    printf("NULL");
    return;
  }
  printf("[");
  for (int i = 0; i < n; ++i) printf("%s%lld", i ? "," : "", (long long)v[i]);
  printf("]");
}
#endif

int main(void) {
  fuzz_input_t* t = fuzz_input_new();
  if (t == NULL) return 2;
#if FUZZ_INPUT_HAS_DL_TENSOR
  const DLTensor* d = &t->dl_tensor;
  printf("device=%d:%d dtype=%u:%u:%u ndim=%d", (int)d->device.device_type, d->device.device_id,
         (unsigned)d->dtype.code, (unsigned)d->dtype.bits, (unsigned)d->dtype.lanes, d->ndim);
  list("shape", d->shape, d->ndim);
  list("strides", d->strides, d->ndim);
  printf(" byte_offset=%llu\n", (unsigned long long)d->byte_offset);
#if FUZZ_INPUT_STORAGE_BYTES > 0
  const unsigned char* storage = ((struct fuzz_input_ctx*)t->manager_ctx)->storage;
  for (uint64_t k = 0; k < FUZZ_INPUT_STORAGE_BYTES; ++k) {
    if (storage[k] != dlc_fill_byte(FUZZ_INPUT_FILL_SEED, k, 0)) {
      printf("storage byte %llu differs from the fill pattern\n", (unsigned long long)k);
      return 3;
    }
  }
#endif
#else
  printf("version=%u.%u (only the head)\n", t->version.major, t->version.minor);
#endif
  if (t->deleter != NULL) {
    t->deleter(t);
  } else {
    fuzz_input_free(t);
  }
  return 0;
}
"""


def expand(value):
    """"[a,b]+[1]*N" (or "NULL") as a list: the input line's dimensions, all of them."""
    m = re.fullmatch(r"\[([-0-9,]*)\](?:\+\[1\]\*([0-9]+))?", value)
    if value == "NULL" or m is None:
        return value
    return [int(v) for v in m.group(1).split(",") if v] + [1] * int(m.group(2) or 0)


def words(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def check(name, target, path, work):
    fields = subprocess.run([show, "--fields", target, path], capture_output=True, text=True)
    snippet = subprocess.run([show, "--c", target, path], capture_output=True, text=True)
    if fields.returncode != 0 or snippet.returncode != 0:
        failures.append(f"{name}: expected fuzz-show-input to succeed but found exit "
                        f"{fields.returncode}/{snippet.returncode}: "
                        f"{fields.stderr}{snippet.stderr}")
        return None
    line = re.search(r"^input: +(.*)$", fields.stdout, re.M).group(1)
    offset = re.search(r"^byte_offset: +([0-9]+)", fields.stdout, re.M).group(1)
    with open(os.path.join(work, "snippet.c"), "w") as f:
        f.write(snippet.stdout)
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write(MAIN)
    # The snippet alone, as an importer's test would paste it, then with the main above.
    for args in (["-c", "snippet.c", "-o", "snippet.o", "-Wpedantic"],
                 ["main.c", "-I", os.path.join(root, "include"), "-o", "main"]):
        build = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I",
                                os.path.join(root, "abi", "v1.3")] + args,
                               cwd=work, capture_output=True, text=True)
        if build.returncode != 0:
            failures.append(f"{name}: expected the snippet to compile but found:\n{build.stderr}")
            return None
    run = subprocess.run([os.path.join(work, "main")], capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(f"{name}: expected the snippet to run but found exit {run.returncode}: "
                        + run.stdout)
        return None
    if "(only the head)" in run.stdout:
        return line
    built, described = words(run.stdout), words(line)
    for key in ("device", "dtype", "ndim", "shape", "strides"):
        if expand(built[key]) != expand(described[key]):
            failures.append(f"{name}: expected {key}={described[key]} but the snippet built "
                            f"{key}={built[key]}")
    if built["byte_offset"] != offset:
        failures.append(f"{name}: expected byte_offset={offset} but found {built['byte_offset']}")
    return line


with tempfile.TemporaryDirectory() as work:
    for target, seed in [("import_versioned_fuzzer", "compact_f32_8x8"),
                         ("import_versioned_fuzzer", "negative_strides"),
                         ("import_versioned_fuzzer", "misaligned_data"),
                         ("import_versioned_fuzzer", "byte_offset_odd"),
                         ("import_versioned_fuzzer", "fp4_packed"),
                         ("import_versioned_fuzzer", "ndim0_null_shape"),
                         ("import_versioned_fuzzer", "zero_size_null_data"),
                         ("import_versioned_fuzzer", "cuda_device"),
                         ("import_versioned_fuzzer", "negative_extent"),
                         ("import_versioned_fuzzer", "negative_ndim"),
                         ("import_versioned_fuzzer", "null_deleter"),
                         ("import_versioned_fuzzer", "future_major"),
                         ("import_legacy_fuzzer", "transposed_f64"),
                         ("differential_fuzzer", "legacy_ndim_40_arrays_of_8")]:
        check(f"{target}/{seed}", target, seeds.format(target, seed), work)

    # 15 dimensions, each extent and stride different, and 70: 64 the input carries, 6 of 1.
    shape15 = (2, 1, 3, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 2)
    inputs = {"ndim15": fuzz_seeds.record(shape=shape15, misalign=1),
              "ndim70": fuzz_seeds.record(shape=(1,) * 63 + (3,), ndim=70),
              "ndim15_strided": fuzz_seeds.record(shape=shape15,
                                                  strides=tuple(range(-7, 8)))}
    for name, data in inputs.items():
        path = os.path.join(work, name + ".bin")
        with open(path, "wb") as f:
            f.write(data)
        line = check(name, "import_versioned_fuzzer", path, work)
        if name == "ndim15" and line is not None and \
                "shape=[2,1,3,1,1,2,1,1,1,1,1,1,1,1,2]" not in line:
            failures.append(f"ndim15: expected all 15 extents in the input line but found {line}")
        if name == "ndim70" and line is not None and "+[1]*6" not in line:
            failures.append(f"ndim70: expected the 6 dimensions past 64 in the input line but "
                            f"found {line}")

    # Errors: one line, exit 1.
    for args, expected in [(["negotiate_version_fuzzer", path],
                            "expected a target whose input is a tensor"),
                           (["import_versioned_fuzzer", os.path.join(work, "missing.bin")],
                            "expected a fuzz input file but found no file")]:
        run = subprocess.run([show] + args, capture_output=True, text=True)
        if run.returncode != 1 or len(run.stderr.splitlines()) != 1 or expected not in run.stderr:
            failures.append(f"{args[0]}: expected exit 1 and one line '{expected} ...' but found "
                            f"exit {run.returncode}: {run.stderr!r}")

for failure in failures:
    print(failure)
print(f"{'FAIL' if failures else 'ok'}: fuzz-show-input, {len(failures)} failures")
sys.exit(1 if failures else 0)
