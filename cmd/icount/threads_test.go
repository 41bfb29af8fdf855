package main

// Threads: a pthreads program (4 workers, a mutex, a condition variable, a
// barrier, joins) static and dynamic on both arches, with the output of
// its native run and the same count on every run, with the host busy or
// not; hand-written raw-clone threads counted exactly at any quantum, per
// thread too; a deadlock that ends with the listing of every thread's wait;
// a thread spinning forever on a flag, preempted so the others progress.

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/icount-dev/icount/profile"
)

// busyHost keeps the host's CPUs busy with spinning goroutines until the
// returned function is called.
func busyHost(t *testing.T) func() {
	t.Helper()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < runtime.NumCPU(); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := uint64(i)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for j := 0; j < 1_000_000; j++ {
					x = x*6364136223846793005 + 1442695040888963407
				}
			}
		}()
	}
	return func() { close(stop); wg.Wait() }
}

// sameThreads compares two runs' per-thread counts.
func sameThreads(a, b result) string {
	if !reflect.DeepEqual(a.profile.Threads, b.profile.Threads) {
		return fmt.Sprintf("threads %+v vs %+v", a.profile.Threads, b.profile.Threads)
	}
	return ""
}

// checkThreadTable checks a run's per-thread counts: tids 1000, 1001, ...
// in creation order, each thread having run, summing to the total.
func checkThreadTable(t *testing.T, p *profile.Profile, n int) {
	t.Helper()
	var sum uint64
	for i, th := range p.Threads {
		if th.TID != 1000+i || th.Instructions == 0 {
			t.Errorf("thread %d: %+v", i, th)
		}
		sum += th.Instructions
	}
	if len(p.Threads) != n || sum != p.Totals.Instructions {
		t.Errorf("%d threads summing to %d, want %d summing to the total %d: %+v",
			len(p.Threads), sum, n, p.Totals.Instructions, p.Threads)
	}
}

// TestPthreads runs testdata/c/pthreads.c, musl- and glibc-static and
// glibc-dynamic for amd64, glibc-static and glibc-dynamic for arm64: the
// output of the amd64 glibc build's native run, five runs counting the
// same to the thread, and the same again while every host CPU is busy.
// At --quantum 1024 (the mutex contended: threads are switched out holding
// it) the output is still right.
func TestPthreads(t *testing.T) {
	t.Parallel()
	native := testProgram(t, "c/pthreads-glibc")
	want, status := runNative(t, t.TempDir(), nil, native)
	if status != 0 || !strings.HasPrefix(want, "workers 4, sum 28799880000 (want 28799880000), joined codes 60\n") ||
		strings.Count(want, "\n") != 5 {
		t.Fatalf("native run: status %d, output:\n%s", status, want)
	}
	for _, c := range []struct {
		prog, arch string
		dynamic    bool
	}{
		{"c/pthreads-musl", "x86_64", false},
		{"c/pthreads-glibc", "x86_64", false},
		{"c/pthreads-dynamic", "x86_64", true},
		{"arm64/c/pthreads-glibc", "aarch64", false},
		{"arm64/c/pthreads-dynamic", "aarch64", true},
	} {
		t.Run(strings.ReplaceAll(c.prog, "/", "-"), func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, c.prog)
			flags := []string{"-q", "--fixed-clock"}
			var runs []result
			for i := 0; i < 5; i++ {
				r := runIcount(t, nil, flags, prog)
				if r.profile == nil || r.status != 0 || r.stdout != want {
					t.Fatalf("run %d: status %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", i+1, r.status, r.stdout, want, r.stderr)
				}
				runs = append(runs, r)
			}
			first := runs[0]
			m := first.profile.Meta
			if m.Arch != c.arch || (m.Interpreter != nil) != c.dynamic || m.Quantum != 100000 {
				t.Errorf("arch %s, interpreter %+v, quantum %d", m.Arch, m.Interpreter, m.Quantum)
			}
			checkThreadTable(t, first.profile, 5)
			if n := first.profile.Syscalls["clone"]; n != 4 {
				t.Errorf("clone made %d times, want 4 (system calls %v)", n, first.profile.Syscalls)
			}
			for i, r := range runs[1:] {
				if d := sameRun(first, r) + sameThreads(first, r); d != "" {
					t.Errorf("run %d differs from run 1: %s", i+2, d)
				}
			}

			stop := busyHost(t)
			loaded := []result{runIcount(t, nil, flags, prog), runIcount(t, nil, flags, prog)}
			stop()
			for i, r := range loaded {
				if d := sameRun(first, r) + sameThreads(first, r); d != "" {
					t.Errorf("run %d with the host busy differs from an idle one: %s\n%s", i+1, d, r.stderr)
				}
			}

			q := runIcount(t, nil, append(flags, "--quantum", "1024"), prog)
			if q.profile == nil || q.status != 0 || q.stdout != want || q.profile.Meta.Quantum != 1024 {
				t.Fatalf("--quantum 1024: status %d, stdout:\n%s\nstderr:\n%s", q.status, q.stdout, q.stderr)
			}
			checkThreadTable(t, q.profile, 5)
			if q2 := runIcount(t, nil, append(flags, "--quantum", "1024"), prog); sameRun(q, q2)+sameThreads(q, q2) != "" {
				t.Errorf("--quantum 1024: two runs differ: %s", sameRun(q, q2)+sameThreads(q, q2))
			}
		})
	}
}

