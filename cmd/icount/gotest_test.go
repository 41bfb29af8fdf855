package main

// Go programs under icount (issue 8): a Go binary starts threads before
// main, parks them on futexes, waits in epoll, preempts goroutines with
// signals and recovers from nil-pointer panics through SIGSEGV. The tests
// build testdata/go (a module of its own) with the Go toolchain running
// them, for amd64 and arm64, and check the output and that the count is
// the same on every run.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// goArches are the GOARCH values of the guests.
var goArches = []string{"amd64", "arm64"}

// goBuilds remembers what buildGo built, so that each is built once per
// test binary.
var goBuilds sync.Map // key "arch/what" → *goBuild

type goBuild struct {
	once sync.Once
	path string
	err  error
}

// buildGo builds testdata/go's package pkg (./prog, or ./bench as a test
// binary with test) for GOARCH arch, CGO_ENABLED=0, into
// testdata/build/go/ARCH, and returns the binary's path.
func buildGo(t *testing.T, arch, pkg string, test bool) string {
	t.Helper()
	name := filepath.Base(pkg)
	if test {
		name += ".test"
	}
	v, _ := goBuilds.LoadOrStore(arch+"/"+name, &goBuild{})
	b := v.(*goBuild)
	b.once.Do(func() {
		dir := filepath.Join(buildDir, "go", arch)
		if b.err = os.MkdirAll(dir, 0o755); b.err != nil {
			return
		}
		b.path = filepath.Join(dir, name)
		args := []string{"build", "-o", b.path, pkg}
		if test {
			args = []string{"test", "-c", "-o", b.path, pkg}
		}
		cmd := exec.Command("go", args...)
		cmd.Dir = filepath.Join(repoRoot, "testdata", "go")
		cmd.Env = append(os.Environ(), "GOARCH="+arch, "GOOS=linux", "CGO_ENABLED=0", "GOFLAGS=", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go %v (GOARCH=%s): %v\n%s", args, arch, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// TestGoProgram runs testdata/go/prog (goroutines, channels, a WaitGroup,
// a mutex, a pipe read through the network poller, a forced GC, a map,
// strconv, a recovered nil-pointer panic, sleeps) five times under
// --fixed-clock on each arch: its output is the native amd64 build's, and
// every run counts the same.
func TestGoProgram(t *testing.T) {
	t.Parallel()
	native, status := runNative(t, t.TempDir(), nil, buildGo(t, "amd64", "./prog", false))
	if status != 0 || !strings.Contains(native, "\nrecovered: -1 runtime error: invalid memory address or nil pointer dereference\n") || !strings.HasSuffix(native, "\ndone\n") {
		t.Fatalf("native run: exit %d\n%s", status, native)
	}
	for _, arch := range goArches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			prog := buildGo(t, arch, "./prog", false)
			var first result
			for i := 0; i < 5; i++ {
				r := runIcount(t, nil, []string{"--fixed-clock"}, prog)
				if r.status != 0 || r.profile == nil {
					t.Fatalf("run %d: exit %d\n%s", i+1, r.status, r.stderr)
				}
				if r.stdout != native {
					t.Fatalf("run %d: output differs from the native amd64 build's:\nicount:\n%s\nnative:\n%s", i+1, r.stdout, native)
				}
				if i == 0 {
					first = r
					t.Logf("%s: %d instructions, %d threads", arch, r.profile.Totals.Instructions, len(r.profile.Threads))
					continue
				}
				if d := sameRun(first, r); d != "" {
					t.Fatalf("run %d differs from run 1: %s", i+1, d)
				}
			}
			// The runtime's start-up reads: the huge-page size icount
			// fixes, and no control group (/proc/self/cgroup is absent,
			// so nothing under /sys/fs/cgroup is read).
			want := []string{"/sys/kernel/mm/transparent_hugepage/hpage_pmd_size"}
			var got []string
			for _, f := range first.profile.Meta.Files {
				got = append(got, f.Path)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("files opened: %q, want %q", got, want)
			}
			for _, call := range []string{"epoll_create1", "epoll_ctl", "epoll_pwait", "eventfd2", "pipe2", "clone"} {
				if first.profile.Syscalls[call] == 0 {
					t.Errorf("no %s among the system calls %v: the program no longer exercises it", call, first.profile.Syscalls)
				}
			}
		})
	}
}

// benchLine is a line of `go test -bench` output for one of testdata/go's
// benchmarks run 100 times (-test.benchtime=100x), without a -GOMAXPROCS
// suffix: the guest has one CPU.
var benchLine = regexp.MustCompile(`(?m)^Benchmark(Sort|Hash|Fib)\s+100\s+\d+ ns/op`)

// TestGoBenchmark runs testdata/go/bench's test binary as a user would
// profile a Go benchmark, five times on each arch: the benchmark lines
// and PASS appear, and every run's output and count are the same.
func TestGoBenchmark(t *testing.T) {
	t.Parallel()
	for _, arch := range goArches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			bin := buildGo(t, arch, "./bench", true)
			var first result
			for i := 0; i < 5; i++ {
				r := runIcount(t, nil, []string{"--fixed-clock"}, bin, "-test.run=^$", "-test.bench=.", "-test.benchtime=100x")
				if r.status != 0 || r.profile == nil {
					t.Fatalf("run %d: exit %d\n%s%s", i+1, r.status, r.stdout, r.stderr)
				}
				if i == 0 {
					first = r
					if n := len(benchLine.FindAllString(r.stdout, -1)); n != 3 || !regexp.MustCompile(`(?m)^PASS$`).MatchString(r.stdout) {
						t.Fatalf("want the lines of BenchmarkSort, BenchmarkHash and BenchmarkFib (%d found) and PASS:\n%s", n, r.stdout)
					}
					t.Logf("%s: %d instructions\n%s", arch, r.profile.Totals.Instructions, r.stdout)
					continue
				}
				if d := sameRun(first, r); d != "" {
					t.Fatalf("run %d differs from run 1: %s", i+1, d)
				}
			}
		})
	}
}

