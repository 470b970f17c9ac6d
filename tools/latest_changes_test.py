#!/usr/bin/env python3
"""tools/latest_changes.py on canned reports: a finding that is new with a release, one that is
gone, one that changed, a suppression that went stale (fixed, or naming the old release), one
still in use, and what is left out of the comparison (frameworks the new run does not have,
other environments)."""
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import latest_changes  # noqa: E402


def case(env, producer, consumer, tensor, verdict="pass", rule="", cls="", scenario="pairs",
         known=False):
    def party(p):
        name, _, version = p.partition("@")
        return {"name": name, "header": p if version[:1].isdigit() else version}
    finding = verdict != "pass"
    return {"id": f"{scenario}/{env}/{producer}/{consumer}/{tensor}", "scenario": scenario,
            "producer": party(producer), "consumer": party(consumer), "tensor": tensor,
            "verdict": verdict, "rule_id": rule, "finding_class": cls, "known": known,
            "known_reason": "r" if known else "", "detail": f"detail of {tensor}",
            "as_expected": not finding}


OLD = [
    # The baseline environment, frameworks, with numpy 2.4.6 and torch 2.13.0 and pyarrow.
    case("frameworks", "numpy@2.4.6", "torch@2.13.0", "f32_reversed", "crash", "LAY-8",
         "consumer-crash", known=True),
    case("frameworks", "numpy@2.4.6", "torch@2.13.0", "f32_copy", "fail", "FLAG-2",
         "missing-flag", known=True),
    case("frameworks", "versioned-producer@v1.3", "numpy@2.4.6", "device_cpu_id_3", "fail",
         "DEV-2", "accepted-invalid", scenario="framework", known=True),
    case("frameworks", "numpy@2.4.6", "torch@2.13.0", "f32_odd", "fail", "LAY-4",
         "misread", known=True),
    case("frameworks", "numpy@2.4.6", "torch@2.13.0", "f32_plain"),
    # Between frameworks the new run lacks: neither gone nor a stale entry.
    case("frameworks", "numpy@2.4.6", "pyarrow@26.0.1", "f32_neg", "fail", "LAY-8",
         "refused-valid", known=True),
    # Between frameworks the new run has, but a case it did not run (an overlay environment
    # runs only its own frameworks' cases): not gone either.
    case("frameworks", "versioned-producer@v1.3", "torch@2.13.0", "f32_8x8_negative_stride",
         "crash", "LAY-8", "crash", scenario="framework", known=True),
    # Another environment: not the baseline.
    case("numpy-2.3.5", "versioned-producer@v1.3", "numpy@2.3.5", "f16", "fail", "DT-1",
         "misread", scenario="framework"),
    # A built-in case of the committed report.
    {"id": "S0/future-major-producer@v1.3/legacy-consumer@v0.6/f32_8x8", "scenario": "S0",
     "producer": {"name": "future-major-producer", "header": "v1.3"},
     "consumer": {"name": "legacy-consumer", "header": "v0.6"}, "tensor": "f32_8x8",
     "verdict": "fail", "rule_id": "VER-4", "finding_class": "x", "as_expected": False},
]
NEW = [
    # Still there, under the new releases.
    case("latest", "numpy@2.5.5", "torch@2.15.0", "f32_reversed", "crash", "LAY-8",
         "consumer-crash"),
    # Gone: torch 2.15 sets IS_COPIED (f32_copy passes now).
    case("latest", "numpy@2.5.5", "torch@2.15.0", "f32_copy"),
    # Still there, and known through a pattern that does not name the version.
    case("latest", "versioned-producer@v1.3", "numpy@2.5.5", "device_cpu_id_3", "fail",
         "DEV-2", "accepted-invalid", scenario="framework", known=True),
    # Changed: a misread became a crash.
    case("latest", "numpy@2.5.5", "torch@2.15.0", "f32_odd", "crash", "LAY-4",
         "consumer-crash"),
    # New: JAX 0.12 joins the pairs with a finding.
    case("latest", "torch@2.15.0", "jax@0.12.0.1", "bool_scalar", "fail", "DT-3",
         "misread"),
    case("latest", "numpy@2.5.5", "torch@2.15.0", "f32_plain"),
]
SUPPRESSIONS = """\
# RULE PARTY REASON
LAY-8    torch@2.13*   aborts on negative strides [repro: a.py]
FLAG-2   torch@2.13*   no IS_COPIED [repro: b.py]
DEV-2    numpy         accepts device_id 3 [repro: c.py]
LAY-8    pyarrow@26*   refuses negative strides [repro: d.py]
LAY-4    torch@2.13*   ignores byte_offset [repro: e.py]
DT-1     numpy@2.3*    not in the baseline [repro: f.py]
"""
# The new run's DEV-2 finding of torch (the baseline's file names the old release).
OLD.append(case("frameworks", "versioned-producer@v1.3", "torch@2.13.0", "device_cpu_id_3",
                "fail", "DEV-2", "accepted-invalid", scenario="framework", known=True))
NEW.append(case("latest", "versioned-producer@v1.3", "torch@2.15.0", "device_cpu_id_3", "fail",
                "DEV-2", "accepted-invalid", scenario="framework"))


