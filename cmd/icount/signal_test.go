package main

// Signals (issue 8): handlers that catch faults and siglongjmp out of them
// (a null pointer a thousand times, an unmapped page, a read-only page,
// an integer division by zero, a trap, a stack overflow caught on an
// alternate stack), and signals sent with raise, kill and pthread_kill to
// the thread itself, to a waiting thread and from a thread to the main
// one; SA_RESTART; sigwait, sigsuspend and a signal every thread blocks;
// SIGALRM from alarm and setitimer in guest time. Each program prints what
// its handlers saw: under icount the output
// is its native run's (the amd64 build's for arm64) and the count is the
// same on every run. The hand-written sigsegv.S of each arch, whose
// handler fixes the saved PC and returns through rt_sigreturn, is counted
// exactly by TestExactCounts.

import (
	"errors"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// signalGuests are the builds of a signal program run under icount, each
// with the build whose native run it must match.
func signalGuests(prog string) [][2]string {
	return [][2]string{
		{"c/" + prog + "-musl", "c/" + prog + "-musl"},
		{"c/" + prog + "-glibc", "c/" + prog + "-glibc"},
		{"arm64/c/" + prog + "-glibc", "c/" + prog + "-glibc"},
	}
}

func TestSignalHandlers(t *testing.T) {
	t.Parallel()
	for _, prog := range []struct {
		name       string
		sigreturns uint64 // handlers that returned
		flags      []string
	}{
		{"sigsegv", 0, nil},
		{"sigsend", 5, nil},
		{"sigsend", 5, []string{"--quantum", "1024"}},
		{"sigrestart", 2, nil},
		{"sigwait", 2, nil},
		// Timers fire in guest time: pinned, the counts are the same.
		{"timers", 6, []string{"--fixed-clock"}},
	} {
		for _, g := range signalGuests(prog.name) {
			name := g[0]
			if prog.flags != nil {
				name += "-" + strings.TrimLeft(prog.flags[0], "-")
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				want, status := runNative(t, t.TempDir(), nil, testProgram(t, g[1]))
				if status != 0 {
					t.Fatalf("native run: status %d", status)
				}
				guest := testProgram(t, g[0])
				first := runIcount(t, nil, prog.flags, guest)
				if first.profile == nil {
					t.Fatalf("no profile; stderr:\n%s", first.stderr)
				}
				if first.stdout != want || first.status != 0 || !first.profile.Exit.Complete {
					t.Fatalf("status %d, stdout:\n%s\nwant (native):\n%s\nstderr:\n%s", first.status, first.stdout, want, first.stderr)
				}
				if n := first.profile.Syscalls["rt_sigreturn"]; n != prog.sigreturns {
					t.Errorf("rt_sigreturn made %d times, want %d", n, prog.sigreturns)
				}
				for i := 0; i < 2; i++ {
					again := runIcount(t, nil, prog.flags, guest)
					if again.stdout != want || again.profile == nil || again.profile.Totals != first.profile.Totals {
						t.Fatalf("run %d differs: totals %+v, first %+v; stdout:\n%s", i+2, again.profile.Totals, first.profile.Totals, again.stdout)
					}
				}
			})
		}
	}
}

// TestSignalDefaultAction raises SIGTERM with no handler: natively the
// process dies of it; under icount the run ends with 128+15, the Profile
// naming the signal.
func TestSignalDefaultAction(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testProgram(t, "c/sigsend-glibc"), "die")
	cmd.Env = []string{}
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Fatalf("native run: %v", err)
	}
	for _, g := range signalGuests("sigsend") {
		t.Run(g[0], func(t *testing.T) {
			t.Parallel()
			r := runIcount(t, nil, nil, testProgram(t, g[0]), "die")
			if r.profile == nil {
				t.Fatalf("no profile; stderr:\n%s", r.stderr)
			}
			e := r.profile.Exit
			if r.stdout != string(out) || r.status != 128+15 || e.Status != 128+15 || e.Signal != "SIGTERM" || !e.Complete {
				t.Errorf("stdout %q (native %q), status %d, exit %+v", r.stdout, out, r.status, e)
			}
		})
	}
}
