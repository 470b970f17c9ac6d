#!/usr/bin/env python3
"""The coverage tables (coverage/obligations.tsv, coverage/properties.tsv) against the committed
reports (reports/matrix.json, reports/gpu.json, and the main job's planted runs
reports/planted-consumers.json, planted-producers.json, planted-xapi.json, planted-importers.json,
planted-pairs.json and planted-xapi-consumers.json): a row may claim no more than those show.

  coverage_test.py

It fails when
  (a) a `judged` row has no failing planted case under a planted glob, or none that fails under
      one of the row's rules (a failing planted case: coverage.is_failing_planted, a planted
      party's case, verdict fail, crash or timeout, expected `broken` or known; a planted party
      is a C one whose id or party names `planted`, or a party of python/planted_consumers.py,
      planted_producers.py or planted_xapi_expected.py named by the party segment and the header
      of a planted-*.json case: coverage.is_planted; an INFO note is a pass);
  (b) a `judged` row's real globs match no real library's case that ran (not skipped; no case of
      a planted-*.json report is real), or all its cases are gpu.json's (the planted-*.json
      reports count as the main job's, as matrix.json);
  (c) a glob is malformed (whitespace, an open bracket, a first segment that is not a literal
      scenario of the reports), matches no case, or a planted glob matches a case that is not
      planted; a `prepared (GPU)` row's globs match no case of gpu.json (unless every case
      they match is one the main job planned and skipped for want of a CUDA device, awaiting
      the GPU run, and a planted one of them is planned to fail under one of the row's rules),
      or a case the main job judged (matrix.json or a planted-*.json report);
  (d) docs/coverage.md, or the coverage line of README.md, is not what tools/coverage.py writes;
  (e) a rule id is not one of harness/judge/rules.def;
  (f) a case of a planted-*.json report names no planted party of its file (a party renamed or
      added without the file, so that the predicate would miss it), or a row's reason says that
      such a report "holds no case" while it holds cases (the row is to be judged again);
and on a malformed row (its id, cell count, strength, state or reason). Before that it proves
itself: mutated copies of a judged row (a planted glob that matches nothing, one whose planted
cases all pass, a real glob that matches nothing, an unknown rule, a malformed glob, a rule the
planted case does not fail under, a stale document; on the planted-*.json reports: a planted
glob whose cases pass with an INFO note only, a control's passing cases, a real glob that matches
planted Python parties only) must each be reported, and a row judged by a planted Python party's
failing case must hold. A planted-*.json report that holds no case is noted, not failed."""
import copy
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage  # noqa: E402

ROOT = coverage.ROOT


def rule_ids():
    text = open(os.path.join(ROOT, "harness", "judge", "rules.def"), encoding="utf-8").read()
    return set(re.findall(r'^DLC_RULE\(\w+, "([^"]+)"', text, re.M))


def glob_problem(glob, scenarios):
    """Why a glob is malformed, or None."""
    if not glob or re.search(r"\s", glob):
        return "a glob without whitespace"
    if glob.count("[") != glob.count("]"):
        return "balanced brackets"
    first = glob.split("/", 1)[0]
    if re.search(r"[*?\[]", first) or first not in scenarios:
        return f"a literal scenario of the reports as its first segment (not {first!r})"
    return None


