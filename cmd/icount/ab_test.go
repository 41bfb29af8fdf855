package main

// Tests of 'icount ab' on a temporary git repository holding a small C
// benchmark whose revisions add a known amount of work.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchC is the benchmark. work runs a loop of exactly three instructions
// per iteration (add, dec, jnz), so each iteration more adds exactly 3 to
// work's self count and to the total; nothing else depends on WORK.
const benchC = `/* A benchmark with a known amount of work. */
#include <stdio.h>

#define WORK 1000

/* work: 3 instructions per iteration (add, dec, jnz). */
__attribute__((noinline, noclone)) void work(long n) {
	long acc = 0;
	__asm__ volatile("1:\n\tadd $1, %1\n\tdec %0\n\tjnz 1b\n" : "+r"(n), "+r"(acc) : : "cc");
}

__attribute__((noinline, noclone)) unsigned other(unsigned n) {
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s = s * 31 + i;
	return s;
}

int main(int argc, char **argv) {
	(void)argv;
	work(WORK * argc);
	printf("%u\n", other(500));
	return 0;
}
`

// staticCC is the C compiler line the test repository's Makefile uses.
func staticCC(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is missing (make deps installs it)")
	}
	if _, err := exec.LookPath("musl-gcc"); err == nil {
		return "musl-gcc -static -O2"
	}
	if _, err := exec.LookPath("gcc"); err == nil {
		return "gcc -static -O2"
	}
	t.Fatal("no C compiler: install musl-tools or gcc (make deps does)")
	return ""
}

// gitRepo makes a repository with the benchmark committed once.
func gitRepo(t *testing.T) string {
	t.Helper()
	return gitRepoOf(t, benchC, staticCC(t))
}

// gitRepoOf makes a repository with src committed once as bench.c, built
// as bench by make with the compiler line cc.
func gitRepoOf(t *testing.T, src, cc string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bench.c"), src)
	write(t, filepath.Join(dir, "Makefile"), "bench: bench.c\n\t"+cc+" -o bench bench.c\n")
	write(t, filepath.Join(dir, ".gitignore"), "bench\n")
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "benchmark")
	return dir
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// commitEdit replaces old by new in bench.c and commits it.
func commitEdit(t *testing.T, dir, old, new, msg string) {
	t.Helper()
	p := filepath.Join(dir, "bench.c")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("bench.c has no %q", old)
	}
	write(t, p, strings.Replace(string(b), old, new, 1))
	gitIn(t, dir, "commit", "-q", "-am", msg)
}

// icountIn runs icount in dir.
func icountIn(t *testing.T, dir string, args ...string) (status int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(icountBin, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running icount: %v", err)
	}
	return status, out.String(), errb.String()
}

// diffJSON is the part of the JSON diff the tests read.
type diffJSON struct {
	Verdict struct{ Kind, Line string } `json:"verdict"`
	Base    struct{ Commit string }     `json:"base"`
	Head    struct{ Commit string }     `json:"head"`
	Benches []struct {
		Name      string `json:"name"`
		Identical bool   `json:"identical_binaries"`
		Totals    []struct {
			Name       string
			Base, Head uint64
			Change     int64
		} `json:"totals"`
		Functions []struct {
			Name   string
			Status string
			Self   struct {
				Base, Head uint64
				Change     int64
			}
			Inclusive struct {
				Base, Head uint64
				Change     int64
			}
			Calls struct{ Change int64 }
		} `json:"functions"`
		Incomparable []string `json:"incomparable"`
	} `json:"benchmarks"`
}

func parseDiff(t *testing.T, out string) diffJSON {
	t.Helper()
	var d diffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("the JSON diff does not parse: %v\n%s", err, out)
	}
	return d
}

// worktrees lists the repository's worktrees; only the main one should be
// left after any ab.
func worktrees(t *testing.T, dir string) []string {
	t.Helper()
	var wts []string
	for _, line := range strings.Split(gitIn(t, dir, "worktree", "list", "--porcelain"), "\n") {
		if p, ok := strings.CutPrefix(line, "worktree "); ok {
			wts = append(wts, p)
		}
	}
	return wts
}

