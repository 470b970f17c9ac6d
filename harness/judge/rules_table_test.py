#!/usr/bin/env python3
"""The rule table (rules.def, clauses.def) against the project's rulebook, docs/rules.md: the same
rule ids in the same order, and for each rule the same severity and the same first version
(since_major, since_minor). The rulebook gives each rule a heading that holds only its id
("### LAY-10", so that reports can link docs/rules.md#lay-10) and, under it, "- **Severity:**
MUST" and "- **Applies from:** v0.6"; a heading or a line that breaks that form is a failure too.

Every severity is its sentence's. Each rule has a "- **Strength:** KIND: ..." line that quotes the
sentence setting the rule's severity, and one "- **Clause:** [`class`] SEVERITY, KIND: ..." line
for each sub-clause that weighs otherwise. KIND says what the sentence is, and fixes the severity:
must, a definition and memory safety are MUST; should is SHOULD; may (a permission) and none are
INFO; derived (no sentence states it) is at most SHOULD. A Clause line that names a finding class
must give the severity the judge gives that class under that rule (findings.def, clauses.def);
every row of clauses.def has its Clause line; a class whose fixed severity is not its rule's has
one too. A rule that binds producers only says "- **Binds:** producers", as its row does.

  rules_table_test.py rules.def clauses.def findings.def docs/rules.md

This check always runs: every file is in the repository. Before it, the script runs the same
comparison on copies changed in memory (a severity, a since version, a rule removed, a Strength
line without its quotation, a Binds line removed, a Strength kind that does not fit the severity,
a Clause line of the wrong severity, a clause row without its line) and fails unless the
comparison reports each change, so that a check that has stopped seeing mismatches cannot pass.
The rulebook in docs/ is the only rule catalogue."""
import re
import sys

RULE_ID = r"[A-Z]+-\d+b?"


def read_table(path):
    """[(id, SEVERITY, (major, minor), summary, binds, token)] of rules.def, and its malformed
    rows."""
    table, problems = [], []
    for line in open(path, encoding="utf-8"):
        m = re.match(r'DLC_RULE\((\w+), "(' + RULE_ID + r')", (must|should|info), '
                     r'(refuse|strict|none), (\d+), (\d+), (both|producers), "(.+)"\)$',
                     line.strip())
        if m:
            table.append((m.group(2), m.group(3).upper(), (int(m.group(5)), int(m.group(6))),
                          m.group(8), m.group(7), m.group(1)))
        elif line.startswith("DLC_RULE("):
            problems.append(f"malformed row in {path}: {line.strip()}")
    return table, problems


def read_classes(path):
    """{token: (name, rule token or None, SEVERITY or None for the rule's)} of findings.def."""
    classes = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r'DLC_CLASS\((\w+), "([^"]*)", (\w+), (\w+), ', line.strip())
        if m:
            classes[m.group(1)] = (m.group(2), None if m.group(3) == "none" else m.group(3),
                                   None if m.group(4) == "rule" else m.group(4).upper())
    return classes


def read_clauses(path):
    """[(rule token, class token, SEVERITY)] of clauses.def."""
    return [(m.group(1), m.group(2), m.group(3).upper())
            for m in (re.match(r"DLC_CLAUSE\((\w+), (\w+), (must|should|info)\)", line.strip())
                      for line in open(path, encoding="utf-8")) if m]


class Judge:
    """severity_of (rules.cpp) over the three tables, by rule id and class name."""

    def __init__(self, table, classes, clauses):
        self.rule_token = {r[0]: r[5] for r in table}
        self.rule_severity = {r[5]: r[1] for r in table}
        self.rule_id = {r[5]: r[0] for r in table}
        self.classes = classes
        self.class_token = {c[0]: token for token, c in classes.items()}
        self.clauses = {(rule, cls): sev for rule, cls, sev in clauses}

    def severity(self, class_name, rule_id):
        token = self.class_token[class_name]
        _, class_rule, fixed = self.classes[token]
        rule = self.rule_token.get(rule_id) or class_rule
        if (rule, token) in self.clauses:
            return self.clauses[(rule, token)]
        if fixed:
            return fixed
        return self.rule_severity.get(rule, "MUST")


# What a sentence is fixes what it weighs.
KINDS = {"must": {"MUST"}, "a definition": {"MUST"}, "memory safety": {"MUST"},
         "should": {"SHOULD"}, "may": {"INFO"}, "none": {"INFO"}, "derived": {"SHOULD", "INFO"}}


def kind_of(text):
    """The KIND a Strength or Clause text starts with ("may (a permission): ..." is may), or
    None."""
    head = re.match(r"([a-z ]+?)(?: \([^)]*\))?(?:,[^:]*)?:", text)
    return head.group(1) if head and head.group(1) in KINDS else None


def anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation other than '-' and '_' dropped,
    spaces turned into '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def read_rulebook(text):
    """[(id, SEVERITY, (major, minor), binds, strength, clauses)] of the rulebook, in its order,
    and the problems of form; clauses are [class name or None, SEVERITY, text]."""
    rules, problems, anchors = [], [], {}
    current = None  # [id, severities, versions, sources, binds, strengths, clauses]
    wrapping = None  # the Strength or Clause text that continues on indented lines

    def close():
        if current is None:
            return
        rule, severities, versions, sources, binds, strengths, clauses = current
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
                      strengths[0] if strengths else "", clauses))

    for number, line in enumerate(text.splitlines(), 1):
        heading = re.match(r"(#{1,6}) (.*)$", line)
        if heading or line.startswith("- "):
            wrapping = None
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
                current = [title, [], [], [], [], [], []]
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
            wrapping = (current[5], len(current[5]) - 1)
            continue
        m = re.match(r"- \*\*Clause:\*\* (?:`([a-z-]+)` )?(MUST|SHOULD|INFO), (.+)$", line)
        if m:
            current[6].append([m.group(1), m.group(2), m.group(3)])
            wrapping = (current[6], len(current[6]) - 1)
            continue
        if re.match(r"- \*\*Clause:\*\*", line):
            problems.append(f"{current[0]}: expected '- **Clause:** [`class`] MUST|SHOULD|INFO, "
                            f"KIND: ...' but found '{line.strip()}'")
            continue
        if wrapping and line.startswith("  "):  # a Strength or Clause line wrapped on
            items, i = wrapping
            if isinstance(items[i], list):
                items[i][2] += " " + line.strip()
            else:
                items[i] += " " + line.strip()
            continue
        wrapping = None
    close()
    return rules, problems


def version(v):
    return "none" if v is None else f"v{v[0]}.{v[1]}"


def compare(table, rules, where, judge, clauses):
    """Every way the rulebook's rules differ from the tables, one sentence each."""
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
    for rule, severity, since, _, binds, token in table:
        if rule not in book:
            continue
        _, book_severity, book_since, book_binds, strength, book_clauses = book[rule]
        if book_binds != binds:
            failures.append(f"{rule}: expected it to bind {binds} (as rules.def says) but {where} "
                            f"says {book_binds}")
        failures += judge_strength(rule, severity, strength, "its Strength line")
        if book_severity != severity:
            failures.append(f"{rule}: expected severity {severity} (as rules.def says) but "
                            f"{where} says {book_severity}")
        if book_since != since:
            failures.append(f"{rule}: expected it to apply from {version(since)} (as rules.def "
                            f"says) but {where} says {version(book_since)}")
        named = {}
        for cls, level, text in book_clauses:
            failures += judge_strength(rule, level, text, f"its Clause line ({cls or 'no class'})")
            if cls is None:
                continue
            if cls not in judge.class_token:
                failures.append(f"{rule}: its Clause line names `{cls}`, which findings.def does "
                                "not define")
                continue
            named[cls] = level
            judged = judge.severity(cls, rule)
            if judged != level:
                failures.append(f"{rule}: its Clause line says `{cls}` weighs {level} but the "
                                f"judge gives it {judged} (findings.def, clauses.def)")
        # Each sub-clause of the tables has its line: a clause row, and a class whose fixed
        # severity is not its rule's.
        for clause_rule, cls_token, level in clauses:
            name = judge.classes[cls_token][0]
            if clause_rule == token and named.get(name) != level:
                failures.append(f"{rule}: expected a Clause line `{name}` {level} (clauses.def) "
                                f"but found {named.get(name, 'none')}")
        for cls_token, (name, class_rule, fixed) in judge.classes.items():
            if class_rule == token and fixed and fixed != severity and name not in named:
                failures.append(f"{rule}: `{name}` weighs {fixed} (findings.def), not the rule's "
                                f"{severity}: expected a Clause line that says why")
    return failures


def judge_strength(rule, severity, text, what):
    """A Strength or Clause text against the severity it gives: its kind fixes the severity, and
    a sentence is quoted (a definition may be cited by its name in backticks)."""
    kind = kind_of(text)
    if kind is None:
        return [f"{rule}: expected {what} to start with its kind ({', '.join(KINDS)}) but found: "
                f"{text[:80]}"]
    failures = []
    if severity not in KINDS[kind]:
        failures.append(f"{rule}: {what} is of kind '{kind}', which weighs "
                        f"{' or '.join(sorted(KINDS[kind]))}, but the table gives {severity}")
    cited = '"' in text or (kind == "a definition" and "`" in text)
    if kind in ("must", "should", "may", "a definition") and not cited:
        failures.append(f"{rule}: expected {what} to quote the sentence that sets its severity "
                        f"but found no quotation: {text[:80]}")
    return failures


