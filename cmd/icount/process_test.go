package main

// Processes (issue 14), judged from outside: commands that start other
// processes (a C program using posix_spawn, fork, vfork and execve of
// both arches; sh and bash pipelines; make with gcc; git; Python's
// subprocess and os.fork; a fork bomb; a thousand short children) give
// the stdout and exit status of their native runs, in the same working
// directory with the same argv, environment and stdin; their counts, in
// total and per process, are the same on every run and with the host
// busy; the Profile's process tree sums exactly to the total; and a
// program a tree runs counts, in its entry, what it counts run alone under
// icount. make with gcc, git and Python run with ICOUNT_CONFORMANCE=1
// (make conformance).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
)

// procCase is one command run natively and under icount.
type procCase struct {
	prog  string   // the program's path, the same on both sides
	argv0 string   // its argv[0] on both sides
	args  []string // its arguments under icount
	// native are its arguments natively, where they differ (nil: args):
	// an arm64 program natively needs qemu-aarch64 in front of it.
	native []string
	env    []string // its whole environment on both sides
	stdin  []byte
	// setup fills the working directory before each run (nil: it stays
	// empty).
	setup func(t *testing.T, dir string)
}

// procPath is the PATH of every case.
const procPath = "PATH=/usr/bin:/bin"

// procEnv is the environment of a case: PATH, the C locale and extra.
func procEnv(extra ...string) []string {
	return append([]string{procPath, "LC_ALL=C"}, extra...)
}

// procDir returns the working directory of a test's runs: one path for
// all of them, natively and under icount, so that nothing a program sees
// of it (its PWD, getcwd) differs between runs.
func procDir(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "work")
}

// prepare empties dir and fills it for c.
func (c procCase) prepare(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if c.setup != nil {
		c.setup(t, dir)
	}
}

// runNative runs c natively in a freshly prepared dir and returns its
// stdout and exit status (128+N for a death by signal N). modify, if not
// nil, returns the command to run instead of cmd (under a process limit,
// as another user), made with ctx.
func (c procCase) runNative(t *testing.T, dir string, modify func(ctx context.Context, cmd *exec.Cmd) *exec.Cmd) (string, int) {
	t.Helper()
	c.prepare(t, dir)
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	args := c.native
	if args == nil {
		args = c.args
	}
	cmd := exec.CommandContext(ctx, c.prog)
	cmd.Args = append([]string{c.argv0}, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append([]string{}, c.env...), bytes.NewReader(c.stdin)
	if modify != nil {
		cmd = modify(ctx, cmd)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("native %s did not end within %v", c.prog, runLimit)
	}
	status := 0
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			status = 128 + int(ws.Signal())
		}
	} else if err != nil {
		t.Fatalf("native %s: %v\n%s", c.prog, err, errb.String())
	}
	return out.String(), status
}

// runIcount runs c under icount --fixed-clock in a freshly prepared dir.
func (c procCase) runIcount(t *testing.T, dir string) result {
	t.Helper()
	c.prepare(t, dir)
	flags := []string{"-q", "--fixed-clock", "--argv0", c.argv0}
	for _, kv := range c.env {
		flags = append(flags, "--env", kv)
	}
	return runIcountWith(t, func(cmd *exec.Cmd) {
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(c.stdin)
	}, flags, c.prog, c.args...)
}

// procLog logs how long a run took and what it counted.
func procLog(t *testing.T, name string, r result, start time.Time) {
	t.Helper()
	if r.profile == nil {
		t.Logf("%s: exit %d after %.2f s, no profile", name, r.status, time.Since(start).Seconds())
		return
	}
	t.Logf("%s: %d instructions in %d entries, exit %d, %.2f s", name, r.profile.Totals.Instructions, len(r.profile.Processes), r.status, time.Since(start).Seconds())
}

// procMatch fails the test unless r printed want and exited with status,
// with a process tree that checkProcessTree accepts.
func procMatch(t *testing.T, r result, want string, status int) {
	t.Helper()
	if r.stdout != want || r.status != status {
		t.Fatalf("under icount: exit %d, natively %d; stdout %s\nicount's stderr:\n%s", r.status, status, firstDifference(r.stdout, want), r.stderr)
	}
	if r.profile == nil {
		t.Fatalf("no profile; stderr:\n%s", r.stderr)
	}
	checkProcessTree(t, r)
}

