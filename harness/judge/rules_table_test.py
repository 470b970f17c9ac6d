#!/usr/bin/env python3
"""The rule table (rules.def) against the project's rulebook, docs/rules.md: the same rule ids in
the same order, and for each rule the same severity and the same first version (since_major,
since_minor). The rulebook gives each rule a heading that holds only its id ("### LAY-10", so that
reports can link docs/rules.md#lay-10) and, under it, "- **Severity:** MUST" and
"- **Applies from:** v0.6"; a heading or a line that breaks that form is a failure too. Each rule
also has a "- **Strength:**" line that quotes the sentence setting its severity (a definition may
be cited by its name in backticks; a rule no sentence states says "derived" and is at most SHOULD,
unless the line says it is "held at MUST" by the table, flagged for review), and a rule that binds
producers only says "- **Binds:** producers", as its row in rules.def does.

  rules_table_test.py rules.def docs/rules.md

This check always runs: both files are in the repository. Before it, the script runs the same
comparison on copies of the rulebook changed in memory (one severity changed, one since version
changed, one rule removed, a Strength line without its quotation, a Binds line removed) and fails
unless the comparison reports each change, so that a check
that has stopped seeing mismatches cannot pass. The rulebook in docs/ is the only rule catalogue."""
import re
import sys

RULE_ID = r"[A-Z]+-\d+b?"


def read_table(path):
    """[(id, SEVERITY, (major, minor), summary, binds)] of rules.def, and its malformed rows."""
    table, problems = [], []
    for line in open(path, encoding="utf-8"):
        m = re.match(r'DLC_RULE\(\w+, "(' + RULE_ID + r')", (must|should|info), (\d+), (\d+), (both|producers), "(.+)"\)$',
                     line.strip())
        if m:
            table.append((m.group(1), m.group(2).upper(), (int(m.group(3)), int(m.group(4))),
                          m.group(6), m.group(5)))
        elif line.startswith("DLC_RULE("):
            problems.append(f"malformed row in {path}: {line.strip()}")
    return table, problems


def anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation other than '-' and '_' dropped,
    spaces turned into '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def read_rulebook(text):
    """[(id, SEVERITY, (major, minor), binds, strength)] of the rulebook, in its order, and the
    problems of form."""
    rules, problems, anchors = [], [], {}
    current = None  # [id, severities, versions, sources, binds, strengths]

    def close():
        if current is None:
            return
        rule, severities, versions, sources, binds, strengths = current
        if len(severities) != 1:
            problems.append(f"{rule}: expected one '- **Severity:** MUST|SHOULD|INFO' line under "
                            f"its heading but found {len(severities)}")
        if len(versions) != 1:
            problems.append(f"{rule}: expected one '- **Applies from:** vMAJOR.MINOR' line under "
                            f"its heading but found {len(versions)}")
        if not sources:
            problems.append(f"{rule}: expected a '- **Source:** ...' line under its heading but "
                            "found none")
        if len(strengths) != 1:
            problems.append(f"{rule}: expected one '- **Strength:** ...' line under its heading "
                            f"(the sentence that sets its severity, with document and revision) "
                            f"but found {len(strengths)}")
        rules.append((rule, severities[0] if severities else None,
                      versions[0] if versions else None, binds[0] if binds else "both",
                      strengths[0] if strengths else ""))

    for number, line in enumerate(text.splitlines(), 1):
        heading = re.match(r"(#{1,6}) (.*)$", line)
        if heading:
            close()
            current = None
            title = heading.group(2).strip()
            slug = anchor(title)
            if slug in anchors:
                problems.append(f"line {number}: heading '{title}' has the anchor #{slug} of line "
                                f"{anchors[slug]}; anchors must be unique")
            anchors.setdefault(slug, number)
            if re.fullmatch(RULE_ID, title):
                if heading.group(1) != "###":
                    problems.append(f"line {number}: rule {title} must be a level-3 heading "
                                    f"('### {title}')")
                current = [title, [], [], [], [], []]
            elif re.match(RULE_ID + r"\b", title):
                problems.append(f"line {number}: expected a rule heading to hold only its id (so "
                                f"that its anchor is the id) but found '{title}'")
            continue
        if current is None:
            continue
        m = re.match(r"- \*\*Severity:\*\* (\S+)\s*$", line)
        if m:
            if m.group(1) not in ("MUST", "SHOULD", "INFO"):
                problems.append(f"{current[0]}: expected severity MUST, SHOULD or INFO but found "
                                f"'{m.group(1)}'")
            current[1].append(m.group(1))
            continue
        m = re.match(r"- \*\*Applies from:\*\* v(\d+)\.(\d+)\b", line)
        if m:
            current[2].append((int(m.group(1)), int(m.group(2))))
            continue
        if re.match(r"- \*\*Applies from:\*\*", line):
            problems.append(f"{current[0]}: expected '- **Applies from:** vMAJOR.MINOR' but found "
                            f"'{line.strip()}'")
            current[2].append(None)
            continue
        if re.match(r"- \*\*Source:\*\* \S", line):
            current[3].append(line)
            continue
        m = re.match(r"- \*\*Binds:\*\* (\S+)\s*$", line)
        if m:
            current[4].append(m.group(1))
            continue
        m = re.match(r"- \*\*Strength:\*\* (.+)$", line)
        if m:
            current[5].append(m.group(1))
            continue
        if current[5] and line.startswith("  ") and not current[5][-1].endswith("\n"):
            current[5][-1] += " " + line.strip()  # a Strength line wrapped onto the next ones
    close()
    return rules, problems


def version(v):
    return "none" if v is None else f"v{v[0]}.{v[1]}"


