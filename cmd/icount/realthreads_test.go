package main

import (
	"bytes"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// TestDebianThreadedPrograms runs multi-threaded programs nobody here
// wrote, Debian's xz and zstd compressing with worker threads: the output
// equals the native run's, the program made threads, and two runs count
// the same, per thread too.
func TestDebianThreadedPrograms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dynamicInputs(t, dir)
	for _, c := range []struct {
		name  string
		args  []string
		flags []string
	}{
		// -T0: a worker per CPU, 4 under --cpus 4; 16 KiB blocks make
		// the 60 KB input several blocks, compressed in parallel.
		{"xz", []string{"-T0", "--block-size=16KiB", "-c", "words.txt"}, []string{"--cpus", "4"}},
		{"zstd", []string{"-T4", "-q", "-c", "words.txt"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			prog := hostProgram(t, c.name)
			want, status := runNative(t, dir, nil, prog, c.args...)
			if status != 0 {
				t.Fatalf("native run: status %d", status)
			}
			run := func() result {
				return runIcountWith(t, func(cmd *exec.Cmd) { cmd.Dir, cmd.Env, cmd.Stdin = dir, []string{}, bytes.NewReader(nil) },
					append([]string{"-q", "--fixed-clock"}, c.flags...), prog, c.args...)
			}
			first := run()
			if first.status != 0 || first.stdout != want || first.profile == nil {
				t.Fatalf("status %d, output equal to the native run's: %v; stderr:\n%s", first.status, first.stdout == want, first.stderr)
			}
			if len(first.profile.Threads) < 2 {
				t.Fatalf("%d threads: the program made none", len(first.profile.Threads))
			}
			again := run()
			if again.profile == nil || again.profile.Totals != first.profile.Totals ||
				!reflect.DeepEqual(again.profile.Threads, first.profile.Threads) || again.stdout != want {
				t.Errorf("two runs differ: %+v %v, then %+v %v", first.profile.Totals, first.profile.Threads,
					again.profile.Totals, again.profile.Threads)
			}
			t.Logf("%s %s: %d instructions, %d threads", c.name, strings.Join(c.args, " "), first.profile.Totals.Instructions, len(first.profile.Threads))
		})
	}
}