def check_row(row, kind, index, rules, scenarios):
    """Every problem of one row, each as 'ID: expected X but found Y'."""
    rid = row.get("id", "?")
    out = []

    def bad(what, found):
        out.append(f"{rid}: expected {what} but found {found}")

    if row["_cells"] != row["_width"]:
        bad(f"{row['_width']} tab-separated cells", row["_cells"])
        return out
    pattern = r"OB-\d{3}" if kind == "obligations" else r"P-\d{2}"
    if not re.fullmatch(pattern, rid):
        bad(f"an id like {pattern}", repr(rid))
    strengths = ("MUST", "SHOULD", "MAY") if kind == "obligations" else ("MUST", "SHOULD", "INFO",
                                                                         "-")
    if row["strength"] not in strengths:
        bad("a strength of " + ", ".join(strengths), repr(row["strength"]))
    kind_of_state = coverage.state_kind(row["state"])
    if kind_of_state is None:
        bad("judged, prepared (GPU), not judged (WHY) or not testable here (WHY)",
            repr(row["state"]))
        return out
    if not row.get("reason", "").strip() or not row.get("text", "").strip():
        bad("a text and a reason", "an empty cell")
    row_rules = coverage.rules_of(row)
    for r in row_rules:
        if r not in rules:
            bad("rule ids of harness/judge/rules.def", repr(r))
    planted, real = coverage.split(row["planted"]), coverage.split(row["real"])
    matched = {}
    for glob in planted + real:
        why = glob_problem(glob, scenarios)
        if why:
            bad(why, f"`{glob}`")
            continue
        matched[glob] = index.match(glob)
        if not matched[glob]:
            bad(f"`{glob}` to match committed cases", "none")
    for glob in planted:
        others = [c["id"] for c in matched.get(glob, []) if not coverage.is_planted(c)]
        if others:
            bad(f"only planted cases under planted `{glob}`", others[0])
    failing = {g: [c for c in matched.get(g, []) if coverage.is_failing_planted(c)]
               for g in planted}
    if kind_of_state == "judged":
        if not planted:
            bad("a planted glob on a judged row", "none")
        for glob in planted:
            if glob in matched and matched[glob] and not failing[glob]:
                bad(f"a failing planted case under `{glob}`",
                    "only " + ", ".join(sorted({c["verdict"] for c in matched[glob]})))
        all_failing = [c for g in planted for c in failing[g]]
        if all_failing and not any(c["rule"] in row_rules for c in all_failing):
            bad("a failing planted case under one of the rules " + (row["rules"]),
                "rules " + ", ".join(sorted({c["rule"] for c in all_failing})))
        if not real:
            bad("a real glob on a judged row", "none")
        for glob in real:
            ran = [c for c in matched.get(glob, []) if coverage.is_real(c)
                   and c["verdict"] != "skip"]
            if glob in matched and matched[glob] and not ran:
                bad(f"a real library's case that ran under `{glob}`", "none")
        if planted and all(c["report"] == "gpu" for g in planted + real
                           for c in matched.get(g, []) if c["verdict"] != "skip"):
            bad("a case of the main matrix on a judged row", "gpu.json only: prepared (GPU)")
    elif kind_of_state == "prepared (GPU)":
        if not planted:
            bad("a planted glob on a prepared (GPU) row", "none")
        for glob in planted + real:
            cases = matched.get(glob, [])
            # Not yet run on a GPU: the main job planned the cases and skipped them for want of a
            # CUDA device; a planted one must be planned to fail under one of the row's rules.
            waiting = [c for c in cases if c["report"] in coverage.MAIN_REPORTS
                       and c["awaits_gpu"]]
            if cases and not any(c["report"] == "gpu" for c in cases) and \
                    len(waiting) != len(cases):
                bad(f"`{glob}` to match cases of gpu.json, or main-job cases skipped for want of "
                    f"a CUDA device", "none")
            if glob in planted and waiting and len(waiting) == len(cases) and \
                    not any(c["expected_rule"] in row_rules for c in waiting):
                bad(f"a planted case under `{glob}` planned to fail under one of the rules "
                    f"{row['rules']}", "rules " + ", ".join(sorted({c["expected_rule"] or "none"
                                                                    for c in waiting})))
            judged_here = [c["id"] for c in cases if c["report"] in coverage.MAIN_REPORTS
                           and c["verdict"] != "skip"]
            if judged_here:
                bad(f"`{glob}` judged by the GPU run only", "a matrix case " + judged_here[0])
    else:
        proven = [c for g in planted for c in failing[g] if c["rule"] in row_rules]
        if proven:
            bad(f"no failing planted case on a row {row['state']}", proven[0]["id"])
    return out


