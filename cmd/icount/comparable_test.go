package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// saveRun runs icount run --json FILE with the flags and the program in
// dir, the program's stdout going to stdout (nil: a pipe), and returns
// FILE.
func saveRun(t *testing.T, dir, name string, stdout *os.File, flags []string, prog string, args ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".json")
	cmd := exec.Command(icountBin, append(append(append([]string{"run", "-q", "--json", file}, flags...), prog), args...)...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Stdout = &bytes.Buffer{}
	if stdout != nil {
		cmd.Stdout = stdout
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, errb.String())
	}
	return file
}

// TestNoVerdictNamesWhat: two runs that differ in something but the code
// give no verdict (status 4, or 0 with --allow-no-verdict), and the
// reason names what differs: an input file by path and digest, the kind
// of stdout, the working directory the program read; a run that did not
// read its working directory compares from anywhere.
func TestNoVerdictNamesWhat(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data.txt")
	write(t, data, "one\n")
	dir := t.TempDir()
	flags := []string{"--fixed-clock", "--host-tmp"}
	base := saveRun(t, dir, "base", nil, flags, "/bin/cat", data)
	write(t, data, "one\ntwo\n")
	head := saveRun(t, dir, "head", nil, flags, "/bin/cat", data)
	status, out, stderr := icountIn(t, dir, "diff", base, head)
	want := "input file the program read changed: " + data + " (base 4 bytes, SHA-256 "
	if status != exitNoVerdict || !strings.Contains(out, want) || !strings.Contains(out, "head 8 bytes") {
		t.Errorf("changed input: status %d, want %d and %q\n%s%s", status, exitNoVerdict, want, out, stderr)
	}
	if status, _, _ := icountIn(t, dir, "diff", "--allow-no-verdict", base, head); status != 0 {
		t.Errorf("--allow-no-verdict: status %d", status)
	}

	// stdout a file on one side, a pipe on the other.
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	toFile := saveRun(t, dir, "file", f, flags, "/bin/echo", "hi")
	toPipe := saveRun(t, dir, "pipe", nil, flags, "/bin/echo", "hi")
	status, out, _ = icountIn(t, dir, "diff", toFile, toPipe)
	if status != exitNoVerdict || !strings.Contains(out, "stdout differs: base a file, head a pipe") {
		t.Errorf("stdout kinds: status %d\n%s", status, out)
	}

	// pwd reads its working directory (getcwd); true does not.
	short, long := t.TempDir(), filepath.Join(t.TempDir(), "a-much-longer-directory-name")
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	status, out, _ = icountIn(t, dir, "diff", saveRun(t, short, "pwd1", nil, flags, "/bin/pwd"), saveRun(t, long, "pwd2", nil, flags, "/bin/pwd"))
	want = "the working directories differ and the program read its own (getcwd): base " + short + ", head " + long
	if status != exitNoVerdict || !strings.Contains(out, want) {
		t.Errorf("cwd read: status %d, want %q\n%s", status, want, out)
	}
	status, out, _ = icountIn(t, dir, "diff", saveRun(t, short, "true1", nil, flags, "/bin/true"), saveRun(t, long, "true2", nil, flags, "/bin/true"))
	if status != 0 || !strings.Contains(out, "verdict: no change") {
		t.Errorf("cwd not read: status %d\n%s", status, out)
	}

	// A --count-only run against a full one: the totals and self costs
	// compare (a stripped binary's unnamed code may split into functions
	// otherwise on the side that saw the calls), and icount is not blamed.
	full := saveRun(t, dir, "full", nil, flags, "/bin/true")
	only := saveRun(t, dir, "only", nil, append([]string{"--count-only"}, flags...), "/bin/true")
	status, out, _ = icountIn(t, dir, "diff", full, only)
	if status != 0 || !strings.Contains(out, "the head run was --count-only") || !regexp.MustCompile(`\ninstructions +([\d,]+) +([\d,]+) +0 `).MatchString(out) ||
		strings.Contains(out, "no verdict") {
		t.Errorf("count-only side: status %d\n%s", status, out)
	}
}

// TestBaselinePinsClock: --save and --baseline pin the clock, so that a
// dynamically linked glibc program (ld.so reads the time stamp counter)
// gets a verdict with no clock flag; --host-clock gives none, status 4,
// and says why.
func TestBaselinePinsClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if status, _, stderr := icountIn(t, dir, "run", "-q", "--save", "b", "/bin/true"); status != 0 {
		t.Fatalf("--save: status %d\n%s", status, stderr)
	}
	status, _, stderr := icountIn(t, dir, "run", "--baseline", "b", "--fail-above", "0", "/bin/true")
	if status != 0 || !strings.Contains(stderr, "verdict: no change") {
		t.Errorf("pinned: status %d\n%s", status, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "--host-clock", "--baseline", "b", "--fail-above", "0", "/bin/true")
	if status != exitNoVerdict || !strings.Contains(stderr, "clock modes differ: base \"fixed\", head \"host\"") ||
		!regexp.MustCompile(`the head run is not pinned: it read the host clock \d+ times: rdtsc \d+`).MatchString(stderr) {
		t.Errorf("--host-clock: status %d, want %d\n%s", status, exitNoVerdict, stderr)
	}
	if status, _, stderr := icountIn(t, dir, "run", "--host-clock", "--fixed-clock", "--save", "c", "/bin/true"); status != exitUsage ||
		!strings.Contains(stderr, "--host-clock and a fixed clock's flag") {
		t.Errorf("--host-clock --fixed-clock: status %d\n%s", status, stderr)
	}
}