// benchSort is BenchmarkSort's symbol.
const benchSort = "icount-testdata/go/bench.BenchmarkSort"

// collectSort runs BenchmarkSort n times (-test.benchtime=Nx) under
// --collect and returns the run.
func collectSort(t *testing.T, bin string, n int, flags ...string) result {
	t.Helper()
	flags = append([]string{"--fixed-clock", "--collect", benchSort}, flags...)
	r := runIcount(t, nil, flags, bin, "-test.run=^$", "-test.bench=Sort", "-test.benchtime="+strconv.Itoa(n)+"x")
	if r.status != 0 || r.profile == nil || r.profile.Region == nil {
		t.Fatalf("benchtime %dx: exit %d, or no region in the profile\n%s%s", n, r.status, r.stdout, r.stderr)
	}
	if !regexp.MustCompile(`(?m)^BenchmarkSort\s+` + strconv.Itoa(n) + `\s+\d+ ns/op`).MatchString(r.stdout) {
		t.Fatalf("benchtime %dx: no benchmark line:\n%s", n, r.stdout)
	}
	return r
}

// TestGoBenchmarkCollect counts BenchmarkSort's dynamic extent alone with
// --collect. The count is the same on every run and leaves out the rest of
// the test binary (its start, the testing package's work, the other
// threads). With a quantum longer than the whole benchmark, no other
// thread runs while it does, so the runtime's monitor thread never
// preempts it and the extent holds the benchmark's work and nothing else:
// going from 100 to 200 and from 200 to 300 iterations adds exactly the
// same count, 100 identical iterations. (With the default quantum the
// monitor preempts the goroutine at instants set by the thread switches,
// and the scheduler work each preemption does runs inside the extent: a
// count still the same on every run, but not exactly linear in N.)
func TestGoBenchmarkCollect(t *testing.T) {
	t.Parallel()
	for _, arch := range goArches {
		t.Run(arch, func(t *testing.T) {
			t.Parallel()
			bin := buildGo(t, arch, "./bench", true)
			a, b := collectSort(t, bin, 100), collectSort(t, bin, 100)
			if d := sameRun(a, b); d != "" {
				t.Fatalf("two runs differ: %s", d)
			}
			if a.profile.Region.OutsideInstructions == 0 {
				t.Fatalf("nothing counted outside %s", benchSort)
			}
			t.Logf("%s: %d instructions inside %s, %d outside", arch, a.profile.Totals.Instructions, benchSort, a.profile.Region.OutsideInstructions)

			const longQuantum = "1000000000"
			var counts [3]uint64
			for i, n := range []int{100, 200, 300} {
				counts[i] = collectSort(t, bin, n, "--quantum", longQuantum).profile.Totals.Instructions
			}
			d1, d2 := counts[1]-counts[0], counts[2]-counts[1]
			t.Logf("%s, --quantum %s: %v inside at 100x, 200x, 300x: %d per iteration", arch, longQuantum, counts, d1/100)
			if d1 != d2 || d1%100 != 0 || d1 == 0 {
				t.Errorf("100 more iterations add %d, then %d instructions: want the same count twice, a multiple of 100", d1, d2)
			}
		})
	}
}