// threadCounts reads the `# icount-threads: N N ...` line of a
// hand-written program: each thread's instructions in creation order.
func threadCounts(t *testing.T, src string) []uint64 {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^# icount-threads:((?: \d+)+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no `# icount-threads: N N ...` line", src)
	}
	var out []uint64
	for _, f := range strings.Fields(string(m[1])) {
		n, _ := strconv.ParseUint(f, 10, 64)
		out = append(out, n)
	}
	return out
}

// TestThreadsExact runs the hand-written raw-clone threads of
// testdata/{amd64,arm64}/threads*.S (threads.S: counted loops; amd64's
// threads_rep.S: a rep stosb each), static and static-PIE, at the default
// quantum and at quanta that switch the children out mid-loop (mid-rep)
// dozens of times (1024, the smallest, and two that fall elsewhere): every
// run counts exactly what the header works out, in total and for each
// thread.
func TestThreadsExact(t *testing.T) {
	t.Parallel()
	var srcs []string
	for _, arch := range []string{"amd64", "arm64"} {
		m, _ := filepath.Glob(filepath.Join(repoRoot, "testdata", arch, "threads*.S"))
		srcs = append(srcs, m...)
	}
	if len(srcs) != 3 {
		t.Fatalf("thread programs %v, want amd64's threads.S and threads_rep.S and arm64's threads.S", srcs)
	}
	for _, src := range srcs {
		arch := filepath.Base(filepath.Dir(src))
		name := strings.TrimSuffix(filepath.Base(src), ".S")
		want := readExpectation(t, src)
		perThread := threadCounts(t, src)
		var sum uint64
		for _, n := range perThread {
			sum += n
		}
		if sum != want.instructions || len(perThread) != 4 {
			t.Fatalf("%s: the threads' counts %v sum to %d, the header's total is %d", src, perThread, sum, want.instructions)
		}
		for _, variant := range []string{name, name + "-pie"} {
			for _, quantum := range []string{"", "1024", "1500", "7777"} {
				sub := arch + "/" + variant + "/quantum=" + quantum
				if quantum == "" {
					sub = arch + "/" + variant + "/default"
				}
				t.Run(sub, func(t *testing.T) {
					t.Parallel()
					var flags []string
					if quantum != "" {
						flags = []string{"--quantum", quantum}
					}
					r := runIcount(t, nil, flags, testProgram(t, filepath.Join(arch, variant)))
					checkExpectation(t, r, want)
					got := r.profile.Totals
					if got.Syscalls != 14 || r.profile.Syscalls["clone"] != 3 || r.profile.Syscalls["futex"] != 7 || r.profile.Syscalls["exit"] != 4 {
						t.Errorf("system calls %v; want 3 clone, 7 futex, 4 exit", r.profile.Syscalls)
					}
					var gotThreads []uint64
					for i, th := range r.profile.Threads {
						if th.TID != 1000+i {
							t.Errorf("thread %d has tid %d", i, th.TID)
						}
						gotThreads = append(gotThreads, th.Instructions)
					}
					if !reflect.DeepEqual(gotThreads, perThread) {
						t.Errorf("threads ran %v instructions; want %v", gotThreads, perThread)
					}
				})
			}
		}
	}
}

// deadlockLine is one thread's line of the deadlock listing.
var deadlockLine = regexp.MustCompile(`(?m)^icount:   thread (\d+) waits for futex 0x[0-9a-f]+, in ([A-Za-z_][A-Za-z0-9_.]*)\+0x[0-9a-f]+ \((deadlock-\w+)\)$`)