// firstDifference says where got first differs from want, line by line,
// with got in full.
func firstDifference(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, natively %q; under icount in full:\n%s", i+1, gl, wl, got)
		}
	}
	return "the same"
}

// checkProcessTree checks the Profile's process tree: the first entry is pid
// 1000 with no parent; every other entry came from an earlier one, either
// a new process (a pid higher than every earlier process's, whose ppid is
// its parent's pid: a fork, or a CLONE_VM child's exec, which may have no
// entry of its own before it) or an exec (the pid of the entry it
// replaced, which says it ended by exec); no process still ran when the first ended; the
// entries' totals and system calls sum exactly to the run's; and icount's
// status is the first process's last program's.
func checkProcessTree(t *testing.T, r result) {
	t.Helper()
	p := r.profile
	if len(p.Processes) == 0 {
		t.Fatal("the Profile has no processes")
	}
	var sum profile.Totals
	calls := map[string]uint64{}
	last, execs := 0, map[int]int{}
	for i, e := range p.Processes {
		sum.Instructions += e.Totals.Instructions
		sum.Blocks += e.Totals.Blocks
		sum.DistinctBlocks += e.Totals.DistinctBlocks
		sum.Syscalls += e.Totals.Syscalls
		for k, v := range e.Syscalls {
			calls[k] += v
		}
		if e.Exit.Running {
			t.Errorf("process %d (entry %d, %q) still ran when the first process ended", e.PID, i, e.Argv)
		}
		switch {
		case i == 0:
			if e.PID != 1000 || e.PPID != 0 || e.Parent != -1 || e.Exec {
				t.Errorf("first entry: pid %d, ppid %d, parent %d, exec %v; want 1000, 0, -1, false", e.PID, e.PPID, e.Parent, e.Exec)
			}
			last = e.PID
		case e.Parent < 0 || e.Parent >= i:
			t.Errorf("entry %d (pid %d): parent %d is not an earlier entry", i, e.PID, e.Parent)
		case e.Exec && p.Processes[e.Parent].PID == e.PID:
			par := p.Processes[e.Parent]
			execs[e.Parent]++
			if par.PPID != e.PPID || !par.Exit.Exec {
				t.Errorf("entry %d (pid %d, ppid %d, %q) exec'd from entry %d (pid %d, ppid %d, exit %+v)",
					i, e.PID, e.PPID, e.Argv, e.Parent, par.PID, par.PPID, par.Exit)
			}
		default:
			// A fork, or the first program of a CLONE_VM child (vfork,
			// posix_spawn), whose instructions until its exec are its
			// parent's.
			par := p.Processes[e.Parent]
			if e.PPID != par.PID || e.PID <= last {
				t.Errorf("entry %d: pid %d, ppid %d, forked by entry %d (pid %d) after pid %d", i, e.PID, e.PPID, e.Parent, par.PID, last)
			}
			last = e.PID
		}
	}
	for i, e := range p.Processes {
		if e.Exit.Exec != (execs[i] == 1) {
			t.Errorf("entry %d (pid %d, %q) says exec %v, and %d entries exec'd from it", i, e.PID, e.Argv, e.Exit.Exec, execs[i])
		}
	}
	if sum != p.Totals {
		t.Errorf("the processes' totals sum to %+v, the run's are %+v", sum, p.Totals)
	}
	if len(calls)+len(p.Syscalls) > 0 && !reflect.DeepEqual(calls, p.Syscalls) {
		t.Errorf("the processes' system calls sum to %v, the run's are %v", calls, p.Syscalls)
	}
	final := -1
	for i, e := range p.Processes {
		if e.PID == 1000 {
			final = i
		}
	}
	if e := p.Processes[final]; e.Exit.Status != r.status || e.Exit.Exec {
		t.Errorf("icount exited %d; the first process's last program (entry %d) %+v", r.status, final, e.Exit)
	}
}

