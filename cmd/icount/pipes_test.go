package main

// Threads that wait in the kernel for each other (issue 8): blocking pipe
// reads and writes, an eventfd read, epoll_wait and poll block the calling
// thread until another thread ends the wait or its timeout passes in guest
// time.

import (
	"testing"
)

// TestPipeThreads runs testdata/c/pipes.c (a writer blocked on a full pipe,
// a reader on an empty one, a blocking eventfd read, an epoll_wait, a poll
// that times out and one that does not, one write larger than the pipe to
// a reader that polls) three times on each build: its
// output is the native amd64 build's, and every run counts the same.
func TestPipeThreads(t *testing.T) {
	t.Parallel()
	native, status := runNative(t, t.TempDir(), nil, testProgram(t, "c/pipes-glibc"))
	const want = "pipe: 1048576 bytes, hash 10333980108322242560, producer ok\n" +
		"eventfd: 7\n" +
		"epoll_wait: 1 event, data 0x1234567890, byte x\n" +
		"poll: 0 after the timeout, then 1 with revents 0x1\n" +
		"one write of 196608 bytes: wrote 196608, read 196608, polls > 1: 1\n"
	if status != 0 || native != want {
		t.Fatalf("native run: exit %d\n%s\nwant:\n%s", status, native, want)
	}
	for _, prog := range []string{"c/pipes-musl", "c/pipes-glibc", "arm64/c/pipes-glibc"} {
		t.Run(prog, func(t *testing.T) {
			t.Parallel()
			var first result
			for i := 0; i < 3; i++ {
				r := runIcount(t, nil, []string{"--fixed-clock"}, testProgram(t, prog))
				if r.status != 0 || r.profile == nil || r.stdout != want {
					t.Fatalf("run %d: exit %d, output\n%s\nwant:\n%s\n%s", i+1, r.status, r.stdout, want, r.stderr)
				}
				if i == 0 {
					first = r
					if len(r.profile.Threads) != 5 {
						t.Errorf("%d threads, want 5", len(r.profile.Threads))
					}
					continue
				}
				if d := sameRun(first, r); d != "" {
					t.Fatalf("run %d differs from run 1: %s", i+1, d)
				}
			}
			// The poll's 50 ms timeout and main's 200 ms sleep pass in
			// guest time: the fixed clock is never read.
			if c := first.profile.Meta.ClockUse; c.Reads != 0 || c.SleptNs != 200_000_000 {
				t.Errorf("clock: %d reads, slept %d ns; want 0 reads, 200 ms slept", c.Reads, c.SleptNs)
			}
		})
	}
}