func assertNoWorktree(t *testing.T, dir string) {
	t.Helper()
	if wts := worktrees(t, dir); len(wts) != 1 {
		t.Errorf("worktrees left behind: %q", wts)
	}
}

// TestABAddedWork is acceptance 1: ten more iterations of a 3-instruction
// loop are exactly +30 on work and on the total, zero on every other
// function's own count, and --fail-above gates on them.
func TestABAddedWork(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	commitEdit(t, dir, "#define WORK 1000", "#define WORK 1010", "ten more iterations")

	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--format", "json")
	if status != 0 {
		t.Fatalf("status %d without a gate\n%s", status, stderr)
	}
	d := parseDiff(t, out)
	if len(d.Benches) != 1 {
		t.Fatalf("%d benchmarks", len(d.Benches))
	}
	b := d.Benches[0]
	if b.Identical || len(b.Incomparable) > 0 {
		t.Fatalf("identical %v, incomparable %q", b.Identical, b.Incomparable)
	}
	if b.Totals[0].Name != "instructions" || b.Totals[0].Change != 30 {
		t.Errorf("total: %+v, want a change of exactly +30", b.Totals[0])
	}
	found := false
	for _, f := range b.Functions {
		switch {
		case f.Name == "work":
			found = true
			if f.Self.Change != 30 || f.Status != "changed" {
				t.Errorf("work: %+v, want self +30", f)
			}
		case f.Self.Change != 0 || f.Calls.Change != 0 || f.Status == "new" || f.Status == "vanished":
			t.Errorf("%s changed: %+v", f.Name, f)
		case f.Inclusive.Change != 0 && f.Inclusive.Change != 30:
			// Only work's callers may grow, and by exactly its growth.
			t.Errorf("%s: inclusive change %d", f.Name, f.Inclusive.Change)
		}
	}
	if !found {
		t.Fatal("no function named work in the diff")
	}
	if d.Verdict.Kind != "changed" || len(d.Base.Commit) != 12 || d.Base.Commit == d.Head.Commit {
		t.Errorf("verdict %+v, commits %s %s", d.Verdict, d.Base.Commit, d.Head.Commit)
	}

	// +30 on about 8,000 (musl) or more (glibc) instructions: above 0%,
	// under 50%.
	status, out, _ = icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--fail-above", "0")
	if status != exitRegression || !strings.Contains(out, "verdict: regression: total instructions +30") {
		t.Errorf("--fail-above 0: status %d, want %d\n%s", status, exitRegression, out)
	}
	status, out, _ = icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--fail-above", "50")
	if status != 0 || !strings.Contains(out, "within the gates") {
		t.Errorf("--fail-above 50: status %d\n%s", status, out)
	}
	// A budget in icount.toml on work alone.
	write(t, filepath.Join(dir, "icount.toml"), "[budget]\nwork = \"+29\"\n")
	status, out, _ = icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--format", "markdown")
	if status != exitRegression || !strings.HasPrefix(out, "❌ **icount**: regression: work: self +30") ||
		!strings.Contains(out, "| **`work` (over budget: self +29)** | +30 (") {
		t.Errorf("budget +29: status %d\n%s", status, out)
	}
	// Improvements never fail: the other way round, even at limit 0.
	status, out, _ = icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--fail-above", "0", "--config", "/dev/null", "--build", "make -s")
	if status != 0 || !strings.Contains(out, "verdict: no change") {
		t.Errorf("base HEAD: status %d\n%s", status, out)
	}
	assertNoWorktree(t, dir)
}

// TestABCommentOnly is acceptance 2: a revision that only changes a
// comment builds the same binary, and every delta is exactly zero.
func TestABCommentOnly(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	commitEdit(t, dir, "/* A benchmark with a known amount of work. */", "/* A benchmark: its work is known. */", "comment")
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD~1", "--bin", "bench", "--format", "json", "--fail-above", "0")
	if status != 0 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	d := parseDiff(t, out)
	b := d.Benches[0]
	if !b.Identical {
		t.Fatal("the binaries differ after a comment-only change")
	}
	for _, tot := range b.Totals {
		if tot.Change != 0 {
			t.Errorf("total %s changed by %d", tot.Name, tot.Change)
		}
	}
	for _, f := range b.Functions {
		if f.Status != "unchanged" || f.Self.Change != 0 || f.Inclusive.Change != 0 || f.Calls.Change != 0 {
			t.Errorf("%s: %+v", f.Name, f)
		}
	}
	if d.Verdict.Kind != "unchanged" || !strings.Contains(d.Verdict.Line, "the binaries are identical, so every count must be equal, and every count is equal") {
		t.Errorf("verdict %+v", d.Verdict)
	}
	assertNoWorktree(t, dir)
}

