#!/usr/bin/env bash
# Runs the example workflow's shell steps as the GitHub runner would, against a staged install of
# this build, in a scratch "framework repository" holding the README's example adapter.
#   examples/github-actions/workflow_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=${1:?usage: workflow_test.sh BUILD_DIR SOURCE_DIR}
src=${2:?usage: workflow_test.sh BUILD_DIR SOURCE_DIR}
repo=$(mktemp -d /tmp/dlconform-workflow-XXXXXX)
trap 'rm -rf "$repo"' EXIT
cp "$src/examples/example_consumer.c" "$repo/dlpack_adapter.c"
cp "$src/examples/github-actions/dlconform-suppressions.txt" "$repo/"

# apt-get needs root and the network; CI installed the same packages already.
python3 "$src/examples/github-actions/run_steps.py" "$src/examples/github-actions/dlconform.yml" \
  "$repo" --skip "Install build tools" --install-from "$build"

for f in dlconform.html dlconform.xml dlconform.md dlconform.json libdlpack_adapter.so; do
  [[ -s $repo/$f ]] || { echo "workflow_test: expected $f in the workspace but found none"; exit 1; }
done
python3 - "$repo/dlconform.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall(".//testcase")
failures = root.findall(".//failure")
assert len(cases) > 100, f"expected the adapter's cases in the JUnit file but found {len(cases)}"
assert not failures, f"expected no failures but found {len(failures)}"
print(f"junit: {len(cases)} test cases, 0 failures")
PY
grep -q "example-consumer" "$repo/dlconform.json"
echo "workflow: every shell step ran; report, JUnit and summary written"
