#!/usr/bin/env python3
"""One behaviour, one verdict (issue 70 section 2).

Groups the cases of each committed JSON report by what one party did, (party, role, rule,
outcome), and fails when a group holds both a 'pass' (a pass, or a skip because something
refused) and a 'finding' (a fail or a crash, known or not): the suite then judges one
behaviour twice, by the tensor or the scenario it met it in, and one judgement is wrong.

The outcome of a refusal is its kind (refused; raised only when the import was read; refused
a used capsule), its exception and its message cut short, numbers and addresses stripped; a
clean refusal names no rule, so refusals group without one (the lines print the findings'
rules).  Other findings group by rule and class, an invalid tensor imported by the rule it
breaks.  A rejected-valid finding judges whether the tensor had to be imported, and a pass
with the same refusal of a tensor outside the consumer's profile is right too, so those join
the refusals' groups only under --strict.

usage: one_verdict_test.py [--strict] [REPORT.json ...]
       (default: reports/matrix.json and reports/gpu.json of this checkout)
       one_verdict_test.py --self-test: a planted pair of verdicts is caught, a consistent one not
exit:  0 one verdict per group; 1 a group holds two; 77 a report is missing (SKIP)
"""
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = [ROOT / "reports" / "matrix.json", ROOT / "reports" / "gpu.json"]
HARNESS = {"dlconform-caller", "dlconform-consumer", "harness"}  # the suite calling a producer
MANNER = {"wrong-refusal-exception": "refused", "late-refusal": "raised on read"}
NOTE = re.compile(r' \((?:the (?:Array API|spec)(?:[^"()]|"[^"]*")*|after the TypeError fallback'
                  r' of [\w-]+)\)')
NEST = r"(?: \((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?"  # an optional (note (with (nesting)))
# How passes and skips word a refusal: (pattern, whose, kind).  'self' is the consumer, or the
# producer where the suite is the caller; 'named' is the party the detail starts with.
PASS_FORMS = [(re.compile(p), whose, kind) for p, whose, kind in [
    (r"^producer refused" + NEST + r": (.*)", "producer", "refused"),
    (r"read back through its own __dlpack__ \((.*)", "self", "raised on read"),
    (r"^refused late[^:]*: .*? raised (.*)", "self", "raised on read"),
    (r"^refused the used capsule[^:]*: (.*)", "self", "refused a used capsule"),
    (r"^(\S+@\S+) (?:refused [^:]*|raised \w+): (.*)", "named", "refused"),
    (r"^refused" + NEST + r"[^:(]*: (.*)", "self", "refused"),
    (r"^([A-Z]\w*(?:Error|Exception)\b.*)", "self", "refused"),  # the suite asked a producer
]]
FOUND = re.compile(r"(?:refused(?: it)?: |were read: |but found )(.*)")


def party(side):
    """The library one side of a case stands for, with its version: numpy@2.4.6, tvm-ffi@v1.3."""
    header = side.get("header") or ""
    if "@" in header or header == side["name"]:
        return header
    return f"{side['name']}@{header.split()[0]}" if header else side["name"]


def refusal(text):
    """'EXC: short message' of a refusal, numbers, addresses and lists stripped."""
    text = re.sub(r"^[\w:<>]+ refused: ", "", text.strip())  # at::fromDLPack refused: ...
    text = re.sub(r" for \{[^}]*\}:", ":", text)  # TypeError for {'max_version': ...}: ...
    text = re.sub(r"\s*[\[(]calls: .*", "", text)  # the calls the suite recorded
    if "Traceback (most recent call last)" in text:  # MXNet: the last exception of the trace
        text = text[list(re.finditer(r"\b\w+Error: ", text))[-1].start():]
    exc, msg = "", text
    m = re.match(r"([A-Z]\w*):(?: (.*)|$)", text, re.S)
    if m:
        exc, msg = m.group(1) + ": ", m.group(2) or ""
    msg = re.sub(r"^(?:\(\w+\) )+", "", msg)  # Paddle's '(Unimplemented) '
    msg = re.split(r" \(| \[|\. |; |\.$|\)\)", msg)[0]
    msg = re.sub(r"0x[0-9a-fA-F]+|\d+", "N", msg)
    msg = re.sub(r"\[[^\]]*\]|\{[^}]*\}", "[]", msg)
    return exc + " ".join(msg.lower().split()[:10])


