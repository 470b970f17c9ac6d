#!/usr/bin/env python3
"""The Python line of a finding in a Python importer reproduces it without the harness: the fuzz
target replays a crash input, prints "dlconform fuzz: python: ..." with its finding, and that line,
run from the source tree, crashes the library the same way (a signal, not an exception).

  python_line_test.py SOURCE_ROOT WORDS TARGET INPUT    (the plugin's variables in the environment)"""
import signal
import subprocess
import sys


def main():
    root, words, target, crash_input = sys.argv[1:5]
    run = subprocess.run([target, crash_input], capture_output=True, text=True, errors="replace",
                         timeout=300)
    said = [line for line in run.stderr.splitlines() if line.startswith("dlconform fuzz:")]
    if not any(words in line for line in said):
        print("\n".join(said) or run.stderr[-3000:])
        print(f"expected the replay to stop on '{words}' but it did not")
        return 1
    lines = [line for line in said if line.startswith("dlconform fuzz: python: ")]
    if not lines:
        print("\n".join(said))
        print("expected a 'dlconform fuzz: python:' line with the finding but found none")
        return 1
    line = lines[0][len("dlconform fuzz: python: "):]
    print(f"the Python line: {line}")
    # The line is shell words: the variables, then the interpreter and its -c program.
    again = subprocess.run(["sh", "-c", line], cwd=root, capture_output=True, text=True,
                           errors="replace", timeout=300)
    if again.returncode >= 0 and again.returncode < 128:
        print(again.stdout[-2000:] + again.stderr[-2000:])
        print(f"expected the Python line to crash the library but found exit {again.returncode}")
        return 1
    number = again.returncode - 128 if again.returncode > 0 else -again.returncode
    print(f"reproduced without the harness: the library died of {signal.Signals(number).name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
