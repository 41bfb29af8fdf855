package main

// Tests of where and how 'icount ab' builds and runs: both sides at one
// fixed path, the working tree as it is, a lock between two ab runs of
// one repository, what a killed ab leaves (nothing that lives on), and
// the clock it pins.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/icount-dev/icount/report"
)

// cwdC is a benchmark whose work depends on its working directory, as an
// interpreter hashing its path does: it hashes realpath(".") a byte at a
// time. WORK iterations of a 3-instruction loop are the work a revision
// changes.
const cwdC = `/* A benchmark whose work depends on its working directory. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define WORK 1000

/* work: 3 instructions per iteration (add, dec, jnz). */
__attribute__((noinline, noclone)) void work(long n) {
	long acc = 0;
	__asm__ volatile("1:\n\tadd $1, %1\n\tdec %0\n\tjnz 1b\n" : "+r"(n), "+r"(acc) : : "cc");
}

/* cwdhash: a loop over the bytes of the directory's path. */
__attribute__((noinline, noclone)) unsigned cwdhash(const char *s) {
	unsigned h = 5381;
	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

int main(void) {
	char cwd[PATH_MAX];
	if (!realpath(".", cwd))
		return 1;
	work(WORK);
	printf("%u\n", cwdhash(cwd));
	return 0;
}
`

// cwdRepo makes a repository holding cwdC, built by make with cc and -g,
// so that the binary also names the directory it was built in.
func cwdRepo(t *testing.T, cc string) string {
	t.Helper()
	return gitRepoOf(t, cwdC, cc+" -g")
}

// abTreeOf is the fixed directory ab uses for the repository at dir.
func abTreeOf(t *testing.T, dir string) string {
	t.Helper()
	top := strings.TrimSpace(gitIn(t, dir, "rev-parse", "--show-toplevel"))
	sum := sha256.Sum256([]byte(top))
	return filepath.Join(os.TempDir(), "icount-ab-"+hex.EncodeToString(sum[:8]))
}

// abThrice runs ab three times and requires the same output each time.
func abThrice(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var first string
	for i := range 3 {
		status, out, stderr := icountIn(t, dir, append([]string{"ab"}, args...)...)
		if status != 0 {
			t.Fatalf("run %d: status %d\n%s%s", i+1, status, out, stderr)
		}
		if i == 0 {
			first = out
		} else if out != first {
			t.Fatalf("run %d differs from the first:\n%s\nfirst:\n%s", i+1, out, first)
		}
	}
	return first
}