def judge(case, strict):
    """(verdict, party, role, rule, outcome) of one case, or None where it refused nothing."""
    detail, verdict = NOTE.sub("", case["detail"]), case["verdict"]
    producer, consumer = party(case["producer"]), party(case["consumer"])
    called = case["consumer"]["name"] in HARNESS
    if verdict in ("fail", "crash"):
        cls, rule, role = case["finding_class"], case["rule_id"], case.get("role", "consumer")
        who, found = producer if role == "producer" else consumer, FOUND.search(detail)
        if found and (cls in MANNER or strict and cls == "rejected-valid"):
            kind = MANNER.get(cls, "refused")
            return "finding", who, role, "", f"{kind}: {refusal(found.group(1))}"
        if cls == "accepted-invalid":
            return "finding", who, role, rule, "imported an invalid tensor"
        return "finding", who, role, rule, cls
    broken = re.search(r"binding producers only.* breaks ([\w-]+)", detail)
    if broken:
        return "pass", consumer, "consumer", broken.group(1), "imported an invalid tensor"
    if verdict == "skip" and "refused" not in detail:
        return None
    detail = re.sub(r"^(\S+@\S+ refused to export[^:]*?) with (\w+): ", r"\1: \2: ", detail)
    for pattern, whose, kind in PASS_FORMS:
        m = pattern.search(detail)
        if m:
            if whose == "named":
                who = m.group(1)
                mine = who == producer and (who != consumer or "export" in detail)
                role = "producer" if mine else "consumer"
            else:
                role = "producer" if whose == "producer" or called else "consumer"
                who = producer if role == "producer" else consumer
            return "pass", who, role, "", f"{kind}: {refusal(m.groups()[-1])}"
    return None


def cases(report):
    """Every case of a report: matrix.json has 'cases', gpu.json 'cuda_cases' and others."""
    for key, value in report.items():
        if key.endswith("cases") and isinstance(value, list):
            yield from value


def planted(second_verdict):
    """A report of two cases of one refusal by the same library: the second a pass or a
    wrong-refusal-exception finding."""
    def case(n, verdict, cls, detail):
        return {"id": f"framework/x/p@v1.3/lib@1.0/t{n}", "verdict": verdict, "finding_class": cls,
                "rule_id": "DEV-3" if cls else "", "severity": "SHOULD" if cls else "",
                "detail": detail, "producer": {"name": "p", "header": "v1.3"},
                "consumer": {"name": "lib", "header": "lib@1.0"}, "role": "consumer"}
    refusal = "RuntimeError: Unsupported device in DLTensor."
    second = case(2, "pass", "", f"refused cleanly: {refusal}") if second_verdict == "pass" else \
        case(2, "fail", "wrong-refusal-exception", f"expected lib@1.0 to refuse a tensor on device "
             f"type 4 with BufferError but found {refusal}")
    return {"cases": [case(1, "pass", "", f"refused cleanly: {refusal}"), second]}


def self_test():
    """The check on two planted reports: two verdicts for one refusal fail it, one passes it."""
    import tempfile
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for second in ("pass", "finding"):
            path = Path(folder) / f"{second}.json"
            path.write_text(json.dumps(planted(second)))
            results[second] = main([str(path)])
    if results != {"pass": 0, "finding": 1}:
        print(f"FAIL: expected exit 0 for one verdict and 1 for two but found {results}")
        return 1
    print("ok: two verdicts for one refusal are caught, one verdict passes")
    return 0


def main(args):
    if "--self-test" in args:
        return self_test()
    strict = "--strict" in args
    paths = [Path(a) for a in args if a != "--strict"] or DEFAULT
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        print(f"SKIP: no report {', '.join(missing)}")
        return 77
    mixed_total = 0
    for path in paths:
        groups = defaultdict(lambda: {"pass": [], "finding": []})
        rules = defaultdict(set)
        for case in cases(json.loads(path.read_text())):
            judged = judge(case, strict)
            if judged:
                verdict, *key = judged
                groups[tuple(key)][verdict].append(case["id"])
                if verdict == "finding":
                    rules[tuple(key)].add(f"{case['rule_id']} {case['severity']} "
                                          f"{case['finding_class']}")
        mixed = sorted(k for k, g in groups.items() if g["pass"] and g["finding"])
        print(f"{path.name}: {len(groups)} groups, {len(mixed)} with two verdicts")
        for key in mixed:
            who, role, rule, outcome = key
            passes, findings = groups[key]["pass"], groups[key]["finding"]
            print(f"MIXED {who} [{role}{' ' + rule if rule else ''}] {outcome!r}: "
                  f"{len(passes)} pass (e.g. {passes[0]}), {len(findings)} finding "
                  f"[{'; '.join(sorted(rules[key]))}] (e.g. {findings[0]})")
        mixed_total += len(mixed)
    return 1 if mixed_total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
