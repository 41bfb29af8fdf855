package kernel

import (
	"testing"

	"github.com/icount-dev/icount/fixedclock"
)

// TestFDTableSize checks the descriptor table's size as select sees it:
// 64, growing by powers of two to hold the highest descriptor, never
// shrinking, and a fork's sized for what is open.
func TestFDTableSize(t *testing.T) {
	ft := newFDTable(&lockTable{})
	if ft.size != 64 {
		t.Fatalf("new table: size %d, want 64", ft.size)
	}
	f := &file{host: -1, stdio: true}
	for _, tc := range []struct{ fd, size int }{{63, 64}, {64, 128}, {100, 128}, {128, 256}, {1000, 1024}} {
		if err := ft.installAt(f, tc.fd); err != nil {
			t.Fatal(err)
		}
		if ft.size != tc.size {
			t.Errorf("after fd %d: size %d, want %d", tc.fd, ft.size, tc.size)
		}
	}
	ft.close(1000)
	if ft.size != 1024 {
		t.Errorf("after closing fd 1000: size %d, want 1024 (a table does not shrink)", ft.size)
	}
	if c := ft.fork(); c.size != 256 {
		t.Errorf("fork's table: size %d, want 256 (for fd 128)", c.size)
	}
}

// TestTimerForward checks how an interval timer's deadline moves on past
// now and how many intervals that takes, which are its overrun.
func TestTimerForward(t *testing.T) {
	p := &Process{k: &Kernel{clk: clockState{fixed: fixedclock.New(1e9, 1000)}}}
	now := p.now()
	for _, tc := range []struct{ deadline, interval, n, next int64 }{
		{now + 5, 10, 0, now + 5},   // not yet due
		{now, 10, 1, now + 10},      // due now
		{now - 45, 10, 5, now + 5},  // four missed, the fifth due
		{now - 50, 10, 6, now + 10}, // exactly on an interval
		{now - 1, 1 << 62, 1, now - 1 + 1<<62},
	} {
		tm := &posixTimer{itimer: itimer{deadline: tc.deadline, interval: tc.interval}}
		if n := p.forward(tm); n != tc.n || tm.deadline != tc.next {
			t.Errorf("forward(deadline now%+d, interval %d) = %d, deadline now%+d; want %d, now%+d",
				tc.deadline-now, tc.interval, n, tm.deadline-now, tc.n, tc.next-now)
		}
	}
}

// TestDeadlineParams checks SCHED_DEADLINE's parameters as
// __checkparam_dl does.
func TestDeadlineParams(t *testing.T) {
	for _, tc := range []struct {
		runtime, deadline, period uint64
		ok                        bool
	}{
		{10e6, 30e6, 30e6, true},
		{10e6, 30e6, 0, true}, // the period is the deadline
		{0, 0, 0, false},
		{1000, 30e6, 30e6, false}, // runtime under 1024 ns
		{40e6, 30e6, 30e6, false}, // runtime over the deadline
		{10e6, 30e6, 20e6, false}, // period under the deadline
		{10e3, 50e3, 50e3, false}, // period under 100 µs
		{10e6, 30e6, 5e9, false},  // period over 2^22 µs
	} {
		if got := dlParamsValid(tc.runtime, tc.deadline, tc.period); got != tc.ok {
			t.Errorf("dlParamsValid(%d, %d, %d) = %v, want %v", tc.runtime, tc.deadline, tc.period, got, tc.ok)
		}
	}
}
