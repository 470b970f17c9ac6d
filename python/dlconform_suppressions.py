"""Suppression files for the Python tools (the reproducers test, `tools/dev latest`, the fuzz
campaigns): the same reading as harness/run/suppressions.cpp, which the matrix uses.

  RULE  CLASS[,CLASS...]  ROLE  PARTY  [cases=GLOB]  REASON     (ROLE: producer, consumer,
                                                                  or hardening: the consumer
                                                                  on an invalid tensor)
  RULE  PARTY  REASON                                            (the old form, either role)

A case is known to an entry of the new form only when its rule, class, role and party (the
party in that role) match, and its id the glob; an old-form entry matches rule and party in
either role."""
import fnmatch
import os
import re

ROLES = ("producer", "consumer", "hardening")  # hardening: the consumer, on an invalid tensor


def parse_line(line, origin="", number=0):
    """The entry of one line as a dict (rule, classes, role, party, cases, reason, file, line);
    None for a blank or comment line or one without a reason. classes is [] and role "" for the
    old form."""
    text = line.split("#", 1)[0].strip()
    fields = text.split()
    if len(fields) < 3:
        return None
    entry = {"file": origin, "line": number, "rule": fields[0], "classes": [], "role": "",
             "cases": ""}
    if fields[2] in ROLES:
        if len(fields) < 5:
            return None
        entry.update(classes=fields[1].split(","), role=fields[2], party=fields[3])
        rest = fields[4:]
        if rest[0].startswith("cases="):
            entry["cases"] = rest[0][len("cases="):]
            rest = rest[1:]
        if not rest:
            return None
        # The reason as written (its own spacing), after the fields before it.
        entry["reason"] = text.split(None, len(fields) - len(rest))[-1]
    else:
        entry.update(party=fields[1], reason=text.split(None, 2)[2])
    return entry


def read(path):
    """Every entry of the file at `path`, in order."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            entry = parse_line(line, path, number)
            if entry:
                entries.append(entry)
    return entries


def party_matches(pattern, party):
    """`party` is {"name", "header"} (a report's case) or a "name@header" label."""
    if isinstance(party, str):
        name, _, header = party.partition("@")
    else:
        name, header = party.get("name", ""), party.get("header", "")
    return any(fnmatch.fnmatchcase(text, pattern) for text in (name, header, f"{name}@{header}"))


def matches(entry, case):
    """Whether `entry` marks the report case `case` (a dict of reports/matrix.json) known."""
    if entry["rule"] not in ("*", case.get("rule_id", "")):
        return False
    if not entry["classes"]:
        return party_matches(entry["party"], case["producer"]) or \
            party_matches(entry["party"], case["consumer"])
    return (case.get("role", "") == entry["role"] and
            case.get("finding_class", "") in entry["classes"] and
            party_matches(entry["party"],
                          case["consumer" if entry["role"] == "hardening" else entry["role"]]) and
            (not entry["cases"] or fnmatch.fnmatchcase(case["id"], entry["cases"])))


def names_party(entry, label):
    """Whether the entry is about the party `label` ("tvm-ffi@v1.3" or "tvm-ffi")."""
    return party_matches(entry["party"], label) or \
        fnmatch.fnmatchcase(label.split("@")[0], entry["party"])


def finding_classes():
    """The class names of harness/judge/findings.def, beside this checkout's python/."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "harness",
                        "judge", "findings.def")
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r'^DLC_CLASS\(\w+, "([a-z-]+)"', f.read(), flags=re.M))
