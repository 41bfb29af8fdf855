package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icount-dev/icount/internal/mutate"
)

// Limits of one mutant's whole icount run.
const (
	mutantTimeout = 30 * time.Second
	mutantMaxRSS  = 1 << 30
)

// TestMutantRuns runs mutants of real static, dynamic and -g binaries as
// whole `icount run` processes (100 in go test, 20,000 under
// ICOUNT_CONFORMANCE=1; the readers get 20,000 in-process in count's and
// loader's TestMutants): none may panic ("panic:", "goroutine ", "fatal
// error:" on stderr), outlive its timeout (icount's own --timeout is
// shorter), or grow past 1 GiB of host memory. What the mutant itself does
// (a fault, a refusal, an exit) is its own affair.
func TestMutantRuns(t *testing.T) {
	t.Parallel()
	var seeds []*mutate.Seed
	for _, p := range []string{"c/callgraph-musl-g", "c/empty-dynamic", "c/empty-musl", "amd64/callgraph-g", "arm64/loop-pie"} {
		b, err := os.ReadFile(testProgram(t, p))
		if err != nil {
			t.Fatal(err)
		}
		s, err := mutate.NewSeed(filepath.Base(p), b)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, s)
	}
	n := mutate.Count(100, 20000)
	dir := t.TempDir()
	start := time.Now()
	var mu sync.Mutex
	statuses := map[int]int{} // how the runs ended, by icount's status
	var wg sync.WaitGroup
	work := make(chan uint64)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				m := seeds[i%uint64(len(seeds))].Mutant(i)
				status, msg := runMutant(t, dir, i, m)
				mu.Lock()
				statuses[status]++
				if msg != "" {
					t.Errorf("%s: %s", m.What, msg)
				}
				mu.Unlock()
			}
		}()
	}
	for i := uint64(0); i < uint64(n); i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	t.Logf("%d mutant runs in %v; by status: %v", n, time.Since(start).Round(time.Millisecond), statuses)
}

// runMutant runs mutant i under icount: its status, and what was wrong,
// "" if nothing.
func runMutant(t *testing.T, dir string, i uint64, m mutate.Mutant) (int, string) {
	path := filepath.Join(dir, "mutant"+strconv.FormatUint(i, 10))
	if err := os.WriteFile(path, m.Data, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(path)
	ctx, cancel := context.WithTimeout(context.Background(), mutantTimeout)
	defer cancel()
	run := measure(t, ctx, "run", "-q", "--timeout", "10s", "--max-instructions", "50000000",
		"--max-memory", "512M", "--lines", "--json", path+".json", path)
	run.Dir = dir
	var errb bytes.Buffer
	run.Stdout, run.Stderr = nil, &errb
	_ = run.Run()
	defer os.Remove(path + ".json")
	stderr, status := errb.String(), run.ProcessState.ExitCode()
	switch {
	case ctx.Err() != nil:
		return status, "hangs: killed after " + mutantTimeout.String()
	case strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "fatal error:"):
		return status, "icount crashed:\n" + stderr
	case run.peakRSS() > mutantMaxRSS:
		return status, "took " + strconv.FormatInt(run.peakRSS()>>20, 10) + " MiB of host memory"
	}
	return status, ""
}
