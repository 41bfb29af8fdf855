#!/usr/bin/env python3
"""Checks a composite action's metadata (action.yml) and prints its steps as
a workflow for actionlint, which lints workflows only: a reusable workflow
whose inputs are the action's, so that ${{ inputs.X }} is checked against
them, with one job holding the steps.

Usage: scripts/action-workflow.py ACTION.yml > workflow.yml"""

import os
import re
import sys

import yaml


def fail(path, msg):
    sys.exit(f"{path}: {msg}")


def main(path):
    with open(path) as f:
        action = yaml.safe_load(f)
    for key in ("name", "description", "runs"):
        if key not in action:
            fail(path, f"no {key}")
    runs = action["runs"]
    if runs.get("using") != "composite":
        fail(path, f"runs.using is {runs.get('using')!r}, not composite")
    inputs = action.get("inputs") or {}
    for name, spec in inputs.items():
        if not (spec or {}).get("description"):
            fail(path, f"input {name} has no description")
    ids = set()
    for i, step in enumerate(runs.get("steps") or []):
        if "run" in step and "shell" not in step:
            fail(path, f"step {i + 1} ({step.get('name', '')}) runs a script without a shell")
        if "id" in step:
            ids.add(step["id"])
        # A script of the action's own, named by its path, must be there.
        for script in re.findall(r"\$GITHUB_ACTION_PATH/([\w./-]+)", step.get("run", "")):
            file = os.path.join(os.path.dirname(path), script)
            if not os.access(file, os.X_OK):
                fail(path, f"step {i + 1} runs {script}, which is not an executable file")
    for name, spec in (action.get("outputs") or {}).items():
        for step in re.findall(r"steps\.([\w-]+)\.", str((spec or {}).get("value", ""))):
            if step not in ids:
                fail(path, f"output {name} names step {step}, which the action does not have")
    workflow = {
        "name": f"the steps of {path}",
        "on": {"workflow_call": {"inputs": {n: {"type": "string", "required": False} for n in inputs}}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": runs["steps"]}},
    }
    yaml.safe_dump(workflow, sys.stdout, sort_keys=False, width=1000)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
