#!/usr/bin/env bash
# Checks the GitHub Action (make test): actionlint on the example workflows
# (docs/workflows, and those docs/ci.md shows) and on each action's steps (action.yml, action/*/action.yml),
# which actionlint reads only as a workflow: scripts/action-workflow.py
# makes one of them, after checking the action's metadata; then the tests
# of the comment logic.
# Usage: scripts/check-action.sh ACTIONLINT
set -euo pipefail

actionlint=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The workflows docs/ci.md shows, each yaml block a file.
awk -v dir="$tmp" '/^```yaml$/ {n++; f = dir "/ci.md-" n ".yml"; next} /^```$/ {f = ""} f {print > f}' docs/ci.md
"$actionlint" docs/workflows/*.yml "$tmp"/ci.md-*.yml
for action in action.yml action/*/action.yml; do
  wf="$tmp/$(echo "$action" | tr '/' '-')"
  # Debian's python3, with python3-yaml (make deps installs it).
  /usr/bin/python3 scripts/action-workflow.py "$action" > "$wf"
  if ! out=$("$actionlint" -no-color "$wf" 2>&1); then
    echo "check-action: $action, its steps made a workflow (the lines are the workflow's):"
    printf '%s\n' "$out"
    exit 1
  fi
done

node --test action/comment.test.js >/dev/null || node --test action/comment.test.js
echo "check-action: the action, its example workflows and the comment's tests pass"