// TestABBuildFails is acceptance 5, first half: a build that fails leaves
// no worktree and exits 126.
func TestABBuildFails(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	status, _, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--build", "echo compiling; exit 4")
	if status != exitCannotRun || !strings.Contains(stderr, `building the base HEAD tree: "echo compiling; exit 4" failed: exit status 4`) {
		t.Errorf("status %d, want %d\n%s", status, exitCannotRun, stderr)
	}
	assertNoWorktree(t, dir)
	// A build that succeeds without producing the binary.
	status, _, stderr = icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "nothing-here", "--build", "true")
	if status != exitCannotRun || !strings.Contains(stderr, "the build did not produce nothing-here") {
		t.Errorf("status %d\n%s", status, stderr)
	}
	assertNoWorktree(t, dir)
	// Usage errors come before any checkout.
	for _, c := range [][]string{
		{"ab", "--bin", "bench"},
		{"ab", "--base", "no-such-ref", "--bin", "bench"},
		{"ab", "--base", "HEAD"},
		{"ab", "--base", "HEAD", "--bin", "bench", "--format", "yaml"},
		{"ab", "--base", "HEAD", "--bin", "bench", "--fail-above", "much"},
	} {
		if status, _, stderr := icountIn(t, dir, c...); status != exitUsage {
			t.Errorf("%q: status %d, want %d\n%s", c, status, exitUsage, stderr)
		}
	}
	assertNoWorktree(t, dir)
}

// TestABInterrupt is acceptance 5, second half: SIGINT during the build
// stops the build, removes the worktree and exits 130.
func TestABInterrupt(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	mark := filepath.Join(t.TempDir(), "building")
	cmd := exec.Command(icountBin, "ab", "--base", "HEAD", "--bin", "bench",
		"--build", "pwd > "+mark+".tmp && mv "+mark+".tmp "+mark+" && sleep 60")
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var tree []byte
	for {
		var err error
		if tree, err = os.ReadFile(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the build never started\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	base := strings.TrimSpace(string(tree))
	if len(worktrees(t, dir)) != 2 {
		t.Errorf("no worktree while building: %q", worktrees(t, dir))
	}
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != exitInterrupted {
		t.Errorf("after SIGINT: %v, want exit %d\n%s", err, exitInterrupted, errb.String())
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v to stop: the build was not killed", d)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("the base tree %s is still there (%v)", base, err)
	}
	assertNoWorktree(t, dir)
}

// TestABSuite runs three benchmarks of one suite through ab, two at a
// time: each runs work argc times more, so grows by 3*argc.
func TestABSuite(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	write(t, filepath.Join(dir, "suite.toml"), `
[[bench]]
name = "one"
binary = "bench"

[[bench]]
name = "two"
binary = "bench"
args = ["x"]

[[bench]]
name = "three"
binary = "bench"
args = ["x", "y"]
`)
	gitIn(t, dir, "add", "suite.toml")
	gitIn(t, dir, "commit", "-q", "-m", "suite")
	commitEdit(t, dir, "#define WORK 1000", "#define WORK 1001", "one more iteration per argument")
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD~1", "--suite", "suite.toml", "--jobs", "2", "--format", "json", "--fail-above", "0")
	if status != exitRegression {
		t.Fatalf("status %d, want %d\n%s\n%s", status, exitRegression, out, stderr)
	}
	d := parseDiff(t, out)
	want := map[string]int64{"one": 3, "two": 6, "three": 9}
	if len(d.Benches) != 3 {
		t.Fatalf("%d benchmarks", len(d.Benches))
	}
	for _, b := range d.Benches {
		if got := b.Totals[0].Change; got != want[b.Name] {
			t.Errorf("%s: total change %d, want %d", b.Name, got, want[b.Name])
		}
	}
	assertNoWorktree(t, dir)
}