// sameProcesses compares two runs' process trees, every entry's every
// field.
func sameProcesses(a, b result) string {
	pa, pb := a.profile.Processes, b.profile.Processes
	if len(pa) != len(pb) {
		return fmt.Sprintf("%d processes vs %d", len(pa), len(pb))
	}
	for i := range pa {
		if !reflect.DeepEqual(pa[i], pb[i]) {
			return fmt.Sprintf("entry %d (pid %d, %q): totals %+v vs %+v, exit %+v vs %+v, system calls %v vs %v, or its functions differ",
				i, pa[i].PID, pa[i].Argv, pa[i].Totals, pb[i].Totals, pa[i].Exit, pb[i].Exit, pa[i].Syscalls, pb[i].Syscalls)
		}
	}
	return ""
}

// procRepeat runs c again and wants each run to count what first did, in
// total and per process: once with every host CPU busy in go test (make
// test), and also twice with the host idle with ICOUNT_CONFORMANCE=1 (make
// conformance).
func procRepeat(t *testing.T, c procCase, dir string, first result) {
	t.Helper()
	if conformance() {
		for i := 2; i <= 3; i++ {
			r := c.runIcount(t, dir)
			if d := sameRun(first, r) + sameProcesses(first, r); d != "" {
				t.Errorf("run %d differs from run 1: %s\n%s", i, d, r.stderr)
			}
		}
	}
	stop := busyHost(t)
	r := c.runIcount(t, dir)
	stop()
	if d := sameRun(first, r) + sameProcesses(first, r); d != "" {
		t.Errorf("the run with the host busy differs from run 1: %s\n%s", d, r.stderr)
	}
}

// aloneCheck is a program a process tree runs, and how it was started:
// its entry (the one exec entry with this argv) must count what the
// program counts run alone under icount in the same directory with the
// same argv, environment and stdin.
type aloneCheck struct {
	prog  string
	argv  []string
	env   []string
	stdin []byte
}

// checkAlone compares a's entry in r with a run of a alone.
func checkAlone(t *testing.T, r result, dir string, a aloneCheck) {
	t.Helper()
	var found []profile.Process
	var argvs []string
	for _, e := range r.profile.Processes {
		if e.Exec && reflect.DeepEqual(e.Argv, a.argv) {
			found = append(found, e)
		}
		argvs = append(argvs, fmt.Sprintf("%d %q", e.PID, e.Argv))
	}
	if len(found) != 1 {
		t.Errorf("%d exec entries with argv %q, want 1; the entries:\n%s", len(found), a.argv, strings.Join(argvs, "\n"))
		return
	}
	e := found[0]
	alone := procCase{prog: a.prog, argv0: a.argv[0], args: a.argv[1:], env: a.env, stdin: a.stdin}
	ar := alone.runIcount(t, dir)
	if ar.profile == nil {
		t.Fatalf("%s alone: no profile (exit %d)\n%s", a.prog, ar.status, ar.stderr)
	}
	if e.Binary.Path != a.prog || e.Binary.SHA256 != ar.profile.Meta.Binary.SHA256 {
		t.Errorf("pid %d %q: binary %+v, want %s (%s)", e.PID, a.argv, e.Binary, a.prog, ar.profile.Meta.Binary.SHA256)
	}
	if e.Totals.Instructions != ar.profile.Totals.Instructions || e.Exit.Status != ar.status {
		t.Errorf("pid %d %q in the tree: %d instructions (%d blocks, %d system calls %v), exit %d; alone: %d (%d, %d %v), exit %d",
			e.PID, a.argv, e.Totals.Instructions, e.Totals.Blocks, e.Totals.Syscalls, e.Syscalls, e.Exit.Status,
			ar.profile.Totals.Instructions, ar.profile.Totals.Blocks, ar.profile.Totals.Syscalls, ar.profile.Syscalls, ar.status)
	}
}

// entries returns the entries of p that match.
func entries(p *profile.Profile, match func(profile.Process) bool) []profile.Process {
	var m []profile.Process
	for _, e := range p.Processes {
		if match(e) {
			m = append(m, e)
		}
	}
	return m
}

