#!/usr/bin/env python3
"""The committed seeds are exactly what tools/fuzz-seeds.py writes: regenerate into a temporary
folder and compare every file.

  seeds_current_test.py tools/fuzz-seeds.py corpus/"""
import filecmp
import os
import subprocess
import sys
import tempfile


def main():
    script, corpus = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as fresh:
        subprocess.run([sys.executable, script, fresh], check=True)
        differences = []
        for target in sorted(os.listdir(fresh)):
            written = os.path.join(fresh, target, "seeds")
            committed = os.path.join(corpus, target, "seeds")
            if not os.path.isdir(written):
                continue
            cmp = filecmp.dircmp(written, committed)
            differences += [f"{target}/seeds/{n}: not committed" for n in cmp.left_only]
            differences += [f"{target}/seeds/{n}: not written by the script" for n in cmp.right_only]
            differences += [f"{target}/seeds/{n}: differs" for n in cmp.diff_files]
        for d in differences:
            print(d)
        if differences:
            print("expected the committed seeds to be what tools/fuzz-seeds.py writes but found "
                  f"{len(differences)} differences (run tools/fuzz-seeds.py)")
            return 1
        print("every committed seed is what tools/fuzz-seeds.py writes")
        return 0


if __name__ == "__main__":
    sys.exit(main())