def compare(table, rules, where):
    """Every way the rulebook's rules differ from the table's, one sentence each."""
    failures = []
    ids = [r[0] for r in table]
    book_ids = [r[0] for r in rules]
    if ids != book_ids:
        missing = [i for i in ids if i not in book_ids]
        extra = [i for i in book_ids if i not in ids]
        repeated = sorted({i for i in book_ids if book_ids.count(i) > 1})
        if missing or extra or repeated:
            failures.append(f"expected the ids of rules.def in {where} but found missing "
                            f"{missing}, extra {extra}, repeated {repeated}")
        else:
            failures.append(f"expected the ids of rules.def in its order in {where} but found "
                            f"them in another order: {book_ids}")
    book = {r[0]: r for r in rules}
    for rule, severity, since, _, binds in table:
        if rule not in book:
            continue
        _, book_severity, book_since, book_binds, strength = book[rule]
        if book_binds != binds:
            failures.append(f"{rule}: expected it to bind {binds} (as rules.def says) but {where} "
                            f"says {book_binds}")
        # A rule no sentence states is derived, and at most SHOULD, unless its Strength line says
        # the table holds it at MUST (flagged for review).
        if (strength.startswith("derived") and severity == "MUST" and
                "held at MUST" not in strength):
            failures.append(f"{rule}: its Strength line says it is derived but rules.def makes it "
                            "MUST; a derived rule is at most SHOULD unless its line says it is "
                            "held at MUST")
        # A definition (a struct, an enum) is cited by name; anything else quotes its sentence.
        cited = '"' in strength or (strength.startswith("a definition") and "`" in strength)
        if strength and not strength.startswith("derived") and not cited:
            failures.append(f"{rule}: expected its Strength line to quote the sentence that sets "
                            f"its severity but found no quotation: {strength[:80]}")
        if book_severity != severity:
            failures.append(f"{rule}: expected severity {severity} (as rules.def says) but "
                            f"{where} says {book_severity}")
        if book_since != since:
            failures.append(f"{rule}: expected it to apply from {version(since)} (as rules.def "
                            f"says) but {where} says {version(book_since)}")
    return failures


def self_check(table, text):
    """The comparison must see a changed severity, a changed version and a removed rule."""
    lines = text.splitlines()

    def section(rule):
        start = lines.index(f"### {rule}")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")),
                   len(lines))
        return start, end

    failures = []
    must = next(r for r in table if r[1] == "MUST")[0]
    start, end = section(must)
    changed = list(lines)
    for i in range(start, end):
        changed[i] = changed[i].replace("- **Severity:** MUST", "- **Severity:** SHOULD")
    since = [i for i in range(start, end) if lines[i].startswith("- **Applies from:**")]
    older = list(lines)
    for i in since:
        older[i] = "- **Applies from:** v9.9"
    producers = next((r[0] for r in table if r[4] == "producers"), None)
    unbound = list(lines)
    if producers:
        start_p, end_p = section(producers)
        unbound = [line for i, line in enumerate(lines)
                   if not (start_p <= i < end_p and line.startswith("- **Binds:**"))]
    start_s, end_s = section(must)
    unquoted = list(lines)
    for i in range(start_s, end_s):
        if unquoted[i].startswith("- **Strength:**"):
            unquoted[i] = "- **Strength:** must: the header says so."
            j = i + 1
            while j < end_s and unquoted[j].startswith("  "):
                unquoted[j] = ""
                j += 1
    # A derived rule held at MUST whose Strength line no longer says so.
    held_rule = next((r[0] for r in read_rulebook(text)[0]
                      if r[4].startswith("derived") and "held at MUST" in r[4]), None)
    unheld = [line.replace("held at MUST", "held") for line in lines]
    removed_rule = table[len(table) // 2][0]
    start, end = section(removed_rule)
    removed = lines[:start] + lines[end:]
    for what, mutated, expect in (
            (f"{must}'s severity changed to SHOULD", changed, f"{must}: expected severity MUST"),
            (f"{must}'s version changed to v9.9", older, f"{must}: expected it to apply from"),
            (f"{removed_rule} removed", removed, f"missing ['{removed_rule}']"),
            (f"{must}'s Strength line without a quotation", unquoted,
             f"{must}: expected its Strength line to quote")) + (
            ((f"{producers}'s Binds line removed", unbound,
              f"{producers}: expected it to bind producers"),) if producers else ()) + (
            ((f"{held_rule}'s Strength line without 'held at MUST'", unheld,
              f"{held_rule}: its Strength line says it is derived"),) if held_rule else ()):
        rules, _ = read_rulebook("\n".join(mutated))
        found = compare(table, rules, "the mutated rulebook")
        if not any(expect in f for f in found):
            failures.append(f"self-check: with {what}, expected the comparison to report "
                            f"'{expect}' but it reported {found}")
        else:
            print(f"self-check: {what}: reported ({'; '.join(found)})")
    return failures


def main():
    if len(sys.argv) != 3:
        print("usage: rules_table_test.py rules.def docs/rules.md")
        return 1
    table_path, book_path = sys.argv[1], sys.argv[2]
    table, failures = read_table(table_path)
    if not table:
        failures.append(f"expected DLC_RULE rows in {table_path} but found none")
    text = open(book_path, encoding="utf-8").read()
    rules, problems = read_rulebook(text)
    failures += problems
    failures += compare(table, rules, book_path)
    for rule, _, _, summary, _ in table:
        if len(summary) > 140:
            failures.append(f"{rule}: the summary is a sentence for a report cell; keep it short")
    if not failures:
        failures += self_check(table, text)
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"{len(table)} rules of {table_path} match {book_path} (ids, order, severity, since)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