// qemuCommand is how a native run starts an arm64 program.
func qemuCommand(t *testing.T, prog string) []string {
	t.Helper()
	qemu, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		t.Fatal("qemu-aarch64 is missing: make deps installs qemu-user")
	}
	return []string{qemu, "-L", arm64Sysroot, prog}
}

// TestProcessSpawn runs testdata/proc/spawn.c, amd64 musl- and
// glibc-static and glibc-dynamic and arm64 glibc-static, each starting
// child.c of its own arch and of the other. Its judge is the amd64 glibc
// build's native run (where the arm64 child runs under qemu-aarch64); an
// arm64 spawn's children say the arches the other way round. The
// glibc-static build runs again as procRepeat says; in
// every build the child posix_spawn starts and /bin/true, which
// posix_spawnp starts, count what they count alone, and the tree has the
// processes spawn.c makes: 31, 10 of them exec'ing.
func TestProcessSpawn(t *testing.T) {
	t.Parallel()
	child := testProgram(t, "proc/child-musl")
	child64 := testProgram(t, "proc/arm64/child-glibc")
	dir := procDir(t)
	judge := procCase{prog: testProgram(t, "proc/spawn-glibc"), argv0: "spawn", env: procEnv(),
		args: append([]string{child, "--"}, qemuCommand(t, child64)...)}
	want, status := judge.runNative(t, dir, nil)
	if status != 0 || !strings.Contains(want, "child (aarch64): from the other arch\n") ||
		!strings.HasSuffix(want, "SIGCHLD caught: yes\n") {
		t.Fatalf("native run: exit %d, output:\n%s", status, want)
	}
	swapped := strings.NewReplacer("(x86-64)", "(aarch64)", "(aarch64)", "(x86-64)").Replace(want)
	for _, b := range []struct {
		prog        string
		same, other string
		want        string
		repeat      bool
	}{
		{"proc/spawn-glibc", child, child64, want, true},
		{"proc/spawn-musl", child, child64, want, false},
		{"proc/spawn-dynamic", child, child64, want, false},
		{"proc/arm64/spawn-glibc", child64, child, swapped, false},
	} {
		t.Run(strings.ReplaceAll(b.prog, "/", "-"), func(t *testing.T) {
			c := procCase{prog: testProgram(t, b.prog), argv0: "spawn", env: procEnv(), args: []string{b.same, "--", b.other}}
			start := time.Now()
			r := c.runIcount(t, dir)
			procLog(t, b.prog, r, start)
			procMatch(t, r, b.want, status)
			checkSpawnTree(t, r, b.same, b.other)
			if b.repeat {
				procRepeat(t, c, dir, r)
			}
			checkAlone(t, r, dir, aloneCheck{prog: b.same, argv: []string{b.same, "echo", "spawned", "by", "posix_spawn"}, env: []string{"CHILD=1"}})
			checkAlone(t, r, dir, aloneCheck{prog: "/usr/bin/true", argv: []string{"true"}, env: []string{procPath}})
		})
	}
}

