package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// TestSuiteMatchesSeparateRuns is acceptance 6: a suite of three
// benchmarks run two at a time gives the counts of three separate runs,
// down to every function and hot block.
func TestSuiteMatchesSeparateRuns(t *testing.T) {
	t.Parallel()
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

// exitThree builds a static program that exits 3, the status icount
// gives a regression, in dir.
func exitThree(t *testing.T, dir string) string {
	t.Helper()
	write(t, filepath.Join(dir, "three.c"), "int main(void) { return 3; }\n")
	cc := strings.Fields(staticCC(t))
	out, err := exec.Command(cc[0], append(cc[1:], "-o", filepath.Join(dir, "three"), filepath.Join(dir, "three.c"))...).CombinedOutput()
	if err != nil {
		t.Fatalf("building three: %v\n%s", err, out)
	}
	return filepath.Join(dir, "three")
}

// TestSuiteKeepsEveryEntry: one entry of each way to fail (its own exit
// status 3, a fault, a timeout, a missing binary, an argument over
// Linux's 128 KiB, a missing stdin) beside one that runs to its end:
// every entry runs, each has its row and its outcome, the good one's
// Profile and every outcome are saved, and the status is the first
// entry's that icount stopped or refused (124, the timeout), never 3.
func TestSuiteKeepsEveryEntry(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := testProgram(t, "c/empty-musl")
	write(t, filepath.Join(dir, "suite.toml"), `
[[bench]]
name = "ok"
binary = "`+empty+`"

[[bench]]
name = "three"
binary = "`+exitThree(t, dir)+`"

[[bench]]
name = "segv"
binary = "`+testProgram(t, "amd64/fault")+`"

[[bench]]
name = "spin"
binary = "`+testProgram(t, "hostile/amd64/spin")+`"

[[bench]]
name = "missing"
binary = "no/such/program"

[[bench]]
name = "huge"
binary = "`+empty+`"
args = ["`+strings.Repeat("x", 130<<10)+`"]

[[bench]]
name = "nostdin"
binary = "`+empty+`"
stdin = "no-such-input"
`)
	status, _, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--jobs", "2", "--timeout", "2s", "--save", "x")
	if status != exitTimeout {
		t.Errorf("status %d, want %d (the timeout, the first entry icount stopped)\n%s", status, exitTimeout, stderr)
	}
	for _, re := range []string{
		`icount: benchmark +instructions +blocks +syscalls +outcome\n`,
		`icount: ok +596 +192 +3 +ok\n`,
		`icount: three +[0-9,]+ +[0-9,]+ +3 +exit 3\n`,
		`icount: segv +11 +4 +0 +SIGSEGV\n`,
		`icount: spin +[0-9,]+ +[0-9,]+ +0 +stopped: timeout\n`,
		`icount: missing +- +- +- +refused \(127\)\n`,
		`icount: huge +- +- +- +refused \(126\)\n`,
		`icount: nostdin +- +- +- +refused \(2\)\n`,
		"icount: three: exit 3\n",
		"icount: segv: SIGSEGV: access to unmapped address 0x10 by `mov \\(%rdx\\),%rcx` at 0x40101a, in _start\\+0x1a \\(fault\\)\n",
		`icount: spin: stopped: timeout: stopped by --timeout 2s \(wall clock\)\n`,
		`icount: missing: refused \(127\): no/such/program: no such file\n`,
		`icount: huge: refused \(126\): the arguments are over Linux's limits \(128 KiB for one`,
		`icount: nostdin: refused \(2\): stdin: open no-such-input: no such file or directory\n`,
		`icount: saved as baseline x \(.icount/x/\)\n`,
	} {
		if !regexp.MustCompile(re).MatchString(stderr) {
			t.Errorf("no %q in\n%s", re, stderr)
		}
	}
	saved, err := os.ReadDir(filepath.Join(dir, ".icount", "x"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range saved {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"ok.json", report.OutcomesFile}) {
		t.Errorf("saved %q, want the good entry's Profile and the outcomes", names)
	}
	if p, err := profile.Read(filepath.Join(dir, ".icount", "x", "ok.json")); err != nil || p.Totals.Instructions != 596 || !p.Exit.Complete {
		t.Errorf("ok.json: %v %+v", err, p)
	}
	outs, err := report.ReadOutcomes(filepath.Join(dir, ".icount", "x", report.OutcomesFile))
	if err != nil {
		t.Fatal(err)
	}
	want := []report.Outcome{
		{Name: "ok", Class: "ok", Status: 0},
		{Name: "three", Class: "exit", Status: 3},
		{Name: "segv", Class: "signal", Status: 139, Signal: "SIGSEGV"},
		{Name: "spin", Class: "stopped", Status: exitTimeout, Reason: "timeout"},
		{Name: "missing", Class: "refused", Status: exitNotFound},
		{Name: "huge", Class: "refused", Status: exitCannotRun},
		{Name: "nostdin", Class: "refused", Status: exitUsage},
	}
	if len(outs) != len(want) {
		t.Fatalf("%d outcomes saved: %+v", len(outs), outs)
	}
	for i, o := range outs {
		o.Message = ""
		if o != want[i] {
			t.Errorf("outcome %d: %+v, want %+v", i, o, want[i])
		}
	}

	// A benchmark's own failure, with no stop or refusal of icount's, is
	// status 5: its own 3 never reads as a regression, nor a fault as
	// icount's signal.
	write(t, filepath.Join(dir, "two.toml"), "[[bench]]\nname = \"ok\"\nbinary = \""+empty+"\"\n\n[[bench]]\nname = \"three\"\nbinary = \"three\"\n")
	write(t, filepath.Join(dir, "fault.toml"), "[[bench]]\nname = \"segv\"\nbinary = \""+testProgram(t, "amd64/fault")+"\"\n")
	for _, file := range []string{"two.toml", "fault.toml"} {
		if status, _, stderr := icountIn(t, dir, "run", "--suite", file); status != exitBenchmarkFailed {
			t.Errorf("%s: status %d, want %d\n%s", file, status, exitBenchmarkFailed, stderr)
		}
	}
	// Against the baseline: the good entry is compared, the failed ones
	// named on both sides; the failure's status outranks the verdict.
	status, _, stderr = icountIn(t, dir, "run", "--suite", "two.toml", "--baseline", "x", "--fail-above", "0")
	for _, s := range []string{
		"icount: verdict: no change: the binaries are identical",
		"icount: note: benchmark three is not compared: this run's exit 3",
		"icount: note: benchmark three did not run to its end in baseline x: exit 3",
		"icount: note: benchmark spin did not run to its end in baseline x: stopped: timeout",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("against the baseline: no %q in\n%s", s, stderr)
		}
	}
	if status != exitBenchmarkFailed {
		t.Errorf("against the baseline: status %d, want %d", status, exitBenchmarkFailed)
	}
	// Saving again replaces the directory whole: ok fails now, and its
	// earlier Profile is gone.
	write(t, filepath.Join(dir, "broken.toml"), "[[bench]]\nname = \"ok\"\nbinary = \"gone\"\n")
	if status, _, stderr := icountIn(t, dir, "run", "-q", "--suite", "broken.toml", "--save", "x"); status != exitNotFound || stderr != "icount: ok: refused (127): ./gone: no such file\n" {
		t.Errorf("broken suite: status %d\n%s", status, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".icount", "x", "ok.json")); !os.IsNotExist(err) {
		t.Errorf("ok.json of the earlier save is still there (%v)", err)
	}
	if outs, err := report.ReadOutcomes(filepath.Join(dir, ".icount", "x", report.OutcomesFile)); err != nil || len(outs) != 1 || outs[0].Class != "refused" {
		t.Errorf("outcomes after the broken save: %v %+v", err, outs)
	}
}

// TestSuiteUsage: a malformed suite file, flags a suite refuses, and a
// --save that cannot be written, each refused before anything runs.
func TestSuiteUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), "[[bench]]\nname = \"ok\"\nbinary = \""+testProgram(t, "c/empty-musl")+"\"\n")
	write(t, filepath.Join(dir, "bad.toml"), "[[bench]]\nname = \"a\"\n")
	status, _, stderr := icountIn(t, dir, "run", "--suite", "bad.toml")
	if status != exitUsage || !strings.Contains(stderr, `icount: bad.toml: benchmark "a": no binary`) {
		t.Errorf("bad suite: status %d\n%s", status, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "--json", "one.json")
	if status != exitUsage || !strings.Contains(stderr, "--json with --suite: every benchmark would write the same file") {
		t.Errorf("--json with a suite: status %d\n%s", status, stderr)
	}
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "extra")
	if status != exitUsage {
		t.Errorf("suite with a BINARY: status %d\n%s", status, stderr)
	}
	// --save where .icount is a file: refused before any benchmark runs.
	write(t, filepath.Join(dir, ".icount"), "")
	status, _, stderr = icountIn(t, dir, "run", "--suite", "suite.toml", "--save", "x")
	if status != exitUsage || stderr != "icount: --save x: mkdir .icount: not a directory\n" {
		t.Errorf("--save under a file: status %d\n%s", status, stderr)
	}
}