def check_tables(obligations, properties, index, rules, scenarios):
    failures = []
    for kind, rows, minimum in (("obligations", obligations, 150), ("properties", properties, 67)):
        if len(rows) < minimum:
            failures.append(f"coverage/{kind}.tsv: expected at least {minimum} rows but found "
                            f"{len(rows)}")
        seen = set()
        for row in rows:
            if row.get("id") in seen:
                failures.append(f"{row['id']}: expected a unique id but found it twice")
            seen.add(row.get("id"))
            failures += check_row(row, kind, index, rules, scenarios)
    return failures


def check_documents(obligations, properties, doc_text, readme_text):
    failures = []
    if doc_text != coverage.render(obligations, properties):
        failures.append(f"expected {coverage.DOC} as tools/coverage.py writes it but found it "
                        "stale: run tools/coverage.py")
    line = coverage.headline(obligations, properties)
    if line not in readme_text.splitlines():
        found = [x for x in readme_text.splitlines() if x.startswith("Coverage:")]
        failures.append(f"expected README.md to hold the line '{line}' but found "
                        + (repr(found[0]) if found else "no 'Coverage:' line"))
    return failures


def self_test(obligations, properties, index, rules, scenarios, cases):
    """Each mutation of a judged row must be reported; returns the ones that were not."""
    judged = next(r for r in obligations if r["state"] == "judged")
    passing_planted = {"id": "planted/selftest-passing-producer@v1.3/strict-consumer@v1.3/x",
                       "verdict": "pass", "expected": "pass", "known": False, "rule": "",
                       "class": "", "producer": "selftest-passing-producer",
                       "consumer": "strict-consumer", "report": "matrix"}
    # A planted CUDA case the main job planned and skipped for want of a device.
    awaiting_planted = {"id": "planted/selftest-cuda-producer@v1.3/cuda-consumer@v1.3/cuda/x",
                        "verdict": "skip", "expected": "skip", "known": False, "rule": "",
                        "class": "", "producer": "selftest-cuda-producer",
                        "consumer": "cuda-consumer", "report": "matrix",
                        "expected_rule": "STRM-1", "awaits_gpu": True}
    index = coverage.Index(cases + [passing_planted, awaiting_planted])

    def mutated(**cells):
        row = copy.deepcopy(judged)
        row.update(cells)
        return row

    trials = [
        ("a judged row whose planted glob matches nothing",
         mutated(planted="planted/no-such-party@v0/*")),
        ("a judged row whose planted cases all pass",
         mutated(planted="planted/selftest-passing-producer@*")),
        ("a judged row whose real glob matches nothing", mutated(real="edge/no-such-case/*")),
        ("a judged row without a planted glob", mutated(planted="-")),
        ("a rule that rules.def lacks", mutated(rules="LAY-99")),
        ("a planted case failing under none of the row's rules", mutated(rules="XAPI-1")),
        ("a malformed glob", mutated(real="*/f32_8x8")),
        ("a glob with an open bracket", mutated(real="edge/[ab")),
        ("a state outside the four", mutated(state="in part")),
        ("a planted glob of planted-consumers.json whose cases pass with an INFO note only",
         mutated(planted="asks/module/no-max-version@1/plain", rules="VER-5")),
        ("a planted glob of planted-xapi.json matching a control's passing cases",
         mutated(planted="xapi/module/xapi-correct@1/*", rules="XAPI-3")),
        ("a real glob matching planted Python parties' cases only",
         mutated(real="asks/module/*@1/plain")),
    ]
    missed = []
    base = check_row(judged, "obligations", index, rules, scenarios)
    if base:
        missed.append(f"nothing on {judged['id']} before it is mutated (found: {base[0]})")
    for label, row in trials:
        if not check_row(row, "obligations", index, rules, scenarios):
            missed.append(label)
    # A planted Python party's failing case (planted-consumers.json: stream-zero passes stream=0
    # to a CPU producer, stream-on-cpu STRM-1) judges a row as a planted C party's does.
    python_judged = mutated(planted="asks/module/stream-zero@1/plain", rules="STRM-1",
                            real="asks/*/*/plain")
    found = check_row(python_judged, "obligations", index, rules, scenarios)
    if found:
        missed.append(f"nothing on a row judged by a planted-consumers.json case (found: "
                      f"{found[0]})")
    # A prepared row not yet run on a GPU: its planted glob's skipped cases must be planned to
    # fail under one of its rules, and a glob matching a case that ran here is not prepared.
    prepared = mutated(state="prepared (GPU)", planted="planted/selftest-cuda-producer@*",
                       rules="STRM-1", real="cuda/*/cuda-producer@v1.3/cuda-consumer@v1.3/*")
    found = check_row(prepared, "obligations", index, rules, scenarios)
    if found:
        missed.append(f"nothing on a prepared row whose planted case awaits the GPU (found: "
                      f"{found[0]})")
    prepared["rules"] = "LIFE-3"
    if not check_row(prepared, "obligations", index, rules, scenarios):
        missed.append("a prepared row whose planted case awaits the GPU under another rule")
    if not check_row(mutated(state="prepared (GPU)"), "obligations", index, rules, scenarios):
        missed.append("a prepared row whose globs match cases judged here")
    stale = coverage.render(obligations, properties).replace(judged["id"], judged["id"] + "x", 1)
    if not check_documents(obligations, properties, stale,
                           coverage.headline(obligations, properties)):
        missed.append("a stale docs/coverage.md")
    if not check_documents(obligations, properties, coverage.render(obligations, properties),
                           "Coverage: 999 of 999 testable MUST/SHOULD obligations judged"):
        missed.append("a README line with other figures")
    return missed