def self_check(table, text, judge, clauses):
    """The comparison must see each kind of mismatch it exists to find."""
    lines = text.splitlines()

    def section(rule):
        start = lines.index(f"### {rule}")
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")),
                   len(lines))
        return start, end

    def edited(rule, edit):
        """The rulebook with edit(line) applied to the lines of rule's section."""
        start, end = section(rule)
        return [edit(line) if start <= i < end else line for i, line in enumerate(lines)]

    must = next(r for r in table if r[1] == "MUST")[0]
    changed = edited(must, lambda line: line.replace("- **Severity:** MUST",
                                                     "- **Severity:** SHOULD"))
    older = edited(must, lambda line: "- **Applies from:** v9.9"
                   if line.startswith("- **Applies from:**") else line)
    producers = next((r[0] for r in table if r[4] == "producers"), None)
    unbound = edited(producers, lambda line: "" if line.startswith("- **Binds:**") else line)
    start_s, end_s = section(must)
    unquoted = list(lines)
    for i in range(start_s, end_s):
        if unquoted[i].startswith("- **Strength:**"):
            unquoted[i] = "- **Strength:** must: the header says so."
            j = i + 1
            while j < end_s and unquoted[j].startswith("  "):
                unquoted[j] = ""
                j += 1
    book = read_rulebook(text)[0]
    should = next(r[0] for r in book if r[1] == "SHOULD" and r[4].startswith("should:"))
    overweighed = edited(should, lambda line: line.replace("- **Strength:** should:",
                                                           "- **Strength:** a definition:"))
    # The first clause row: its line with the other severity, and its line removed.
    rule_token, cls_token, level = clauses[0]
    clause_rule = judge.rule_id[rule_token]
    name = judge.classes[cls_token][0]
    other = "MUST" if level != "MUST" else "SHOULD"
    prefix = f"- **Clause:** `{name}` {level},"
    reweighed = edited(clause_rule, lambda line: line.replace(prefix, f"- **Clause:** `{name}` "
                                                              f"{other},"))
    unclaused = edited(clause_rule, lambda line: "" if line.startswith(prefix) else line)
    removed_rule = table[len(table) // 2][0]
    start, end = section(removed_rule)
    removed = lines[:start] + lines[end:]
    failures = []
    for what, mutated, expect in (
            (f"{must}'s severity changed to SHOULD", changed, f"{must}: expected severity MUST"),
            (f"{must}'s version changed to v9.9", older, f"{must}: expected it to apply from"),
            (f"{removed_rule} removed", removed, f"missing ['{removed_rule}']"),
            (f"{must}'s Strength line without a quotation", unquoted,
             f"{must}: expected its Strength line to quote"),
            (f"{producers}'s Binds line removed", unbound,
             f"{producers}: expected it to bind producers"),
            (f"{should}'s Strength line of kind 'a definition'", overweighed,
             f"{should}: its Strength line is of kind 'a definition'"),
            (f"{clause_rule}'s Clause line for `{name}` at {other}", reweighed,
             f"{clause_rule}: its Clause line says `{name}` weighs {other}"),
            (f"{clause_rule}'s Clause line for `{name}` removed", unclaused,
             f"{clause_rule}: expected a Clause line `{name}` {level}")):
        rules, _ = read_rulebook("\n".join(mutated))
        found = compare(table, rules, "the mutated rulebook", judge, clauses)
        if not any(expect in f for f in found):
            failures.append(f"self-check: with {what}, expected the comparison to report "
                            f"'{expect}' but it reported {found}")
        else:
            print(f"self-check: {what}: reported ({'; '.join(found)})")
    return failures


def main():
    if len(sys.argv) != 5:
        print("usage: rules_table_test.py rules.def clauses.def findings.def docs/rules.md")
        return 1
    table_path, clauses_path, classes_path, book_path = sys.argv[1:]
    table, failures = read_table(table_path)
    if not table:
        failures.append(f"expected DLC_RULE rows in {table_path} but found none")
    clauses = read_clauses(clauses_path)
    classes = read_classes(classes_path)
    if not clauses:
        failures.append(f"expected DLC_CLAUSE rows in {clauses_path} but found none")
    judge = Judge(table, classes, clauses)
    for rule_token, cls_token, level in clauses:
        if cls_token not in classes or rule_token not in judge.rule_id:
            failures.append(f"{clauses_path}: expected a rule of rules.def and a class of "
                            f"findings.def but found DLC_CLAUSE({rule_token}, {cls_token})")
        elif classes[cls_token][2] == "MUST" and level != "MUST":
            failures.append(f"{clauses_path}: {classes[cls_token][0]} is MUST wherever it is "
                            f"found (memory safety, findings.def) but the clause lowers it to "
                            f"{level} under {judge.rule_id[rule_token]}")
    text = open(book_path, encoding="utf-8").read()
    rules, problems = read_rulebook(text)
    failures += problems
    if not failures:
        failures += compare(table, rules, book_path, judge, clauses)
    for rule, _, _, summary, _, _ in table:
        if len(summary) > 140:
            failures.append(f"{rule}: the summary is a sentence for a report cell; keep it short")
    if not failures:
        failures += self_check(table, text, judge, clauses)
    for f in failures:
        print(f)
    if failures:
        return 1
    print(f"{len(table)} rules of {table_path} and {len(clauses)} clauses match {book_path} (ids, "
          "order, severity, since, every sub-clause's strength)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
