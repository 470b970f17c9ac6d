#!/usr/bin/env python3
"""Lists the findings tools/fuzz-campaign filed against one importer, for Meson:

  filed_regressions.py REGRESSIONS_DIR IMPORTER
  filed_regressions.py --cited SUPPRESSIONS CORPUS_DIR TARGET LABEL

prints "FILE<TAB>WORDS" for every REGRESSIONS_DIR/IMPORTER-CLASS[-RULE][-KIND].bin, WORDS being
what the replay must stop on: "CLASS [RULE]", or "CLASS" for a finding without a rule
(IMPORTER-sanitizer-report[-RULE][-KIND].bin: "sanitizer-report"). With --cited: for
every entry of SUPPRESSIONS whose party is LABEL and that cites [fuzz: TARGET/...], that file and
"[RULE]"."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import dlconform_suppressions  # noqa: E402


def cited(suppressions, corpus, target, label):
    for entry in dlconform_suppressions.read(suppressions):
        if entry["party"] != label:
            continue
        for path in re.findall(r"\[fuzz:\s*([^\]]+)\]", entry["reason"]):
            path = path.strip()
            # A filed regression is replayed already, under its own name.
            if path.startswith(target + "/") and "/regressions/" not in path:
                print(f"{os.path.join(corpus, path)}\t[{entry['rule']}]")
    return 0


def main():
    if sys.argv[1] == "--cited":
        return cited(*sys.argv[2:6])
    folder, importer = sys.argv[1], sys.argv[2]
    if not os.path.isdir(folder):
        return 0
    # IMPORTER-CLASS[-RULE][-KIND].bin: a crash or a sanitizer's report is filed under its kind
    # too (...-crash-lay-8-sigabrt-the-process-aborted.bin), a second finding of the same name
    # under "-2".
    classes = "|".join(re.escape(c) for c in sorted(dlconform_suppressions.finding_classes(),
                                                    key=len, reverse=True))
    pattern = re.compile(re.escape(importer) + rf"-({classes})(?:-([a-z]+-\d+[a-z]?))?(?:-.+)?\.bin")
    for name in sorted(os.listdir(folder)):
        m = pattern.fullmatch(name)
        if m:
            words = m.group(1) + (f" [{m.group(2).upper().replace('B', 'b')}]" if m.group(2) else "")
            # A sanitizer's report names no rule the replay must say.
            if words.startswith("sanitizer-report"):
                words = "sanitizer-report"
            print(f"{os.path.join(folder, name)}\t{words}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
