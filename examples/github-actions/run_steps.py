#!/usr/bin/env python3
"""Runs the shell steps of a GitHub Actions workflow locally, the way the runner would.

  run_steps.py WORKFLOW WORKSPACE [--skip NAME]... [--install-from BUILD_DIR]
               [--input NAME=VALUE]... [--action-path DIR]

Each `run:` step runs with bash -e in WORKSPACE, with GITHUB_ENV, GITHUB_PATH, GITHUB_STEP_SUMMARY
and RUNNER_TEMP set; what a step appends to GITHUB_ENV and GITHUB_PATH reaches the next steps.
`uses:` steps (checkout, artifact upload, JUnit publishing) need GitHub and are listed, not run.
--install-from replaces the step "Build and install dlconform" by a DESTDIR install of an
existing build, so that a test does not compile dlconform twice; the steps after it run as written.
A composite action (action.yml) runs the same way: `${{ inputs.NAME }}` takes --input NAME=VALUE
(else the input's default), and `${{ github.action_path }}` --action-path.
Exits non-zero, naming the step, when a step fails."""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile


def steps_of(path):
    """The steps of the workflow's job: [{'name', 'uses', 'if', 'run'}], read from the block
    layout GitHub's own examples use (no YAML library needed)."""
    steps, current, block = [], None, None
    in_steps, steps_indent, block_indent = False, None, 0
    for line in open(path, encoding="utf-8").read().splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if block is not None:
            if stripped and indent < block_indent:
                current["run"] = "\n".join(block).rstrip("\n") + "\n"
                block = None
            else:
                block.append(line[block_indent:])
                continue
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == "steps:":
            in_steps = True
            continue
        if not in_steps:
            continue
        if stripped.startswith("- "):
            steps_indent = indent if steps_indent is None else steps_indent
            if indent == steps_indent:
                current = {}
                steps.append(current)
                stripped, indent = stripped[2:], indent + 2
        if current is None or indent != steps_indent + 2:
            continue  # nested keys (with:) belong to the action
        key, _, value = stripped.partition(":")
        value = value.strip()
        if key in ("name", "uses", "if"):
            current[key] = value
        elif key == "run":
            if value == "|":
                block, block_indent = [], indent + 2
            else:
                current["run"] = value + "\n"
    if block is not None:
        current["run"] = "\n".join(block).rstrip("\n") + "\n"
    return steps


def defaults_of(path):
    """A composite action's inputs and their defaults: {name: default} ('' when none)."""
    values, in_inputs, name = {}, False, None
    for line in open(path, encoding="utf-8").read().splitlines():
        stripped = line.strip()
        if not line.startswith(" ") and stripped:
            in_inputs = stripped == "inputs:"
            continue
        if not in_inputs or not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        key, _, value = stripped.partition(":")
        if indent == 2:
            name = key
            values[name] = ""
        elif name is not None and key == "default":
            values[name] = value.strip().strip("'\"")
    return values


def expand(script, values, action_path):
    """${{ inputs.NAME }} and ${{ github.action_path }}, as the runner substitutes them."""
    import re

    def one(match):
        expression = match.group(1).strip()
        if expression == "github.action_path":
            return action_path
        if expression.startswith("inputs."):
            return values.get(expression[len("inputs."):], "")
        raise SystemExit(f"run_steps: expected inputs.NAME or github.action_path but found "
                         f"${{{{ {expression} }}}}")
    return re.sub(r"\$\{\{(.*?)\}\}", one, script)


def apply_exports(env, env_file, path_file):
    with open(env_file, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, _, value = line.rstrip("\n").partition("=")
                env[key] = value
    open(env_file, "w").close()
    with open(path_file, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                env["PATH"] = line.strip() + os.pathsep + env["PATH"]
    open(path_file, "w").close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workflow")
    parser.add_argument("workspace")
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--install-from")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--action-path", default="")
    args = parser.parse_args()
    steps = steps_of(args.workflow)
    values = defaults_of(args.workflow)
    values.update(dict(item.partition("=")[::2] for item in args.input))
    if not any("run" in s for s in steps):
        sys.exit(f"run_steps: {args.workflow}: expected run: steps but found none")
    temp = tempfile.mkdtemp(prefix="runner-temp-")
    files = {name: os.path.join(temp, name) for name in ("env", "path", "summary.md")}
    for f in files.values():
        open(f, "w").close()
    env = dict(os.environ, GITHUB_ENV=files["env"], GITHUB_PATH=files["path"],
               GITHUB_STEP_SUMMARY=files["summary.md"], RUNNER_TEMP=temp,
               GITHUB_WORKSPACE=os.path.abspath(args.workspace), CI="true")
    failed = False
    for step in steps:
        name = step.get("name", step.get("uses", "?"))
        if "run" not in step:
            print(f"[step] {name}: uses {step.get('uses')}: needs GitHub, not run here")
            continue
        if name in args.skip or (failed and "always()" not in step.get("if", "")):
            print(f"[step] {name}: skipped")
            continue
        script = expand(step["run"], values, args.action_path)
        if name == "Build and install dlconform" and args.install_from:
            stage = os.path.join(temp, "stage")
            script = (f"meson install -C {shlex.quote(args.install_from)} --destdir {stage} "
                      "--no-rebuild --quiet >/dev/null\n"
                      f"echo \"$(dirname \"$(find {stage} -path '*/bin/dlconform')\")\" >> \"$GITHUB_PATH\"\n"
                      f"echo \"PKG_CONFIG_PATH=$(dirname \"$(find {stage} -name dlconform.pc)\")\" >> \"$GITHUB_ENV\"\n"
                      f"echo \"PKG_CONFIG_SYSROOT_DIR={stage}\" >> \"$GITHUB_ENV\"\n")
            print(f"[step] {name}: replaced by a staged install of {args.install_from}")
        else:
            print(f"[step] {name}")
        rc = subprocess.run(["bash", "-e", "-c", script], cwd=args.workspace, env=env).returncode
        if rc != 0:
            print(f"[step] {name}: failed with exit {rc}")
            failed = True
        apply_exports(env, files["env"], files["path"])
    summary = open(files["summary.md"], encoding="utf-8").read()
    print(f"[summary] {len(summary.splitlines())} lines in GITHUB_STEP_SUMMARY")
    print(summary[:600])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