// TestABSamePath is acceptance 1 of issue 16: of a program that hashes
// its working directory's path, a head that adds 10 iterations of a
// 3-instruction loop is exactly +30, and a comment-only head exactly 0
// with identical binaries (built with -g at one path), on three runs each.
func TestABSamePath(t *testing.T) {
	t.Parallel()
	dir := cwdRepo(t, staticCC(t))
	// The count depends on the directory: the same binary run in two
	// directories of other lengths counts differently.
	cc := strings.Fields(staticCC(t))
	bin := filepath.Join(t.TempDir(), "bench")
	if out, err := exec.Command(cc[0], append(cc[1:], "-o", bin, filepath.Join(dir, "bench.c"))...).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	counts := map[uint64]bool{}
	for _, sub := range []string{"a", "a-longer-directory"} {
		d := filepath.Join(t.TempDir(), sub)
		os.Mkdir(d, 0o755)
		r := runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir = d }, nil, bin)
		if r.profile == nil {
			t.Fatalf("no profile\n%s", r.stderr)
		}
		counts[r.profile.Totals.Instructions] = true
	}
	if len(counts) != 2 {
		t.Fatalf("the program counts the same in two directories (%v): it does not test the path", counts)
	}

	commitEdit(t, dir, "#define WORK 1000", "#define WORK 1010", "ten more iterations")
	out := abThrice(t, dir, "--base", "HEAD~1", "--bin", "bench", "--format", "json")
	b := parseDiff(t, out).Benches[0]
	if b.Totals[0].Name != "instructions" || b.Totals[0].Change != 30 {
		t.Errorf("total: %+v, want exactly +30", b.Totals[0])
	}
	for _, f := range b.Functions {
		want := int64(0)
		if f.Name == "work" {
			want = 30
		}
		if f.Self.Change != want {
			t.Errorf("%s: self %+v, want %+d", f.Name, f.Self, want)
		}
	}
	if out := abThrice(t, dir, "--base", "HEAD~1", "--bin", "bench"); !strings.Contains(out, "verdict: +30 instructions (+") {
		t.Errorf("text:\n%s", out)
	}

	commitEdit(t, dir, "/* A benchmark whose work depends on its working directory. */", "/* Its work depends on its directory. */", "comment")
	out = abThrice(t, dir, "--base", "HEAD~1", "--bin", "bench", "--format", "json")
	d := parseDiff(t, out)
	if !d.Benches[0].Identical || d.Verdict.Kind != "unchanged" {
		t.Errorf("comment only: identical %v, verdict %+v", d.Benches[0].Identical, d.Verdict)
	}
	for _, tot := range d.Benches[0].Totals {
		if tot.Change != 0 {
			t.Errorf("comment only: %s changed by %d", tot.Name, tot.Change)
		}
	}
	if out := abThrice(t, dir, "--base", "HEAD~1", "--bin", "bench"); !strings.Contains(out, "verdict: no change: the binaries are identical") {
		t.Errorf("comment only, text:\n%s", out)
	}
	// Neither side was built in the checkout, and nothing is left.
	if _, err := os.Stat(filepath.Join(dir, "bench")); !os.IsNotExist(err) {
		t.Errorf("ab built in the checkout (%v)", err)
	}
	assertNoWorktree(t, dir)
	if _, err := os.Stat(filepath.Join(abTreeOf(t, dir), "tree")); !os.IsNotExist(err) {
		t.Errorf("the fixed tree is left (%v)", err)
	}
}

