package main

// The time, scheduling and process-attribute calls (kernel/sys_posixtimer.go,
// sys_sched.go, sys_caps.go and their neighbours), which Ruby (timer_create)
// and Node (capget) make at start (issue 15).

import (
	"strings"
	"testing"
)

// TestTimesched runs each program of testdata/c that makes these calls
// with ordinary and edge arguments, built musl- and glibc-static for amd64
// and glibc-static for arm64: under icount --fixed-clock (timers expire in
// guest time) it prints, line for line, what it prints natively as uid
// 1000 (for arm64 under qemu-aarch64, except where qemu is no judge: its
// own timer ids and a lost sigev_value, so posixtimers' arm64 build is held
// to the amd64 glibc build's native output), and exits 0.
func TestTimesched(t *testing.T) {
	for _, c := range []struct {
		name, last string
		lines      int
		noQemu     bool // qemu-aarch64 does not answer as Linux does
	}{
		{"posixtimers", "parent's timer still armed: 1\ndone\n", 80, true},
	} {
		for _, prog := range []string{"c/" + c.name + "-musl", "c/" + c.name + "-glibc", "arm64/c/" + c.name + "-glibc"} {
			t.Run(prog, func(t *testing.T) {
				bin := testProgram(t, prog)
				judge := bin
				if c.noQemu && strings.HasPrefix(prog, "arm64/") {
					judge = testProgram(t, "c/"+c.name+"-glibc")
				}
				want, status := runJudge(t, nil, judge)
				if status != 0 || !strings.HasSuffix(want, c.last) || strings.Count(want, "\n") < c.lines {
					t.Fatalf("judge: exit %d, output:\n%s", status, want)
				}
				r := runIcount(t, nil, []string{"--fixed-clock"}, bin)
				if r.status != 0 || r.stdout != want {
					t.Fatalf("under icount: exit %d, output:\n%s\nwant:\n%s\nstderr:\n%s", r.status, r.stdout, want, r.stderr)
				}
			})
		}
	}
}
