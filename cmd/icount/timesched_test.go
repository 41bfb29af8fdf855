package main

// The time, scheduling and process-attribute calls (kernel/sys_posixtimer.go,
// sys_timerfd.go, sys_signalfd.go, sys_select.go, sys_sched.go, sys_caps.go,
// sys_mlock.go and their neighbours), which Ruby (timer_create) and Node
// (capget) make at start (issue 15).

import (
	"os"
	"syscall"
	"testing"
)

// unprivileged is the credential that runs a native judge as icount's
// guest user, uid 1000 (nil when the test runs as uid 1000 already); the
// test is skipped when it can be neither.
func unprivileged(t *testing.T) *syscall.Credential {
	switch os.Geteuid() {
	case 0:
		return &syscall.Credential{Uid: 1000, Gid: 1000}
	case 1000:
		return nil
	}
	t.Skip("the native judge runs as uid 1000, which needs root (or uid 1000)")
	return nil
}

// TestRubyStarts runs Debian's ruby, whose start makes a POSIX timer for
// its timer thread (timer_create with SIGEV_THREAD_ID): `ruby -e 'p 1'`
// prints what it prints natively, and a second run does the same work.
func TestRubyStarts(t *testing.T) {
	t.Parallel()
	const ruby = "/usr/bin/ruby"
	if _, err := os.Stat(ruby); err != nil {
		t.Skip("no ruby (apt-get install ruby)")
	}
	args := []string{"-e", "t = Thread.new { sleep 0.05; 1 }; p t.value"}
	want, status := runNative(t, t.TempDir(), nil, ruby, args...)
	if status != 0 || want != "1\n" {
		t.Fatalf("native: exit %d, output %q", status, want)
	}
	r := runIcount(t, nil, []string{"--fixed-clock"}, ruby, args...)
	if r.status != 0 || r.stdout != want {
		t.Fatalf("under icount: exit %d, output %q, want %q\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
	}
	if diff := sameRun(r, runIcount(t, nil, []string{"--fixed-clock"}, ruby, args...)); diff != "" {
		t.Errorf("a second run differs: %s", diff)
	}
}
