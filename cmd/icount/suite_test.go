package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// TestSuiteMatchesSeparateRuns is acceptance 6: a suite of three
// benchmarks run two at a time gives the counts of three separate runs,
// down to every function and hot block.
func TestSuiteMatchesSeparateRuns(t *testing.T) {
	crunch := testProgram(t, "c/crunch-musl")
	textstat := testProgram(t, "c/textstat-musl")
	empty := testProgram(t, "c/empty-glibc")
	input := filepath.Join(repoRoot, "testdata", "c", "textstat.c")
	stdin, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), `
[[bench]]
name = "crunch"
binary = "`+crunch+`"

[[bench]]
name = "textstat"
binary = "`+textstat+`"
stdin = "`+input+`"
env = ["MODE=suite"]

[[bench]]
name = "empty"
binary = "`+empty+`"
args = ["a", "b"]
`)
	status, stdout, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--jobs", "2", "--seed", "5", "--save", "s")
	if status != 0 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	if stdout != "" {
		t.Errorf("the suite wrote on stdout: %q", stdout)
	}
	for _, name := range []string{"crunch", "textstat", "empty"} {
		if !strings.Contains(stderr, "icount: "+name+" ") {
			t.Errorf("no row for %s:\n%s", name, stderr)
		}
	}
	separate := map[string]result{
		"crunch":   runIcount(t, nil, []string{"--seed", "5"}, crunch),
		"textstat": runIcount(t, stdin, []string{"--seed", "5", "--env", "MODE=suite"}, textstat),
		"empty":    runIcount(t, nil, []string{"--seed", "5"}, empty, "a", "b"),
	}
	for name, r := range separate {
		saved, err := profile.Read(filepath.Join(dir, ".icount", "s", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		one := r.profile
		if one == nil {
			t.Fatalf("%s: no profile from the separate run\n%s", name, r.stderr)
		}
		if saved.Totals != one.Totals || !reflect.DeepEqual(saved.Functions, one.Functions) ||
			!reflect.DeepEqual(saved.HotBlocks, one.HotBlocks) || !reflect.DeepEqual(saved.Exit, one.Exit) {
			t.Errorf("%s: the suite counted %+v, a separate run %+v", name, saved.Totals, one.Totals)
		}
		if !reflect.DeepEqual(saved.Meta.Args, one.Meta.Args) || !reflect.DeepEqual(saved.Meta.Env, one.Meta.Env) || saved.Meta.Seed != 5 {
			t.Errorf("%s: run with other settings: %+v vs %+v", name, saved.Meta, one.Meta)
		}
		t.Logf("%s: %d instructions in the suite and alone", name, saved.Totals.Instructions)
	}

	// The same suite against its saved baseline: no change anywhere.
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "--jobs", "3", "--seed", "5", "--baseline", "s", "--fail-above", "0")
	if status != 0 || !strings.Contains(stderr, "icount: verdict: no change in any benchmark (3 benchmarks; unchanged: crunch, textstat, empty)") {
		t.Errorf("against its baseline: status %d\n%s", status, stderr)
	}
	// And the saved directories diff as a suite.
	status, out, stderr := icountIn(t, dir, "diff", ".icount/s", ".icount/s")
	if status != 0 || !strings.Contains(out, "benchmark crunch") {
		t.Errorf("diff of two directories: status %d\n%s%s", status, out, stderr)
	}
}