def main():
    cases = coverage.load_cases()
    index = coverage.Index(cases)
    scenarios = set(index.by_scenario)
    rules = rule_ids()
    obligations, properties = coverage.load_tables()
    failures = []
    if len(rules) < 40:
        failures.append(f"expected the rules of harness/judge/rules.def but found {len(rules)}")
    missed = self_test(obligations, properties, index, rules, scenarios, cases)
    failures += [f"self-check: expected {m}" if m.startswith("nothing on") else
                 f"self-check: expected {m} to be reported but found nothing" for m in missed]
    failures += check_tables(obligations, properties, index, rules, scenarios)
    notes = []
    for report in coverage.PLANTED_REPORTS:
        theirs = [c for c in cases if c["report"] == report]
        strays = [c["id"] for c in theirs if not c["planted_party"]]
        if strays:
            failures.append(f"reports/{report}.json: expected every case to name a party of "
                            f"{coverage.PLANTED_REPORTS[report]} but found {strays[0]}")
        if not theirs:
            notes.append(f"NOTE reports/{report}.json holds no case: no row can be judged by its "
                         "parties")
            continue
        for row in obligations + properties:
            if f"{report}.json holds no case" in row.get("reason", ""):
                failures.append(f"{row['id']}: expected its reason to follow reports/{report}"
                                f".json but found 'holds no case' where it holds {len(theirs)}: "
                                "judge the row again")
    doc_path = os.path.join(ROOT, coverage.DOC)
    doc = open(doc_path, encoding="utf-8").read() if os.path.exists(doc_path) else ""
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    failures += check_documents(obligations, properties, doc, readme)
    for n in notes:
        print(n)
    for f in failures:
        print("FAIL " + f)
    c = coverage.figures(obligations, properties)
    print(f"{len(obligations)} obligations, {len(properties)} properties against {len(cases)} "
          f"cases: {c['ms_judged']} of {c['ms_testable']} testable MUST/SHOULD obligations and "
          f"{c['props_judged']} of {c['props']} properties judged; "
          + (f"{len(failures)} failed" if failures else "every row holds"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
