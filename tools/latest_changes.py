#!/usr/bin/env python3
"""What a framework environment re-resolved to the newest releases changes in the matrix
(`tools/dev latest`): the findings that are new, the findings that are gone, and the suppression
entries that went stale, against the committed report.

  latest_changes.py --env NAME --old reports/matrix.json --new NEW.json
                    [--baseline ENV]... [--suppressions FILE]... [--old-pins F --new-pins F]
                    [--write CHANGES.json]

A finding is a case that is not as expected (known or not). Cases are compared by their id with
the environment's name left out and every framework's version too (`torch@2.13.0` and
`torch@2.15.0` are both `torch@*`), so that a new release shows only what it does differently.
The baseline is the committed report's cases of the first --baseline environment it has any
of (default: --env): a new environment is compared with the one whose pins it moves on from.
Only the cases that ran in both are compared: a finding of the baseline whose case the new run
does not have (a framework it lacks, an overlay environment that runs only its own frameworks'
cases) is not "gone".

A suppression entry is stale when it matched a (comparable) finding of the baseline and matches
no finding of the new run: either the release fixed it, or its party pattern names the old
release while the finding carries on (both are said). Only the entries of the environment's own
file and the baseline's (suppressions/env-NAME.txt) and of the files that are no environment's
are judged: another environment's file may name the same release for its own pins. Entries match
as in harness/run/suppressions.cpp, through python/dlconform_suppressions.py: rule, class, role
and party (the old form: rule and party in either role).
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import dlconform_suppressions  # noqa: E402

# A framework party in a case id: NAME@VERSION, the version starting with a digit (the mock
# parties' headers are v0.6, v1.3: those stay).
FRAMEWORK_PARTY = re.compile(r"^([A-Za-z0-9_.+-]+)@(\d[^/]*)$")
MAX_LISTED = 5


def load_cases(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["cases"]


def case_env(case):
    parts = case["id"].split("/")
    return parts[1] if len(parts) > 2 else ""


def normal_id(case):
    """The id without its environment and with every framework version as *."""
    parts = case["id"].split("/")
    rest = [parts[0]] + parts[2:]
    return "/".join(FRAMEWORK_PARTY.sub(r"\1@*", p) for p in rest)


def is_finding(case):
    return not case.get("as_expected", True)


def what(case):
    return (case["verdict"], case.get("finding_class", ""), case.get("rule_id", ""))


def entry_matches(entry, case):
    return dlconform_suppressions.matches(entry, case)


def load_suppressions(paths):
    entries = []
    for path in paths:
        entries += dlconform_suppressions.read(path)
    return entries


def read_pins(path):
    pins = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "==" in line:
                name, version = line.split("==", 1)
                pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def pin_changes(old, new):
    lines = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            lines.append(f"  - {name} {old[name]}")
        elif name not in old:
            lines.append(f"  + {name} {new[name]}")
        elif old[name] != new[name]:
            lines.append(f"    {name} {old[name]} -> {new[name]}")
    return lines


def compare(old_cases, new_cases, env, baselines, entries):
    """The changes as a dict: baseline, new, gone, changed (lists of case dicts), stale."""
    baseline = next((b for b in baselines
                     if any(case_env(c) == b for c in old_cases)), None)
    old = [c for c in old_cases if baseline is not None and case_env(c) == baseline]
    new = [c for c in new_cases if case_env(c) == env]
    ran = {normal_id(c) for c in new}
    comparable = [c for c in old if normal_id(c) in ran]
    old_findings = {normal_id(c): c for c in comparable if is_finding(c)}
    new_findings = {normal_id(c): c for c in new if is_finding(c)}
    result = {
        "env": env,
        "baseline": baseline,
        "new": [new_findings[k] for k in sorted(new_findings) if k not in old_findings],
        "gone": [old_findings[k] for k in sorted(old_findings) if k not in new_findings],
        "changed": [(old_findings[k], new_findings[k]) for k in sorted(new_findings)
                    if k in old_findings and what(old_findings[k]) != what(new_findings[k])],
        "stale": [],
    }
    own = {f"env-{env}.txt", f"env-{baseline}.txt"}
    for e in entries:
        file_name = os.path.basename(e["file"])
        if file_name.startswith("env-") and file_name not in own:
            continue
        covered = [k for k, c in old_findings.items() if entry_matches(e, c)]
        if not covered or any(entry_matches(e, c) for c in new_findings.values()):
            continue
        still = [k for k in covered if k in new_findings]
        result["stale"].append(dict(e, covered=len(covered), still_shown=len(still)))
    return result


def party_label(party):
    """A framework by its name (torch), a mock or plugin with its header (legacy-producer@v0.6)."""
    name, header = party["name"], party["header"].split()[0] if party["header"] else ""
    return name if not header or header.startswith(name + "@") else f"{name}@{header}"


def group_key(case):
    return (case.get("rule_id", ""), case.get("finding_class", ""), case["verdict"],
            party_label(case["producer"]), party_label(case["consumer"]))


def print_cases(title, cases, out):
    print(f"{title}: {len(cases)}", file=out)
    groups = {}
    for c in cases:
        groups.setdefault(group_key(c), []).append(c)
    for (rule, cls, verdict, producer, consumer), members in sorted(groups.items()):
        first = members[0]
        print(f"  {rule or '-'} {cls or verdict} ({verdict}), {producer} -> {consumer}: "
              f"{len(members)} case{'s' if len(members) != 1 else ''}", file=out)
        for c in members[:MAX_LISTED]:
            known = f" [known: {c['known_reason'][:80]}]" if c.get("known") else ""
            print(f"    {c['id']}{known}", file=out)
        if len(members) > MAX_LISTED:
            print(f"    ... and {len(members) - MAX_LISTED} more", file=out)
        print(f"    detail: {first.get('detail', '')[:300]}", file=out)


def report(result, out):
    if result["baseline"] is None:
        print(f"[latest] {result['env']}: the committed report has no cases of the baseline: "
              "every finding is new", file=out)
    else:
        print(f"[latest] {result['env']}: compared with the committed report's "
              f"{result['baseline']} cases (framework versions left out of the ids)", file=out)
    print_cases("new findings", result["new"], out)
    print_cases("gone findings", result["gone"], out)
    print(f"changed findings: {len(result['changed'])}", file=out)
    for old, new in result["changed"][:20]:
        print(f"  {new['id']}: {' '.join(what(old))} -> {' '.join(what(new))}", file=out)
    if len(result["changed"]) > 20:
        print(f"  ... and {len(result['changed']) - 20} more", file=out)
    print(f"stale suppressions: {len(result['stale'])}", file=out)
    for s in result["stale"]:
        why = (f"its finding still shows ({s['still_shown']} of {s['covered']} cases) under the "
               "new release: the party pattern names the old one"
               if s["still_shown"] else
               f"none of its {s['covered']} cases shows a finding now: fixed in the new release?")
        print(f"  {s['file']}:{s['line']}: {s['rule']} {s['party']}: {why}", file=out)


def main(argv=None, out=sys.stdout):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--old", required=True, help="the committed reports/matrix.json")
    parser.add_argument("--new", required=True, help="the matrix JSON of the re-resolved run")
    parser.add_argument("--baseline", action="append", default=[])
    parser.add_argument("--suppressions", action="append", default=[])
    parser.add_argument("--old-pins")
    parser.add_argument("--new-pins")
    parser.add_argument("--write", help="the changes, in full, as JSON")
    args = parser.parse_args(argv)
    try:
        old_cases, new_cases = load_cases(args.old), load_cases(args.new)
        entries = load_suppressions(args.suppressions)
        pins = pin_changes(read_pins(args.old_pins), read_pins(args.new_pins)) \
            if args.old_pins and args.new_pins else None
    except (OSError, ValueError, KeyError) as e:
        print(f"latest_changes.py: expected readable reports and suppression files but found: "
              f"{e}", file=sys.stderr)
        return 1
    if pins is not None:
        print(f"[latest] {args.env}: pins changed: {len(pins)}", file=out)
        for line in pins:
            print(line, file=out)
    result = compare(old_cases, new_cases, args.env, args.baseline or [args.env], entries)
    report(result, out)
    if args.write:
        with open(args.write, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