// TestSuiteMemberFails: a member that fails is named with its status and
// its last words; nothing is saved.
func TestSuiteMemberFails(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), `
[[bench]]
name = "ok"
binary = "`+testProgram(t, "c/empty-musl")+`"

[[bench]]
name = "missing"
binary = "no/such/program"
`)
	status, _, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--save", "x")
	if status != exitNotFound || !strings.Contains(stderr, "icount: missing: exit status 127: no/such/program") {
		t.Errorf("status %d, want %d\n%s", status, exitNotFound, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".icount", "x")); !os.IsNotExist(err) {
		t.Errorf("a failed suite was saved")
	}
	write(t, filepath.Join(dir, "bad.toml"), "[[bench]]\nname = \"a\"\n")
	status, _, stderr = icountIn(t, dir, "run", "--suite", "bad.toml")
	if status != exitUsage || !strings.Contains(stderr, `icount: bad.toml: benchmark "a": no binary`) {
		t.Errorf("bad suite: status %d\n%s", status, stderr)
	}
	// A benchmark must exit 0 (amd64/loop exits 20).
	write(t, filepath.Join(dir, "loop.toml"), "[[bench]]\nname = \"loop\"\nbinary = \""+testProgram(t, "amd64/loop")+"\"\n")
	status, _, stderr = icountIn(t, dir, "run", "--suite", "loop.toml")
	if status != 20 || !strings.Contains(stderr, "icount: loop: the program exited with status 20 (a benchmark must exit 0)") {
		t.Errorf("member exiting 20: status %d\n%s", status, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "--json", "one.json")
	if status != exitUsage || !strings.Contains(stderr, "--json with --suite: every benchmark would write the same file") {
		t.Errorf("--json with a suite: status %d\n%s", status, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "extra")
	if status != exitUsage {
		t.Errorf("suite with a BINARY: status %d\n%s", status, stderr)
	}
}

// TestBaseline: --save keeps the Profile under .icount/, --baseline
// compares with it, and a gate makes growth exit 3.
func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	copyFile(t, testProgram(t, "c/empty-musl"), prog)
	status, _, stderr := icountIn(t, dir, "run", "--save", "main", prog)
	if status != 0 || !strings.Contains(stderr, "icount: saved as baseline main (.icount/main.json)") {
		t.Fatalf("--save: status %d\n%s", status, stderr)
	}
	saved, err := profile.Read(filepath.Join(dir, ".icount", "main.json"))
	if err != nil {
		t.Fatal(err)
	}
	status, _, stderr = icountIn(t, dir, "run", "--baseline", "main", "--fail-above", "0", prog)
	if status != 0 || !strings.Contains(stderr, "icount: verdict: no change: the binaries are identical") {
		t.Errorf("same program: status %d\n%s", status, stderr)
	}
	// More work behind the same name and arguments.
	copyFile(t, testProgram(t, "c/crunch-musl"), prog)
	status, _, stderr = icountIn(t, dir, "run", "--baseline", "main", "--fail-above", "1", prog)
	if status != exitRegression || !strings.Contains(stderr, "icount: verdict: regression: total instructions +") {
		t.Errorf("more work: status %d, want %d\n%s", status, exitRegression, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "-q", "--baseline", "main", "--fail-above", "1", prog)
	if status != exitRegression || strings.Count(stderr, "icount: ") != 1 {
		t.Errorf("-q: status %d, want only the verdict\n%s", status, stderr)
	}
	// No gate: the growth is reported and exits 0; the saved file is
	// untouched without --save.
	status, _, stderr = icountIn(t, dir, "run", "--baseline", "main", prog)
	if status != 0 || !strings.Contains(stderr, "no gate is set") {
		t.Errorf("no gate: status %d\n%s", status, stderr)
	}
	if again, _ := profile.Read(filepath.Join(dir, ".icount", "main.json")); !reflect.DeepEqual(again, saved) {
		t.Error("--baseline rewrote the baseline")
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "--baseline", "nope", prog}, `no baseline "nope": .icount/nope.json does not exist`},
		{[]string{"run", "--save", "../up", prog}, `baseline name "../up"`},
	} {
		if status, _, stderr := icountIn(t, dir, c.args...); status != exitUsage || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: status %d\n%s", c.args, status, stderr)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestDiffIncomparable is acceptance 3 on real runs: other arguments,
// another clock table, and a run that read the host clock against a
// pinned one each give the warning and no verdict.
func TestDiffIncomparable(t *testing.T) {
	dir := t.TempDir()
	rdtsc := testProgram(t, "amd64/rdtsc")
	loop := testProgram(t, "amd64/loop")
	save := func(name string, flags []string, prog string, args ...string) string {
		r := runIcount(t, nil, flags, prog, args...)
		if r.profile == nil {
			t.Fatalf("%s: no profile\n%s", name, r.stderr)
		}
		p := filepath.Join(dir, name+".json")
		if err := writeProfile(p, r.profile); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write(t, filepath.Join(dir, "t1"), "1000\n2000\n3000\n")
	write(t, filepath.Join(dir, "t2"), "1000\n5000\n9000\n")
	for _, c := range []struct {
		name       string
		base, head string
		want       string
	}{
		{"args", save("a1", nil, loop), save("a2", nil, loop, "x"), `arguments differ: base ["loop"], head ["loop","x"]`},
		{"clock table", save("t1", []string{"--fixed-clock", "--clock-table", filepath.Join(dir, "t1")}, rdtsc),
			save("t2", []string{"--fixed-clock", "--clock-table", filepath.Join(dir, "t2")}, rdtsc), "clock tables (by SHA-256) differ"},
		{"not pinned", save("pinned", []string{"--fixed-clock"}, rdtsc), save("host", nil, rdtsc),
			"the head run is not pinned: it read the host clock 4 times"},
	} {
		status, out, stderr := icountIn(t, dir, "diff", "--fail-above", "0", c.base, c.head)
		if status != exitNoVerdict || !strings.Contains(out, "warning: cannot compare: "+c.want) || !strings.Contains(out, "verdict: no verdict: the profiles cannot be compared") {
			t.Errorf("%s: status %d\n%s%s", c.name, status, out, stderr)
		}
		status, out, _ = icountIn(t, dir, "diff", "--format", "json", "--allow-no-verdict", c.base, c.head)
		var d diffJSON
		if d = parseDiff(t, out); status != 0 || d.Verdict.Kind != "none" || len(d.Benches[0].Incomparable) == 0 {
			t.Errorf("%s (json): status %d, verdict %+v", c.name, status, d.Verdict)
		}
	}
	// Bad input names the file and exits 2.
	write(t, filepath.Join(dir, "junk.json"), "{}")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"diff", "junk.json", "a1.json"}, `junk.json: not an icount profile: it has no schema`},
		{[]string{"diff", "nope.json", "a1.json"}, "nope.json: no such file"},
		{[]string{"diff", "--config", "t1", "a1.json", "a1.json"}, "t1: "},
		{[]string{"diff", "a1.json", "."}, "compare two Profiles or two directories"},
	} {
		if status, _, stderr := icountIn(t, dir, c.args...); status != exitUsage || !strings.Contains(stderr, c.msg) {
			t.Errorf("%q: status %d, want %d with %q\n%s", c.args, status, exitUsage, c.msg, stderr)
		}
	}
}