// TestDiffRefusesGutted: a Profile with members deleted or emptied does
// not read as zero instructions (which would hide a regression as an
// improvement): diff refuses it, status 2, naming what is wrong.
func TestDiffRefusesGutted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := saveRun(t, dir, "good", nil, []string{"--fixed-clock"}, "/bin/true")
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func(m map[string]any)
		msg    string
	}{
		{"no totals", func(m map[string]any) { delete(m, "totals") }, `the profile has no "totals"`},
		{"no functions", func(m map[string]any) { delete(m, "functions"); delete(m, "call_tree") }, `the profile has no "functions"`},
		{"empty functions", func(m map[string]any) { m["functions"] = []any{} }, "the functions' self costs sum to 0, the run counted"},
		{"no meta", func(m map[string]any) { delete(m["meta"].(map[string]any), "settings") }, `meta has no "settings"`},
		{"zero total", func(m map[string]any) { m["totals"].(map[string]any)["instructions"] = 0 }, "the processes' totals"},
		{"huge total", func(m map[string]any) { m["totals"].(map[string]any)["instructions"] = uint64(1) << 63 }, "totals: a count of 9223372036854775808 is over"},
	} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		c.change(m)
		gutted, _ := json.Marshal(m)
		file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".json")
		write(t, file, string(gutted))
		status, out, stderr := icountIn(t, dir, "diff", good, file)
		if status != exitUsage || !strings.Contains(stderr, file+": not a valid icount profile: "+c.msg) || out != "" {
			t.Errorf("%s: status %d, want %d and %q\n%s%s", c.name, status, exitUsage, c.msg, out, stderr)
		}
	}
}

// stateC reads a file outside the tree, works once per line of it, and
// adds a line: each run reads another input than the one before.
const stateC = `#include <stdio.h>
int main(int argc, char **argv) {
	FILE *f = fopen(argv[1], "a+");
	if (!f)
		return 1;
	unsigned n = 0, h = 0;
	for (int c; (c = getc(f)) != EOF;)
		n += c == '\n', h = h * 31 + c;
	fputs("another line\n", f);
	printf("%u %u\n", n, h);
	return 0;
}
`

// TestABNamesChangedInput is acceptance 2 of issue 16, its last part: an
// input outside the tree that changed between the base's run and the
// head's (the benchmark keeps state in it) gives no verdict, status 4,
// naming the file with both digests; the dynamically linked glibc
// benchmark has no clock flag, and the clock is no reason.
func TestABNamesChangedInput(t *testing.T) {
	t.Parallel()
	dir := gitRepoOf(t, stateC, "gcc -O2")
	state := filepath.Join(t.TempDir(), "state.txt")
	write(t, state, "a first line\n")
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--host-tmp", "--", state)
	want := "input file the program read changed: " + state + " (base 13 bytes, SHA-256 "
	if status != exitNoVerdict || !strings.Contains(out, want) || !strings.Contains(out, "head 26 bytes") || strings.Contains(out, "not pinned") {
		t.Errorf("status %d, want %d and %q\n%s%s", status, exitNoVerdict, want, out, stderr)
	}
	assertNoWorktree(t, dir)
}

// TestCompareOutputChecked: diff's and ab's --output is checked before
// anything is compared or built (status 2, one line), and the report is
// written whole.
func TestCompareOutputChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := saveRun(t, dir, "good", nil, []string{"--fixed-clock"}, "/bin/true")
	bad := filepath.Join(dir, "nonexistent", "r.md")
	for _, args := range [][]string{{"diff", "-o", bad, good, good}, {"ab", "--base", "HEAD", "--bin", "bench", "--build", "touch built", "-o", bad}} {
		status, out, stderr := icountIn(t, gitRepo(t), args...)
		if want := "icount: --output " + bad + ": "; status != exitUsage || out != "" || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: status %d, want %d and one line %q...\n%s%s", args[0], status, exitUsage, want, out, stderr)
		}
	}
	report := filepath.Join(dir, "r.md")
	if status, _, stderr := icountIn(t, dir, "diff", "--format", "markdown", "-o", report, good, good); status != 0 {
		t.Fatalf("diff -o: status %d\n%s", status, stderr)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), "no change") {
		t.Errorf("the report: %v\n%s", err, b)
	}
}