// checkSpawnTree checks the processes of a run of spawn.c: 31 (the first
// and 30 children), 10 of which exec'd: the child of its arch 7 times, of
// the other once, /bin/true, and /bin/sh for the #! script, as Linux
// gives its argv; faults and kills as spawn.c prints them.
func checkSpawnTree(t *testing.T, r result, same, other string) {
	t.Helper()
	p := r.profile
	pids := map[int]bool{}
	for _, e := range p.Processes {
		pids[e.PID] = true
	}
	execd := entries(p, func(e profile.Process) bool { return e.Exec })
	byPath := map[string]int{}
	for _, e := range execd {
		byPath[e.Binary.Path]++
	}
	wantPaths := map[string]int{same: 7, other: 1, "/usr/bin/true": 1, "/bin/sh": 1}
	if len(pids) != 31 || len(execd) != 10 || !reflect.DeepEqual(byPath, wantPaths) {
		t.Errorf("%d processes, %d execs %v; want 31, 10 %v", len(pids), len(execd), byPath, wantPaths)
	}
	script := entries(p, func(e profile.Process) bool {
		return e.Exec && reflect.DeepEqual(e.Argv, []string{"/bin/sh", "./script", "an argument"}) && e.Exit.Status == 6
	})
	if len(script) != 1 {
		t.Errorf("%d entries ran ./script as /bin/sh ./script 'an argument' and exited 6, want 1", len(script))
	}
	for sig, n := range map[string]int{"SIGSEGV": 2, "SIGTERM": 1, "SIGKILL": 2} {
		killed := entries(p, func(e profile.Process) bool { return e.Exit.Signal == sig })
		ok := len(killed) == n
		var who []string
		for _, e := range killed {
			ok = ok && e.Exit.Status == 128+int(signalNumber[sig])
			who = append(who, fmt.Sprintf("%d %q exit %d", e.PID, e.Argv, e.Exit.Status))
		}
		if !ok {
			t.Errorf("%d processes killed by %s (%s), want %d, each with exit status %d", len(killed), sig, strings.Join(who, "; "), n, 128+int(signalNumber[sig]))
		}
	}
	// Every failed exec (./missing by posix_spawn and execve, ., two
	// files that are no programs) leaves its child to exit 127.
	if n := len(entries(p, func(e profile.Process) bool { return !e.Exec && e.Exit.Status == 127 })); n != 5 {
		t.Errorf("%d processes exited 127 without exec'ing, want 5", n)
	}
}

// signalNumber are the signals the process tests expect, by name.
var signalNumber = map[string]syscall.Signal{"SIGSEGV": syscall.SIGSEGV, "SIGTERM": syscall.SIGTERM, "SIGKILL": syscall.SIGKILL}

// nprocLimit is the process limit of the native fork bomb's judge: it
// needs an unprivileged user, since the limit does not bind root.
const nprocLimit = 64

// limitProcesses runs a native command under a process limit of
// nprocLimit more processes than its user has: as nobody when the tests
// run as root, through prlimit(1).
func limitProcesses(t *testing.T) func(context.Context, *exec.Cmd) *exec.Cmd {
	t.Helper()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal("prlimit (util-linux) is missing")
	}
	uid := os.Getuid()
	var cred *syscall.Credential
	if uid == 0 {
		uid = 65534
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	limit := nprocLimit + userProcesses(t, uid)
	return func(ctx context.Context, cmd *exec.Cmd) *exec.Cmd {
		n := exec.CommandContext(ctx, prlimit, append([]string{fmt.Sprintf("--nproc=%d:%d", limit, limit), "--", cmd.Path}, cmd.Args[1:]...)...)
		n.Env, n.Stdin = cmd.Env, cmd.Stdin
		// The root directory: nobody may not enter the test's own.
		n.Dir = "/"
		n.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return n
	}
}

// userProcesses counts the processes (threads included, as RLIMIT_NPROC
// counts) that uid runs.
func userProcesses(t *testing.T, uid int) int {
	t.Helper()
	tasks, err := filepath.Glob("/proc/[0-9]*/task/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, task := range tasks {
		if fi, err := os.Stat(task); err == nil && int(fi.Sys().(*syscall.Stat_t).Uid) == uid {
			n++
		}
	}
	return n
}

// TestProcessForkBomb runs testdata/proc/forkbomb.c, amd64 musl-static
// (and glibc-static with ICOUNT_CONFORMANCE=1): it forks until fork fails with EAGAIN, at icount's process
// limit, then releases and reaps every child and exits 0, as it does
// natively under RLIMIT_NPROC. Every child exited 0 and none outlived it.
func TestProcessForkBomb(t *testing.T) {
	t.Parallel()
	const want = "fork failed: EAGAIN\nreaped every child: yes, all exited 0: yes, then wait: ECHILD\n"
	dir := procDir(t)
	for _, prog := range []string{"proc/forkbomb-musl", "proc/forkbomb-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "-"), func(t *testing.T) {
			if prog != "proc/forkbomb-musl" {
				conformanceOnly(t)
			}
			c := procCase{prog: testProgram(t, prog), argv0: "forkbomb", env: procEnv()}
			if out, status := c.runNative(t, dir, limitProcesses(t)); out != want || status != 0 {
				t.Fatalf("native run: exit %d, output:\n%s", status, out)
			}
			start := time.Now()
			r := c.runIcount(t, dir)
			procMatch(t, r, want, 0)
			children := entries(r.profile, func(e profile.Process) bool { return e.PID != 1000 })
			for _, e := range children {
				if e.Exit.Status != 0 || e.Exit.Signal != "" || e.Exec {
					t.Errorf("child %d: %+v, exec %v; want exit 0", e.PID, e.Exit, e.Exec)
					break
				}
			}
			procLog(t, prog, r, start)
			t.Logf("%s: %d children before EAGAIN", prog, len(children))
		})
	}
}

