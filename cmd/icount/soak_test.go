//go:build soak

package main

// The soak test (make soak, not in CI): every test program under icount,
// many times in parallel, for SOAK_DURATION (default 10m). Each program's
// counts must never differ between runs, and no run may fail: no panic,
// no internal error, no missing or unparseable Profile, the same status
// every time.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/report"
)

// soakFlags bound every run: a fixed clock for programs that read the
// time, an exact instruction limit for those that never end, and a memory
// limit for the memory bomb.
var soakFlags = []string{"--fixed-clock", "--max-instructions", "300000000", "--max-memory", "256M", "-q"}

// soakPrograms lists every executable under testdata/build and the
// busybox fetched for the tests.
func soakPrograms(t *testing.T) []string {
	var progs []string
	filepath.WalkDir(buildDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil && info.Mode()&0o111 != 0 {
			progs = append(progs, path)
		}
		return nil
	})
	bb, _ := filepath.Glob(filepath.Join(repoRoot, ".deps", "busybox", "*", "busybox"))
	progs = append(progs, bb...)
	sort.Strings(progs)
	if len(progs) == 0 {
		t.Fatal("no test programs: run make testprogs")
	}
	return progs
}

// soakRun is one run's outcome: what must be equal every time.
type soakRun struct {
	status      int
	fingerprint string
}

// soakOnce runs prog in cwd, an empty directory: its path is the same
// length for every run, since a program that reads it (getcwd) does work
// that depends on its length.
func soakOnce(t *testing.T, prog, cwd string, countOnly bool, stdin []byte) (soakRun, error) {
	jsonPath := filepath.Join(t.TempDir(), "p.json")
	args := append([]string{"run", "--json", jsonPath}, soakFlags...)
	if countOnly {
		args = append(args, "--count-only")
	}
	args = append(args, prog)
	if strings.Contains(prog, "busybox") {
		args = append(args, "sh", "-c", "echo hello | wc -c; seq 1 200 | sort -r | head -3; echo done")
	}
	cmd := exec.Command(icountBin, args...)
	cmd.Dir, cmd.Stdin = cwd, bytes.NewReader(stdin)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	r := soakRun{}
	if ee, ok := err.(*exec.ExitError); ok {
		r.status = ee.ExitCode()
	} else if err != nil {
		return r, err
	}
	s := errb.String()
	if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") || r.status == exitInternal {
		return r, fmt.Errorf("status %d:\n%s", r.status, s)
	}
	if r.status == exitNotFound || r.status == exitCannotRun {
		return r, nil // a program icount refuses, the same way each time
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return r, fmt.Errorf("status %d, no profile: %v\n%s", r.status, err, s)
	}
	p, err := profile.Parse(jsonPath, b)
	if err != nil {
		return r, err
	}
	fp, _ := json.Marshal([]any{p.Totals, p.Exit, p.Syscalls, p.Functions, p.CallTree, p.HotBlocks, p.Meta.Clock, p.Warnings})
	r.fingerprint = string(fp)
	return r, nil
}

func TestSoak(t *testing.T) {
	d := 10 * time.Minute
	if s := os.Getenv("SOAK_DURATION"); s != "" {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			t.Fatal(err)
		}
	}
	progs := soakPrograms(t)
	stdin, _ := os.ReadFile(filepath.Join(repoRoot, "testdata", "c", "textstat.c"))
	type key struct {
		prog      string
		countOnly bool
	}
	var mu sync.Mutex
	first := map[key]soakRun{}
	runs := map[key]int{}
	failures := 0
	next := 0
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	workers := 2 * runtime.NumCPU()
	cwds := t.TempDir()
	for w := 0; w < workers; w++ {
		cwd := filepath.Join(cwds, fmt.Sprintf("w%04d", w))
		if err := os.Mkdir(cwd, 0o755); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				mu.Lock()
				k := key{progs[next%len(progs)], (next/len(progs))%2 == 1}
				next++
				mu.Unlock()
				r, err := soakOnce(t, k.prog, cwd, k.countOnly, stdin)
				mu.Lock()
				runs[k]++
				if err != nil {
					failures++
					t.Errorf("%s (count-only %v): %v", k.prog, k.countOnly, err)
				} else if f, ok := first[k]; !ok {
					first[k] = r
				} else if f != r {
					failures++
					t.Errorf("%s (count-only %v): run %d differs: status %d, want %d\n%s\nwant\n%s",
						k.prog, k.countOnly, runs[k], r.status, f.status, r.fingerprint, f.fingerprint)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	total := 0
	var lines []string
	for k, n := range runs {
		total += n
		rel, _ := filepath.Rel(repoRoot, k.prog)
		lines = append(lines, fmt.Sprintf("%6d  %s%s (status %d)", n, rel, map[bool]string{true: " --count-only"}[k.countOnly], first[k].status))
	}
	sort.Strings(lines)
	t.Logf("soak: %d runs of %d programs (%d with and without --count-only) in %v, %d at a time; %d failures\n%s",
		total, len(progs), len(runs), d, workers, failures, strings.Join(lines, "\n"))
}
