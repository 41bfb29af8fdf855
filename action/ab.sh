#!/usr/bin/env bash
# Runs `icount ab` for the action (action.yml), its inputs in INPUT_*
# variables, and writes the report into $RUNNER_TEMP/icount-report: the
# files of icount's --report-dir, and status, ab's exit status. Sets the
# step's outputs status, verdict and report-dir, and writes the job
# summary. It exits 0 whatever ab did: the action fails its last step.
set -uo pipefail

report="$RUNNER_TEMP/icount-report"
rm -rf "$report"
mkdir -p "$report"
echo "report-dir=$report" >> "$GITHUB_OUTPUT"

# words splits $1 as the shell would (quotes and backslashes), without
# running anything, into NUL-terminated words.
words() {
  [ -n "$1" ] && printf '%s' "$1" | xargs printf '%s\0'
}

base=$INPUT_BASE
if [ -z "$base" ]; then
  if [ -z "${GITHUB_BASE_REF:-}" ]; then
    echo "::error::icount: give the base input: this event ($GITHUB_EVENT_NAME) is not a pull request"
    echo "status=2" >> "$GITHUB_OUTPUT"
    echo 2 > "$report/status"
    exit 0
  fi
  base="origin/$GITHUB_BASE_REF"
fi
if ! git rev-parse --verify --quiet "$base^{commit}" >/dev/null && [ "${base#origin/}" != "$base" ]; then
  # A shallow checkout has the head only: ab needs just the base's commit.
  git fetch --no-tags --depth=1 origin "+refs/heads/${base#origin/}:refs/remotes/$base"
fi

run_url="$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID"
flags=(--base "$base" --build "$INPUT_BUILD" --report-dir "$report" --top "$INPUT_TOP"
       --full-report "the artifact $INPUT_ARTIFACT of $run_url")
[ -n "$INPUT_BIN" ] && flags+=(--bin "$INPUT_BIN")
[ -n "$INPUT_SUITE" ] && flags+=(--suite "$INPUT_SUITE")
[ -n "$INPUT_FAIL_ABOVE" ] && flags+=(--fail-above "$INPUT_FAIL_ABOVE")
[ -n "$INPUT_CONFIG" ] && flags+=(--config "$INPUT_CONFIG")
[ "$INPUT_ALLOW_NO_VERDICT" = true ] && flags+=(--allow-no-verdict)
for input in "$INPUT_RUN_FLAGS" "$INPUT_ARGS"; do
  if [ -n "$input" ] && ! words "$input" >/dev/null; then
    echo "::error::icount: cannot split '$input' into words (an unmatched quote?)"
    echo "status=2" >> "$GITHUB_OUTPUT"
    echo 2 > "$report/status"
    exit 0
  fi
done
mapfile -d '' extra < <(words "$INPUT_RUN_FLAGS")
mapfile -d '' args < <(words "$INPUT_ARGS")

git config --global --add safe.directory "$PWD"
echo "icount ab ${flags[*]} ${extra[*]} -- ${args[*]}"
icount ab "${flags[@]}" "${extra[@]}" -- "${args[@]}"
status=$?
echo "$status" > "$report/status"
echo "status=$status" >> "$GITHUB_OUTPUT"
verdict=none
if [ -f "$report/report.json" ]; then
  verdict=$(jq -r .verdict.kind "$report/report.json")
fi
echo "verdict=$verdict" >> "$GITHUB_OUTPUT"

if [ -f "$report/report.md" ]; then
  cat "$report/report.md" >> "$GITHUB_STEP_SUMMARY"
else
  echo "❌ **icount**: icount ab exited $status without a report (a build or a benchmark failed; see the log)" >> "$GITHUB_STEP_SUMMARY"
fi
exit 0