// TestProcessForkMany runs testdata/proc/forkmany.c, amd64 musl-static
// (and amd64 and arm64 glibc-static with ICOUNT_CONFORMANCE=1): a thousand short children one after
// another, each exiting with its own status; the output is the native
// run's and its checksum the one worked out here; the musl build counts
// the same twice, per process too.
func TestProcessForkMany(t *testing.T) {
	t.Parallel()
	const want = "1000 children, 0 with a wrong status, checksum bd2e3ad4ecd45c84\n"
	dir := procDir(t)
	judge := procCase{prog: testProgram(t, "proc/forkmany-glibc"), argv0: "forkmany", env: procEnv()}
	if out, status := judge.runNative(t, dir, nil); out != want || status != 0 {
		t.Fatalf("native run: exit %d, output:\n%s", status, out)
	}
	for _, prog := range []string{"proc/forkmany-musl", "proc/forkmany-glibc", "proc/arm64/forkmany-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "-"), func(t *testing.T) {
			if prog != "proc/forkmany-musl" {
				conformanceOnly(t)
			}
			c := procCase{prog: testProgram(t, prog), argv0: "forkmany", env: procEnv()}
			start := time.Now()
			r := c.runIcount(t, dir)
			procLog(t, prog, r, start)
			procMatch(t, r, want, 0)
			children := entries(r.profile, func(e profile.Process) bool { return e.PID != 1000 })
			if len(children) != 1000 {
				t.Fatalf("%d children, want 1000", len(children))
			}
			for i, e := range children {
				if e.Exit.Status != i%256 || e.Exec || e.PPID != 1000 || e.PID != 1001+i {
					t.Errorf("child %d: pid %d, ppid %d, exit %+v, exec %v; want pid %d, ppid 1000, exit %d", i, e.PID, e.PPID, e.Exit, e.Exec, 1001+i, i%256)
					break
				}
			}
			if prog == "proc/forkmany-musl" {
				r2 := c.runIcount(t, dir)
				if d := sameRun(r, r2) + sameProcesses(r, r2); d != "" {
					t.Errorf("run 2 differs from run 1: %s", d)
				}
			}
		})
	}
}

