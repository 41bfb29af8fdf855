package main

// The time, scheduling and process-attribute calls (kernel/sys_posixtimer.go,
// sys_timerfd.go, sys_signalfd.go, sys_select.go, sys_sched.go, sys_caps.go,
// sys_mlock.go and their neighbours), which Ruby (timer_create) and Node
// (capget) make at start (issue 15).

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestTimesched runs each program of testdata/c that makes these calls
// with ordinary and edge arguments, built musl- and glibc-static for amd64
// and glibc-static for arm64: under icount --fixed-clock (timers expire in
// guest time) it prints, line for line, what its amd64 build prints
// natively as uid 1000 (the arm64 build too: qemu-aarch64 is no judge of
// these calls, with its own timer ids, a lost sigev_value, ENOSYS for the
// robust lists, its own siginfo and sched_attr conversions, a thread of
// its own that keeps its nice value, and pselect6's time left not written
// back), and exits 0; a second run does the same work (sameRun).
func TestTimesched(t *testing.T) {
	cred := unprivileged(t)
	for _, c := range []struct {
		name, last string
		lines      int
	}{
		{"posixtimers", "parent's timer still armed: 1\ndone\n", 80},
		{"timerthread", "one-shot ran: 1\ntimer_delete one-shot: 0\n", 8},
		{"sched", "tgsigqueueinfo SI_USER to the parent: EPERM; handler: sig 0 code 0 pid 0 value 0\ndone\n", 170},
		{"select", "select cut by SIGALRM: EINTR 0\n  handled 14, left in (4 s, 5 s): 1\ndone\n", 40},
		{"timerfd", "parent: read after the child: EAGAIN -1 count 0\nclosed: gettime EBADF\ndone\n", 45},
		{"signalfd", "  signo 17 errno 0 code 1 pid ok 1 uid 1000 tid 0 overrun 0 status 7 int 0 ptr 0 addr 0\ndone\n", 35},
		{"mlock", "msync across the hole to a locked page, MS_INVALIDATE: EBUSY\ndone\n", 50},
	} {
		for _, prog := range []string{"c/" + c.name + "-musl", "c/" + c.name + "-glibc", "arm64/c/" + c.name + "-glibc"} {
			t.Run(prog, func(t *testing.T) {
				bin := testProgram(t, prog)
				judge := testProgram(t, strings.TrimPrefix(prog, "arm64/"))
				want, status := runNativeWith(t, "/", nil, cred, judge) // it writes no file
				if status != 0 || !strings.HasSuffix(want, c.last) || strings.Count(want, "\n") < c.lines {
					t.Fatalf("native: exit %d, output:\n%s", status, want)
				}
				r := runIcount(t, nil, []string{"--fixed-clock"}, bin)
				if r.status != 0 || r.stdout != want {
					t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
				}
				if diff := sameRun(r, runIcount(t, nil, []string{"--fixed-clock"}, bin)); diff != "" {
					t.Errorf("a second run differs: %s", diff)
				}
			})
		}
	}
}

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