class LatestChanges(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, text):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if isinstance(text, str) else json.dumps({"cases": text}))
        return path

    def run_main(self, *extra):
        out = io.StringIO()
        changes = os.path.join(self.dir.name, "changes.json")
        rc = latest_changes.main(
            ["--env", "latest", "--old", self.write("old.json", OLD),
             "--new", self.write("new.json", NEW), "--baseline", "latest",
             "--baseline", "frameworks", "--suppressions", self.write("s.txt", SUPPRESSIONS),
             "--suppressions", self.write("env-frameworks.txt", "DEV-2 torch@2.13* x [repro: g]"),
             "--suppressions", self.write("env-mxnet.txt", "FLAG-2 torch@2.13* x [repro: b]"),
             "--write", changes, *extra], out)
        self.assertEqual(rc, 0)
        with open(changes, encoding="utf-8") as f:
            return out.getvalue(), json.load(f)

    def test_new_gone_changed(self):
        text, changes = self.run_main()
        self.assertEqual(changes["baseline"], "frameworks")
        self.assertEqual([c["id"] for c in changes["new"]],
                         ["pairs/latest/torch@2.15.0/jax@0.12.0.1/bool_scalar"])
        self.assertEqual([c["id"] for c in changes["gone"]],
                         ["pairs/frameworks/numpy@2.4.6/torch@2.13.0/f32_copy"])
        self.assertEqual([(o["verdict"], n["verdict"]) for o, n in changes["changed"]],
                         [("fail", "crash")])
        self.assertIn("new findings: 1\n  DT-3 misread (fail), torch -> jax: 1 case\n"
                      "    pairs/latest/torch@2.15.0/jax@0.12.0.1/bool_scalar\n"
                      "    detail: detail of bool_scalar\n", text)
        self.assertIn("gone findings: 1\n  FLAG-2 missing-flag (fail), numpy -> torch", text)
        self.assertIn("compared with the committed report's frameworks cases", text)

    def test_stale_suppressions(self):
        text, changes = self.run_main()
        stale = {(os.path.basename(s["file"]), s["rule"], s["party"]): s
                 for s in changes["stale"]}
        # Fixed in the new release; and still shown, but the pattern names the old release: in
        # a file of no environment, and in the baseline's. Another environment's file (mxnet's,
        # the same entry as the first) is its own pins' business.
        self.assertEqual(sorted(stale), [("env-frameworks.txt", "DEV-2", "torch@2.13*"),
                                         ("s.txt", "FLAG-2", "torch@2.13*"),
                                         ("s.txt", "LAY-4", "torch@2.13*"),
                                         ("s.txt", "LAY-8", "torch@2.13*")])
        stale = {(k[1], k[2]): v for k, v in stale.items() if k[0] == "s.txt"}
        self.assertEqual(stale[("FLAG-2", "torch@2.13*")]["still_shown"], 0)
        self.assertEqual(stale[("LAY-8", "torch@2.13*")]["still_shown"], 1)
        self.assertIn("s.txt:3: FLAG-2 torch@2.13*: none of its 1 cases shows a finding now: "
                      "fixed in the new release?", text)
        self.assertIn("s.txt:2: LAY-8 torch@2.13*: its finding still shows (1 of 1 cases) under "
                      "the new release: the party pattern names the old one", text)
        # In use (DEV-2 numpy), between frameworks the run lacks (pyarrow), or never in the
        # baseline (numpy@2.3*): not stale.
        self.assertNotIn(("DEV-2", "numpy"), stale)
        self.assertNotIn(("LAY-8", "pyarrow@26*"), stale)
        self.assertNotIn(("DT-1", "numpy@2.3*"), stale)

    def test_own_baseline_first(self):
        old = OLD + [case("latest", "numpy@2.5.4", "torch@2.15.0", "f32_copy", "fail", "FLAG-2",
                          "missing-flag")]
        out = io.StringIO()
        rc = latest_changes.main(
            ["--env", "latest", "--old", self.write("old2.json", old),
             "--new", self.write("new.json", NEW), "--baseline", "latest",
             "--baseline", "frameworks"], out)
        self.assertEqual(rc, 0)
        text = out.getvalue()
        self.assertIn("compared with the committed report's latest cases", text)
        # Against its own earlier run (numpy 2.5.4): every other finding of the run is new.
        self.assertIn("new findings: 5", text)
        self.assertIn("gone findings: 1", text)

    def test_pins(self):
        old = self.write("old.txt", "# x: y\n# Generated by: z\nnumpy==2.5.4\ntorch==2.15.0\n"
                                    "Jinja2==3.1.6\nold_dep==1\n")
        new = self.write("new.txt", "# x: y\nnumpy==2.5.5\ntorch==2.15.0\njinja2==3.1.6\n"
                                    "new-dep==2\n")
        text, _ = self.run_main("--old-pins", old, "--new-pins", new)
        self.assertIn("[latest] latest: pins changed: 3\n  + new-dep 2\n    numpy 2.5.4 -> 2.5.5\n"
                      "  - old-dep 1\n", text)

    def test_unreadable_report(self):
        rc = latest_changes.main(["--env", "latest", "--old", "/nonexistent.json",
                                  "--new", "/nonexistent.json"], io.StringIO())
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