// shellEnv returns the environment sh gives the programs it runs in dir
// when it starts with env, as env(1) prints it natively.
func shellEnv(t *testing.T, dir string, env []string) []string {
	t.Helper()
	c := procCase{prog: "/bin/sh", argv0: "sh", args: []string{"-c", "exec env"}, env: env}
	out, status := c.runNative(t, dir, nil)
	if status != 0 {
		t.Fatalf("sh -c 'exec env': exit %d", status)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// TestProcessShellPipeline runs sh -c 'seq 1 200000 | sort -rn | head -3'
// (Debian's dash and coreutils): the native output and status, the same
// counts on every run (procRepeat), and seq's entry counts what
// seq counts alone, with the environment sh gives it.
func TestProcessShellPipeline(t *testing.T) {
	t.Parallel()
	dir := procDir(t)
	c := procCase{prog: "/bin/sh", argv0: "sh", args: []string{"-c", "seq 1 200000 | sort -rn | head -3"}, env: procEnv()}
	want, status := c.runNative(t, dir, nil)
	if want != "200000\n199999\n199998\n" || status != 0 {
		t.Fatalf("native run: exit %d, output:\n%s", status, want)
	}
	r := c.runIcount(t, dir)
	procMatch(t, r, want, status)
	progs := map[string]int{}
	for _, e := range entries(r.profile, func(e profile.Process) bool { return e.Exec }) {
		progs[e.Binary.Path]++
	}
	if w := map[string]int{"/usr/bin/seq": 1, "/usr/bin/sort": 1, "/usr/bin/head": 1}; !reflect.DeepEqual(progs, w) {
		t.Errorf("programs exec'd: %v, want %v", progs, w)
	}
	procRepeat(t, c, dir, r)
	checkAlone(t, r, dir, aloneCheck{prog: "/usr/bin/seq", argv: []string{"seq", "1", "200000"}, env: shellEnv(t, dir, c.env)})
}

// TestProcessBashScript runs testdata/proc/script.sh with bash: pipelines,
// command substitution, a subshell, background jobs it waits for, xargs;
// its output and exit status (4) are the native run's, and its counts the
// same on every run (procRepeat).
func TestProcessBashScript(t *testing.T) {
	t.Parallel()
	dir := procDir(t)
	script := filepath.Join(repoRoot, "testdata", "proc", "script.sh")
	c := procCase{prog: "/bin/bash", argv0: "bash", args: []string{script}, env: procEnv()}
	want, status := c.runNative(t, dir, nil)
	if status != 4 || !strings.HasPrefix(want, "pipeline: 3 apple 2 pear\n") || !strings.HasSuffix(want, "xargs: 11 12 13\n") {
		t.Fatalf("native run: exit %d, output:\n%s", status, want)
	}
	r := c.runIcount(t, dir)
	procMatch(t, r, want, status)
	procRepeat(t, c, dir, r)
}

// conformance says whether the slow judges run (ICOUNT_CONFORMANCE=1,
// make conformance).
func conformance() bool { return os.Getenv("ICOUNT_CONFORMANCE") != "" }

// conformanceOnly skips a slow test unless ICOUNT_CONFORMANCE is set.
func conformanceOnly(t *testing.T) {
	t.Helper()
	if !conformance() {
		t.Skip("slow: runs with ICOUNT_CONFORMANCE=1 (make conformance)")
	}
}

// makeProducts are what `make` builds in testdata/proc/make.
var makeProducts = []string{"main.o", "words.o", "sums.o", "prog"}

// TestProcessMake builds testdata/proc/make (three C files) with make and
// gcc (cc1, as, collect2, ld), natively and under icount in the same
// directory: the same output and status, object files and binary equal
// byte for byte, the same counts on every run (procRepeat).
func TestProcessMake(t *testing.T) {
	t.Parallel()
	conformanceOnly(t)
	dir := procDir(t)
	tmp := filepath.Join(filepath.Dir(dir), "tmp")
	src := filepath.Join(repoRoot, "testdata", "proc", "make")
	c := procCase{prog: "/usr/bin/make", argv0: "make", env: procEnv("TMPDIR=" + tmp),
		setup: func(t *testing.T, dir string) {
			for _, f := range []string{"Makefile", "prog.h", "main.c", "words.c", "sums.c"} {
				b, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.MkdirAll(tmp, 0o755); err != nil {
				t.Fatal(err)
			}
		}}
	readProducts := func() map[string][]byte {
		m := map[string][]byte{}
		for _, f := range makeProducts {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatalf("%s was not built: %v", f, err)
			}
			m[f] = b
		}
		return m
	}
	want, status := c.runNative(t, dir, nil)
	if status != 0 || strings.Count(want, "gcc ") != 4 {
		t.Fatalf("native make: exit %d, output:\n%s", status, want)
	}
	native := readProducts()
	start := time.Now()
	r := c.runIcount(t, dir)
	procLog(t, "make", r, start)
	procMatch(t, r, want, status)
	for f, b := range readProducts() {
		if !bytes.Equal(b, native[f]) {
			t.Errorf("%s differs from the native build's (%d bytes, native %d)", f, len(b), len(native[f]))
		}
	}
	progs := map[string]bool{}
	for _, e := range entries(r.profile, func(e profile.Process) bool { return e.Exec }) {
		progs[filepath.Base(e.Binary.Path)] = true
	}
	for _, p := range []string{"gcc", "cc1", "as", "collect2", "ld"} {
		if !progs[p] {
			t.Errorf("no process ran %s; the programs exec'd: %v", p, progs)
		}
	}
	procRepeat(t, c, dir, r)
}

// TestProcessGit runs testdata/proc/git.sh (git init, add, commit twice,
// log, status) with the author, committer, dates and HOME fixed: the
// commit ids and exit status are the native run's, and the counts the
// same on every run (procRepeat).
func TestProcessGit(t *testing.T) {
	t.Parallel()
	conformanceOnly(t)
	dir := procDir(t)
	home := filepath.Join(filepath.Dir(dir), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(repoRoot, "testdata", "proc", "git.sh")
	c := procCase{prog: "/bin/sh", argv0: "sh", args: []string{script}, env: procEnv("HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com", "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=C O Mitter", "GIT_COMMITTER_EMAIL=committer@example.com", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")}
	want, status := c.runNative(t, dir, nil)
	if want2, status2 := c.runNative(t, dir, nil); status != 0 || want != want2 || status2 != 0 || strings.Count(want, "\n") != 2 {
		t.Fatalf("native runs: exit %d and %d, output:\n%s\nthen:\n%s", status, status2, want, want2)
	}
	start := time.Now()
	r := c.runIcount(t, dir)
	procLog(t, "git", r, start)
	procMatch(t, r, want, status)
	procRepeat(t, c, dir, r)
}

// TestProcessPython runs testdata/proc/fork.py as python3 -c (Debian's
// /usr/bin/python3): subprocess.run of a program, of python3, of a shell
// pipeline and of a shell killing itself, os.fork with a pipe, a missing
// program; the output and exit status (2) are the native run's, the
// counts the same on every run (procRepeat).
func TestProcessPython(t *testing.T) {
	t.Parallel()
	conformanceOnly(t)
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatal("/usr/bin/python3 is missing: install python3")
	}
	code, err := os.ReadFile(filepath.Join(repoRoot, "testdata", "proc", "fork.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := procDir(t)
	c := procCase{prog: "/usr/bin/python3", argv0: "python3", args: []string{"-c", string(code)},
		env: procEnv("PYTHONHASHSEED=0", "PYTHONDONTWRITEBYTECODE=1")}
	want, status := c.runNative(t, dir, nil)
	if status != 2 || !strings.Contains(want, "os.fork child sent 328350 and exited 17\n") {
		t.Fatalf("native run: exit %d, output:\n%s", status, want)
	}
	start := time.Now()
	r := c.runIcount(t, dir)
	procLog(t, "python3", r, start)
	procMatch(t, r, want, status)
	procRepeat(t, c, dir, r)
}

// TestProcessDeadlock runs testdata/proc/deadlock2.c: a parent waiting for
// its child, the child reading a pipe only the parent could write. The run
// ends as a deadlock (122), naming each process's wait and where it waits.
func TestProcessDeadlock(t *testing.T) {
	t.Parallel()
	r := runIcount(t, nil, []string{"--fixed-clock"}, testProgram(t, "proc/deadlock2-musl"))
	if r.status != exitDeadlock {
		t.Fatalf("status %d, want %d; stderr:\n%s", r.status, exitDeadlock, r.stderr)
	}
	for _, want := range []string{
		"icount: deadlock: every thread waits and none can wake another (2 waiting)\n",
		"icount:   pid 1000 thread 1000 waits for wait4(1001) for a child to end, in __syscall_cp_c+0x17 (deadlock2-musl)\n",
		"icount:     called from waitpid+0x22 (deadlock2-musl)\n",
		"icount:   pid 1001 thread 1001 waits for read from pipe (fd 3), in __syscall_cp_c+0x17 (deadlock2-musl)\n",
		"icount:     called from read+0x1f (deadlock2-musl)\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.profile == nil || len(r.profile.Processes) != 2 || r.profile.Exit.Reason != "deadlock" {
		t.Fatalf("profile: %+v", r.profile)
	}
}