// TestBaseline: --save keeps the Profile under .icount/, --baseline
// compares with it, and a gate makes growth exit 3.
func TestBaseline(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestSuiteKilled: a suite killed with SIGKILL while a benchmark runs
// leaves no process alive, and the next suite removes the directory it
// left: afterwards $TMPDIR holds nothing of either.
func TestSuiteKilled(t *testing.T) {
	t.Parallel()
	dir, tmp := t.TempDir(), t.TempDir()
	write(t, filepath.Join(dir, "spin.toml"), "[[bench]]\nname = \"spin\"\nbinary = \""+testProgram(t, "hostile/amd64/spin")+"\"\n")
	write(t, filepath.Join(dir, "ok.toml"), "[[bench]]\nname = \"ok\"\nbinary = \""+testProgram(t, "c/empty-musl")+"\"\n")
	suite := func(file string) *exec.Cmd {
		cmd := exec.Command(icountBin, "run", "-q", "--suite", file)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "TMPDIR="+tmp)
		return cmd
	}
	killDuringRun(t, start(t, suite("spin.toml")))
	if left, _ := filepath.Glob(filepath.Join(tmp, "icount-suite-*", "lock")); len(left) != 1 {
		t.Fatalf("the killed suite left %q, want its directory", left)
	}
	if out, err := suite("ok.toml").CombinedOutput(); err != nil {
		t.Fatalf("the next suite: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in $TMPDIR: %v", left)
	}
}

// TestSuitePinnedClock: a suite saved or compared pins the clock, as ab
// does: a dynamically linked glibc program (ld.so reads the time stamp
// counter) is saved with a fixed clock and compares with a verdict.
func TestSuitePinnedClock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "suite.toml"), "[[bench]]\nname = \"dyn\"\nbinary = \""+testProgram(t, "c/empty-dynamic")+"\"\n")
	if status, _, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--save", "p"); status != 0 {
		t.Fatalf("--save: status %d\n%s", status, stderr)
	}
	p, err := profile.Read(filepath.Join(dir, ".icount", "p", "dyn.json"))
	if err != nil || p.Meta.Clock.Mode != "fixed" || p.Meta.ClockUse.Reads == 0 {
		t.Fatalf("saved: %v, clock %+v", err, p.Meta.Clock)
	}
	status, _, stderr := icountIn(t, dir, "run", "--suite", "suite.toml", "--baseline", "p", "--fail-above", "0")
	if status != 0 || !strings.Contains(stderr, "icount: verdict: no change: the binaries are identical") {
		t.Errorf("--baseline: status %d\n%s", status, stderr)
	}
}