// TestABWorkingTree: the head is the working tree as it is: an
// uncommitted change that includes an untracked header counts (+15), and
// an ignored, stale build output in the checkout is not copied (it would
// be taken as built: a script icount refuses to run); the repository's
// hooks do not run; from a hook's environment, the index is left intact.
func TestABWorkingTree(t *testing.T) {
	t.Parallel()
	dir := cwdRepo(t, staticCC(t))
	p := filepath.Join(dir, "bench.c")
	b, _ := os.ReadFile(p)
	src := strings.Replace(string(b), "#define WORK 1000", "#include \"extra.h\"\n#define WORK (1000 + EXTRA)", 1)
	write(t, p, src)
	write(t, filepath.Join(dir, "extra.h"), "#define EXTRA 5\n")
	// A post-checkout hook would run for the base's checkout alone.
	hookRan := filepath.Join(t.TempDir(), "hook-ran")
	write(t, filepath.Join(dir, ".git", "hooks", "post-checkout"), "#!/bin/sh\ntouch "+hookRan+"\n")
	os.Chmod(filepath.Join(dir, ".git", "hooks", "post-checkout"), 0o755)
	stale := filepath.Join(dir, "bench")
	write(t, stale, "#!/bin/sh\nexit 1\n")
	future := time.Now().Add(time.Hour)
	os.Chtimes(stale, future, future)
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--format", "json")
	if status != 0 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	var d struct {
		Head struct{ Label string } `json:"head"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Head.Label != "HEAD with uncommitted changes" {
		t.Errorf("head %+v (%v)", d.Head, err)
	}
	if c := parseDiff(t, out).Benches[0].Totals[0]; c.Change != 15 {
		t.Errorf("total %+v, want +15", c)
	}
	if got, _ := os.ReadFile(stale); string(got) != "#!/bin/sh\nexit 1\n" {
		t.Error("the checkout's files were changed")
	}
	if _, err := os.Stat(hookRan); !os.IsNotExist(err) {
		t.Errorf("the repository's post-checkout hook ran (%v)", err)
	}
	// From a git hook, which names the repository, its work tree and its
	// index in the environment: the same count, the user's index intact.
	index := filepath.Join(dir, ".git", "index")
	before, _ := os.ReadFile(index)
	cmd := exec.Command(icountBin, "ab", "--base", "HEAD", "--bin", "bench", "--format", "json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_DIR="+filepath.Join(dir, ".git"), "GIT_WORK_TREE="+dir, "GIT_INDEX_FILE="+index)
	out2, err := cmd.Output()
	if err != nil {
		t.Fatalf("in a hook's environment: %v", err)
	}
	if c := parseDiff(t, string(out2)).Benches[0].Totals[0]; c.Change != 15 {
		t.Errorf("in a hook's environment: total %+v, want +15", c)
	}
	if after, _ := os.ReadFile(index); !bytes.Equal(before, after) {
		t.Error("ab in a hook's environment changed the repository's index")
	}
	assertNoWorktree(t, dir)
}

// TestABKilled: an ab killed with SIGKILL during its build, and one killed
// while its benchmark runs, leave no process alive; the next ab removes
// the tree and worktree left behind, works and leaves neither.
func TestABKilled(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	tree := filepath.Join(abTreeOf(t, dir), "tree")
	pidFile := filepath.Join(t.TempDir(), "sleep.pid")

	// During the build: the build's own child (sleep) dies too.
	ab := startAB(t, dir, "--base", "HEAD", "--bin", "bench", "--build", "sleep 300 & echo $! > "+pidFile+".tmp; mv "+pidFile+".tmp "+pidFile+"; wait")
	waitFor(t, func() bool { _, err := os.Stat(pidFile); return err == nil }, "the build to start")
	b, _ := os.ReadFile(pidFile)
	sleeper, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	kids := children(ab.Process.Pid)
	ab.Process.Kill()
	ab.Wait()
	waitFor(t, func() bool { return gone(sleeper) && allGone(kids) }, fmt.Sprintf("the build's processes %v and sleep %d to die", kids, sleeper))
	if _, err := os.Stat(tree); err != nil || len(worktrees(t, dir)) != 2 {
		t.Fatalf("no stale tree to test with: %v, %q", err, worktrees(t, dir))
	}

	// During a run: icount run, its child, dies too (a benchmark that
	// never ends, with no build).
	spin := testProgram(t, "hostile/amd64/spin")
	killDuringRun(t, startAB(t, dir, "--base", "HEAD", "--bin", spin, "--build", ""))

	status, _, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench")
	if status != 0 {
		t.Fatalf("the next ab: status %d\n%s", status, stderr)
	}
	assertNoWorktree(t, dir)
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("the tree is left after the next ab (%v)", err)
	}
}

// readC reads the file argv[1] names and hashes it.
const readC = `#include <stdio.h>
int main(int argc, char **argv) {
	FILE *f = argc > 1 ? fopen(argv[1], "r") : NULL;
	if (!f)
		return 1;
	unsigned h = 0;
	for (int c; (c = getc(f)) != EOF;)
		h = h * 31 + c;
	printf("%u\n", h);
	return 0;
}
`

// TestABTreeIsCode: a file of the repository the program reads, outside
// the directory it runs in, that the head changed is code, not an input
// that changed: the comparison has a verdict and a note names the file.
func TestABTreeIsCode(t *testing.T) {
	t.Parallel()
	dir := gitRepoOf(t, readC, staticCC(t))
	write(t, filepath.Join(dir, "data.txt"), "one\n")
	os.Mkdir(filepath.Join(dir, "run"), 0o755)
	write(t, filepath.Join(dir, "run", "README"), "ab runs from here\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "data")
	write(t, filepath.Join(dir, "data.txt"), "two\n")
	gitIn(t, dir, "commit", "-q", "-am", "other data")
	// By its path in the tree, which is fixed: a relative path the program
	// opens is recorded as it named it (report's under() does not resolve
	// it against the working directory).
	tree := filepath.Join(abTreeOf(t, dir), "tree")
	status, out, stderr := icountIn(t, filepath.Join(dir, "run"), "ab", "--base", "HEAD~1", "--build", "make -s -C ..", "--bin", "../bench", "--format", "json", "--", filepath.Join(tree, "data.txt"))
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("status %d: %v\n%s", status, err, stderr)
	}
	if status != 0 || r.Verdict.Kind == "none" || len(r.Comparisons) != 1 ||
		!slices.Contains(r.Comparisons[0].Notes, "1 file of the code compared changed: "+filepath.Join(tree, "data.txt")) {
		t.Errorf("status %d, verdict %+v, comparisons %+v\n%s", status, r.Verdict, r.Comparisons, stderr)
	}
}

// TestABLeavesOtherWorktrees: git's record of another worktree whose
// directory is gone (an unmounted disk, say) outlives an ab, which removes
// only its own.
func TestABLeavesOtherWorktrees(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	other := filepath.Join(t.TempDir(), "elsewhere")
	gitIn(t, dir, "worktree", "add", "--detach", "--quiet", other, "HEAD")
	if err := os.RemoveAll(other); err != nil {
		t.Fatal(err)
	}
	if status, _, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench"); status != 0 {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	if wts := worktrees(t, dir); len(wts) != 2 || wts[1] != other {
		t.Errorf("worktrees after ab: %q, want the checkout and %s", wts, other)
	}
}

// TestABConcurrent: two ab runs of one repository at once: the second
// waits for the first, says so, and both give the same report.
func TestABConcurrent(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	commitEdit(t, dir, "#define WORK 1000", "#define WORK 1010", "ten more iterations")
	args := []string{"ab", "--base", "HEAD~1", "--bin", "bench", "--build", "sleep 1; make -s"}
	type res struct {
		status      int
		out, stderr string
	}
	done := make(chan res, 2)
	for range 2 {
		go func() {
			status, out, stderr := icountIn(t, dir, args...)
			done <- res{status, out, stderr}
		}()
	}
	a, b := <-done, <-done
	if a.status != 0 || b.status != 0 || a.out != b.out || !strings.Contains(a.out, "verdict: +30 instructions") {
		t.Errorf("statuses %d %d, reports:\n%s\n%s\n%s%s", a.status, b.status, a.out, b.out, a.stderr, b.stderr)
	}
	if n := strings.Count(a.stderr+b.stderr, "icount: waiting for another icount ab of this repository (pid "); n != 1 {
		t.Errorf("%d waits said, want 1:\n%s\n%s", n, a.stderr, b.stderr)
	}
	assertNoWorktree(t, dir)
}

// TestABPinnedClock: ab of a dynamically linked glibc benchmark (ld.so
// reads the time stamp counter) gives a verdict with no clock flag; with
// --host-clock it gives none, saying the runs were not pinned, and exits 4.
func TestABPinnedClock(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatal("gcc is missing (make deps installs it)")
	}
	dir := cwdRepo(t, "gcc -O2")
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--format", "json", "--fail-above", "0")
	if d := parseDiff(t, out); status != 0 || d.Verdict.Kind != "unchanged" {
		t.Errorf("no clock flag: status %d, verdict %+v\n%s", status, d.Verdict, stderr)
	}
	status, out, stderr = icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--format", "json", "--host-clock")
	d := parseDiff(t, out)
	if status != exitNoVerdict || d.Verdict.Kind != "none" || len(d.Benches) != 1 || !strings.Contains(strings.Join(d.Benches[0].Incomparable, "\n"), "is not pinned: it read the host clock") {
		t.Errorf("--host-clock: status %d, want %d; verdict %+v, %+v\n%s", status, exitNoVerdict, d.Verdict, d.Benches, stderr)
	}
	status, _, stderr = icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "bench", "--host-clock", "--clock-step", "1ms")
	if status != exitUsage || !strings.Contains(stderr, "icount: --host-clock and a fixed clock's flag (--fixed-clock, --clock-table, --clock-step, --clock-start): choose one") {
		t.Errorf("--host-clock with a clock flag: status %d\n%s", status, stderr)
	}
	assertNoWorktree(t, dir)
}

// TestABSuiteOutcomes: ab of a suite names each benchmark that fails on
// either side with its outcome, compares the others, and exits with the
// failure's class: 5 for a benchmark's own exit 3, 126 for one the head
// no longer builds.
func TestABSuiteOutcomes(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	write(t, filepath.Join(dir, "three.c"), "int main(void) { return 3; }\n")
	write(t, filepath.Join(dir, "Makefile"), "all: bench three\nbench: bench.c\n\t"+staticCC(t)+" -o bench bench.c\nthree: three.c\n\t"+staticCC(t)+" -o three three.c\n")
	write(t, filepath.Join(dir, ".gitignore"), "bench\nthree\n")
	write(t, filepath.Join(dir, "suite.toml"), "[[bench]]\nname = \"one\"\nbinary = \"bench\"\n\n[[bench]]\nname = \"three\"\nbinary = \"three\"\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "suite")
	status, out, stderr := icountIn(t, dir, "ab", "--base", "HEAD", "--suite", "suite.toml", "--format", "json", "--fail-above", "0")
	if status != exitBenchmarkFailed {
		t.Errorf("status %d, want %d\n%s", status, exitBenchmarkFailed, stderr)
	}
	for _, s := range []string{"icount: base three: exit 3\n", "icount: head three: exit 3\n"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("no %q in\n%s", s, stderr)
		}
	}
	var r report.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Comparisons) != 1 || r.Comparisons[0].Name != "one" || r.Verdict.Kind != "unchanged" ||
		strings.Join(r.Notes, "\n") != "benchmark three is not compared: the head's run: exit 3" {
		t.Errorf("report: %d comparisons, verdict %+v, notes %q", len(r.Comparisons), r.Verdict, r.Notes)
	}
	// ab --bin is a suite of one: the benchmark's own 3 is status 5.
	status, out, stderr = icountIn(t, dir, "ab", "--base", "HEAD", "--bin", "three")
	if status != exitBenchmarkFailed || out != "" || !strings.Contains(stderr, "icount: base three: exit 3\nicount: head three: exit 3\n") {
		t.Errorf("--bin three: status %d, want %d\n%s%s", status, exitBenchmarkFailed, out, stderr)
	}
	// The head stops building three: refused, 126.
	write(t, filepath.Join(dir, "Makefile"), "all: bench\nbench: bench.c\n\t"+staticCC(t)+" -o bench bench.c\n")
	status, _, stderr = icountIn(t, dir, "ab", "--base", "HEAD", "--suite", "suite.toml")
	if status != exitCannotRun || !strings.Contains(stderr, "icount: head three: refused (126): the head's build did not produce three\n") {
		t.Errorf("three not built: status %d\n%s", status, stderr)
	}
	assertNoWorktree(t, dir)
}

func startAB(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(icountBin, append([]string{"ab"}, args...)...)
	cmd.Dir = dir
	return start(t, cmd)
}

// start starts cmd, to be killed at the test's end if it still runs.
func start(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd
}

// killDuringRun waits until cmd has started an 'icount run', kills cmd
// with SIGKILL and waits for its runs to die.
func killDuringRun(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	var runs []int
	waitFor(t, func() bool {
		runs = children(cmd.Process.Pid)
		return len(runs) > 0 && strings.Contains(cmdline(runs[0]), "run")
	}, "the run to start")
	cmd.Process.Kill()
	cmd.Wait()
	waitFor(t, func() bool { return allGone(runs) }, fmt.Sprintf("the runs %v to die", runs))
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := procStat(child); ppid == pid {
			out = append(out, child)
		}
	}
	return out
}

// procStat is a process's parent and state from /proc/PID/stat.
func procStat(pid int) (ppid int, state string) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, ""
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0]
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
}

// gone says pid has exited (a zombie no one reaped has).
func gone(pid int) bool {
	_, state := procStat(pid)
	return state == "" || state == "Z"
}

func allGone(pids []int) bool {
	for _, p := range pids {
		if !gone(p) {
			return false
		}
	}
	return true
}
