#!/usr/bin/env python3
"""Python line coverage (DLCONFORM_PYTHON_COVERAGE) records the lines of the package it names and
no others: the fuzz target replays the seeds with the planted CopyingImporter and
DLCONFORM_PYTHON_COVERAGE=planted_importers, and the report file must hold lines of
planted_importers.py's copy_out, each once, and no line of a file outside the package's folder.

  line_coverage_test.py TARGET CORPUS...    (the plugin's variables in the environment)"""
import os
import subprocess
import sys
import tempfile


def main():
    target, corpus = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as scratch:
        report = os.path.join(scratch, "lines.txt")
        env = dict(os.environ, DLCONFORM_PYTHON_COVERAGE="planted_importers",
                   DLCONFORM_PYTHON_COVERAGE_REPORT=report)
        run = subprocess.run([target] + corpus, env=env, capture_output=True, text=True,
                             errors="replace", timeout=300)
        if run.returncode != 0:
            print(run.stderr[-3000:])
            print(f"expected the replay to pass but found exit {run.returncode}")
            return 1
        lines = open(report).read().splitlines() if os.path.exists(report) else []
    folder = os.path.dirname(os.path.abspath(__file__)) + os.sep
    outside = [line for line in lines if not line.startswith(folder)]
    copy_out = [line for line in lines if line.startswith(folder + "planted_importers.py:")]
    if outside:
        print(f"expected only lines under {folder} but found {outside[:3]}")
        return 1
    if len(copy_out) < 20:
        print(f"expected the lines of CopyingImporter.copy_out but found {len(copy_out)} of "
              f"planted_importers.py: {lines[:5]}")
        return 1
    if len(set(lines)) != len(lines):
        print("expected each line reported once but found repeats")
        return 1
    print(f"{len(lines)} distinct lines recorded, {len(copy_out)} of planted_importers.py")
    return 0


if __name__ == "__main__":
    sys.exit(main())
