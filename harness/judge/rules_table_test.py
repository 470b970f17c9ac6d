#!/usr/bin/env python3
"""The rule table (rules.def) against shared/DLPACK_RULES.md, its source: the same rule ids in the
same order, and the same severity wherever the file states one ("**LAY-1 MUST.**").

  rules_table_test.py rules.def DLPACK_RULES.md

Without the file the test is skipped (exit 77) and says so; under CI (CI=true), where shared/
sits beside the clone, a missing file fails it."""
import os
import re
import sys


def main():
    table_path, rules_path = sys.argv[1], sys.argv[2]
    if not os.path.exists(rules_path):
        print(f"SKIP: {rules_path} is not here (shared/ beside the clone)")
        return 1 if os.environ.get("CI") == "true" else 77
    table = []
    for line in open(table_path, encoding="utf-8"):
        m = re.match(r'DLC_RULE\(\w+, "([A-Z]+-\d+b?)", (must|should|info), (\d+), (\d+), "(.+)"\)$',
                     line.strip())
        if m:
            table.append((m.group(1), m.group(2).upper(), m.group(5)))
        elif line.startswith("DLC_RULE("):
            print(f"malformed row in {table_path}: {line.strip()}")
            return 1
    stated = []
    for line in open(rules_path, encoding="utf-8"):
        m = re.match(r"- \*\*([A-Z]+-\d+b?)(?: (MUST|SHOULD|INFO))?(?: \(v[\d.]+\+\))?(?: not rely on it)?\.?\*\*",
                     line.strip())
        if m:
            stated.append((m.group(1), m.group(2)))
    ids = [r[0] for r in table]
    source_ids = [s[0] for s in stated]
    failures = []
    if ids != source_ids:
        missing = [i for i in source_ids if i not in ids]
        extra = [i for i in ids if i not in source_ids]
        failures.append(f"expected the ids of {rules_path} in its order but found "
                        f"missing {missing}, extra {extra}")
    severity = {r[0]: r[1] for r in table}
    for rule, stated_severity in stated:
        if stated_severity and severity.get(rule) != stated_severity:
            failures.append(f"{rule}: expected severity {stated_severity} (as {rules_path} states) "
                            f"but the table says {severity.get(rule)}")
    for rule, _, summary in table:
        if len(summary) > 140:
            failures.append(f"{rule}: the summary is a sentence for a report cell; keep it short")
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"{len(table)} rules match {rules_path} ({sum(1 for s in stated if s[1])} with a stated severity)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
