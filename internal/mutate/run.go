package mutate

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Limits of one in-process mutation run.
const (
	// HeadRoom is the address space a mutation test's process may grow
	// by (RLIMIT_AS over what it had when it started): a reader that
	// allocates by a corrupt count dies with "fatal error: out of memory",
	// which the parent reports.
	HeadRoom = 2 << 30
	// PerMutant is how long one mutant may take in the readers.
	PerMutant = 20 * time.Second
)

const childEnv = "ICOUNT_MUTATE_CHILD"

// Count is how many mutants a test runs: short in `go test`, full under
// ICOUNT_CONFORMANCE=1 (make conformance); ICOUNT_MUTANTS overrides both.
func Count(short, full int) int {
	if s := os.Getenv("ICOUNT_MUTANTS"); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err == nil && n > 0 {
			return n
		}
	}
	if os.Getenv("ICOUNT_CONFORMANCE") != "" {
		return full
	}
	return short
}

// InChild runs the calling test again in a child process of the test
// binary under an address-space limit of HeadRoom beyond its size, and
// reports its failure, crash or out-of-memory death; it returns false
// there. In the child it sets the limit and returns true: the test goes on
// with its mutants.
func InChild(t *testing.T) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		vm, err := vmSize()
		if err != nil {
			t.Fatal(err)
		}
		var lim unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_AS, &lim); err != nil {
			t.Fatal(err)
		}
		lim.Cur = min(lim.Max, vm+HeadRoom)
		if err := unix.Setrlimit(unix.RLIMIT_AS, &lim); err != nil {
			t.Fatalf("setting RLIMIT_AS: %v", err)
		}
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.timeout=2h")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "mutants in") { // the child's measurement
			t.Log(strings.TrimSpace(l))
		}
	}
	if err != nil {
		t.Fatalf("the mutation test's process failed (%v):\n%s", err, excerpt(string(out), 8000))
	}
	return false
}

// excerpt is n bytes of a failed child's output from its first failure.
func excerpt(s string, n int) string {
	for _, mark := range []string{"fatal error:", "panic:", "--- FAIL"} {
		if i := strings.Index(s, mark); i >= 0 {
			s = s[i:]
			break
		}
	}
	if len(s) > n {
		return s[:n] + "\n..."
	}
	return s
}

func vmSize() (uint64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading the process's size: %w", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmSize:"); ok {
			var kib uint64
			if _, err := fmt.Sscan(rest, &kib); err != nil {
				return 0, fmt.Errorf("reading VmSize %q: %w", rest, err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}

// Each runs check on n mutants, spread over the seeds, on every CPU: a
// panic that escapes check, or a mutant that takes longer than PerMutant,
// fails the test naming the mutant. It logs how long they took.
func Each(t *testing.T, seeds []*Seed, n int, check func(Mutant) error) {
	t.Helper()
	start := time.Now()
	var next atomic.Uint64
	var mu sync.Mutex
	var failures []string
	fail := func(m Mutant, format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(failures) < 20 {
			failures = append(failures, m.What+": "+fmt.Sprintf(format, args...))
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= uint64(n) {
					return
				}
				m := seeds[i%uint64(len(seeds))].Mutant(i)
				one(m, check, fail)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d mutants in %v", n, time.Since(start).Round(time.Millisecond))
	for _, f := range failures {
		t.Error(f)
	}
}

// one checks one mutant under the watchdog of PerMutant.
func one(m Mutant, check func(Mutant) error, fail func(Mutant, string, ...any)) {
	watch := time.AfterFunc(PerMutant, func() {
		// A hang cannot be interrupted: name the mutant, show where
		// every goroutine is, and stop.
		buf := make([]byte, 1<<20)
		panic(fmt.Sprintf("mutation test: %s hangs (over %v)\n%s", m.What, PerMutant, buf[:runtime.Stack(buf, true)]))
	})
	defer watch.Stop()
	defer func() {
		if p := recover(); p != nil {
			buf := make([]byte, 8192)
			fail(m, "panic: %v\n%s", p, buf[:runtime.Stack(buf, false)])
		}
	}()
	if err := check(m); err != nil {
		fail(m, "%v", err)
	}
}