// TestDeadlock runs testdata/c/deadlock.c, where two threads lock two
// mutexes in opposite order while main joins them: icount ends the run
// with status 122 and a listing naming every thread, the futex it waits
// on and the function waiting (glibc's workers in __lll_lock_wait, under
// pthread_mutex_lock), every line under the prefix; the same twice.
func TestDeadlock(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prog   string
		worker string // the function a worker waits in
	}{
		{"c/deadlock-musl", "__syscall_cp_c"},
		{"c/deadlock-glibc", "__lll_lock_wait"},
		{"arm64/c/deadlock-glibc", "__lll_lock_wait"},
	} {
		t.Run(strings.ReplaceAll(c.prog, "/", "-"), func(t *testing.T) {
			t.Parallel()
			prog := testProgram(t, c.prog)
			r := runIcount(t, nil, []string{"-q"}, prog)
			if r.status != exitDeadlock || r.stdout != "two threads take two locks in opposite order\n" {
				t.Fatalf("status %d (want %d), stdout %q\nstderr:\n%s", r.status, exitDeadlock, r.stdout, r.stderr)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if lines[0] != "icount: deadlock: every thread waits and none can wake another (3 waiting)" {
				t.Fatalf("stderr:\n%s", r.stderr)
			}
			// Each thread's callers reach the program's own function.
			threadLines := 0
			for _, l := range lines[1:] {
				if strings.HasPrefix(l, "icount:   thread ") {
					threadLines++
					continue
				}
				if !strings.HasPrefix(l, "icount:     called from ") {
					t.Errorf("line %q is neither a thread's nor a caller's", l)
				}
			}
			for i, caller := range []string{"main+", "ab+", "ba+"} {
				block := strings.Split(r.stderr, "icount:   thread ")[i+1]
				if !strings.Contains(block, "called from "+caller) {
					t.Errorf("thread %d's callers lack %s:\n%s", 1000+i, caller, block)
				}
			}
			for i, m := range deadlockLine.FindAllStringSubmatch(r.stderr, -1) {
				tid, fn, module := m[1], m[2], m[3]
				if tid != strconv.Itoa(1000+i) || module != filepath.Base(prog) || i > 0 && fn != c.worker {
					t.Errorf("thread line %d: %q; want thread %d, waiting in %s in %s", i, m[0], 1000+i, c.worker, filepath.Base(prog))
				}
			}
			if n := len(deadlockLine.FindAllString(r.stderr, -1)); n != 3 || threadLines != 3 {
				t.Errorf("%d thread lines, want 3:\n%s", n, r.stderr)
			}
			if r.profile == nil || r.profile.Exit.Reason != "deadlock" || !strings.Contains(r.profile.Exit.Message, "thread 1002 waits for futex") {
				t.Fatalf("profile exit %+v", r.profile)
			}
			checkThreadTable(t, r.profile, 3)
			again := runIcount(t, nil, []string{"-q"}, prog)
			if again.stderr != r.stderr || again.status != r.status || sameThreads(r, again) != "" ||
				again.profile.Totals != r.profile.Totals {
				t.Errorf("two runs differ:\n%s\n%s", r.stderr, again.stderr)
			}
		})
	}
}

// TestSpin runs testdata/c/spin.c: a thread spins on a volatile flag with
// no system call, which another thread sets after its work, while main
// spins on a flag the spinner sets. Only preemption at the quantum lets
// the worker run: the run ends with the native output and counts the same
// every time, at the default quantum and at 1024.
func TestSpin(t *testing.T) {
	t.Parallel()
	want, status := runNative(t, t.TempDir(), nil, testProgram(t, "c/spin-glibc"))
	if status != 0 || want != "spinner saw the flag; work 7a193fa86471c283\n" {
		t.Fatalf("native run: status %d, output %q", status, want)
	}
	for _, prog := range []string{"c/spin-musl", "c/spin-glibc", "arm64/c/spin-glibc"} {
		for _, quantum := range []string{"100000", "1024"} {
			t.Run(strings.ReplaceAll(prog, "/", "-")+"/quantum="+quantum, func(t *testing.T) {
				t.Parallel()
				flags := []string{"-q", "--quantum", quantum}
				var runs []result
				for i := 0; i < 3; i++ {
					r := runIcount(t, nil, flags, testProgram(t, prog))
					if r.profile == nil || r.status != 0 || r.stdout != want {
						t.Fatalf("status %d, stdout %q\nstderr:\n%s", r.status, r.stdout, r.stderr)
					}
					runs = append(runs, r)
				}
				checkThreadTable(t, runs[0].profile, 3)
				for i, r := range runs[1:] {
					if d := sameRun(runs[0], r) + sameThreads(runs[0], r); d != "" {
						t.Errorf("run %d differs from run 1: %s", i+2, d)
					}
				}
			})
		}
	}
}

// TestManyThreadsInTurn runs threads20k: 20,000 threads made and joined
// one after another, amd64 musl-static and arm64 glibc-static. The output
// is the native run's, every thread is in the Profile with pids in
// creation order, and two runs count the same. (Its time is make bench's.)
func TestManyThreadsInTurn(t *testing.T) {
	t.Parallel()
	const want = "199990000\n"
	if out, status := runNative(t, t.TempDir(), nil, testProgram(t, "c/threads20k-musl")); status != 0 || out != want {
		t.Fatalf("native run: status %d, output %q", status, out)
	}
	for _, prog := range []string{"c/threads20k-musl", "arm64/c/threads20k-glibc"} {
		t.Run(strings.ReplaceAll(prog, "/", "-"), func(t *testing.T) {
			t.Parallel()
			var runs []result
			for i := 0; i < 2; i++ {
				r := runIcount(t, nil, []string{"-q", "--fixed-clock"}, testProgram(t, prog))
				if r.profile == nil || r.status != 0 || r.stdout != want {
					t.Fatalf("status %d, stdout %q\nstderr:\n%s", r.status, r.stdout, r.stderr)
				}
				runs = append(runs, r)
			}
			threads := runs[0].profile.Threads
			if len(threads) != 20001 || threads[0].TID != 1000 || threads[20000].TID != 21000 {
				t.Fatalf("%d threads in the Profile, first %+v", len(threads), threads[0])
			}
			if d := sameRun(runs[0], runs[1]); d != "" {
				t.Errorf("run 2 differs from run 1: %s", d)
			}
		})
	}
}
