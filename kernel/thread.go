package kernel

import (
	"fmt"
	"math"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Guest threads. Every thread runs on the one emulated CPU; the others
// wait with their registers saved (emu.Context). A thread runs until it
// blocks in a system call, exits, or has run a quantum of instructions;
// the next runnable thread in creation order runs then (sched.go). No host
// time enters: a count is the same on every run.

// threadState is where a thread is in its life.
type threadState int

const (
	runnable threadState = iota // running, or ready to
	blocked                     // waiting in a system call (wait)
	exited
)

// sigState is a thread's own part of the signal state: the process shares
// the handlers (Process.sigactions).
type sigState struct {
	mask     uint64 // blocked signals, bit sig-1
	altstack []byte // stack_t given to sigaltstack, nil for none
	pending  uint64 // signals sent to it and not yet delivered, bit sig-1
	// Signal delivery (signal.go): each pending signal's siginfo, what
	// rt_sigreturn still has to restore when the CPU has stopped, and the
	// signal that ended the process.
	info      [nsig]sigInfo
	afterStop func() error
	killedBy  int
	// suspended says that rt_sigsuspend replaced mask until a handler
	// runs: the handler's frame then saves suspendedMask, the mask before.
	suspended     bool
	suspendedMask uint64
}

// thread is one guest thread.
type thread struct {
	tid   int
	ctx   *emu.Context // its registers while another thread runs
	state threadState
	wait  *wait // what it waits for, while blocked
	// result is what its system call returns when the wait ends.
	result uint64
	// clearTID is CLONE_CHILD_CLEARTID's address (set_tid_address): at
	// the thread's exit 0 is written there and one futex waiter woken.
	clearTID   uint64
	robustList uint64
	sig        sigState
	insns      uint64 // instructions it ran, counted at each switch
	name       string // prctl PR_SET_NAME
}

// noDeadline is a wait's deadline when it has none.
const noDeadline = math.MaxInt64

// wait is what a blocked thread waits for. A futex wait is ended by a wake
// (futex.go); any wait may end at its deadline; a wait with ready is
// polled at every scheduling point (pipes, epoll) and ends when ready
// says so.
type wait struct {
	what     string // for the deadlock report: "futex 0x7f0010", "read from pipe (fd 3)"
	deadline int64  // guest time (Process.now) at which it times out, noDeadline for none
	// ready, if not nil, is polled at every scheduling point: done reports
	// that the call completes now with ret and err.
	ready func() (ret uint64, err error, done bool)
	// timedOut is the call's result at the deadline; nil gives ETIMEDOUT.
	timedOut func() (uint64, error)
	// restartable says that a signal whose handler has SA_RESTART makes
	// the call start again after the handler, not fail with EINTR (a read
	// or write, a futex wait with no timeout), as Linux does.
	restartable bool
	// release, if not nil, runs once the wait ends, however it ends
	// (files the call holds while it waits).
	release func()

	// A futex wait: the address, the FUTEX_WAIT_BITSET bits, and the
	// order of waiting (wakes take waiters first come, first served).
	futex  uint64
	bitset uint32
	seq    uint64
}

// errBlocked is returned by a handler that blocked the calling thread
// (Process.block): its result is written when the wait ends.
var errBlocked = errorString("the thread blocked")

// block makes the running thread wait for w; a handler returns what it
// returns. The thread's system call returns when the wait ends.
func (p *Process) block(w *wait) (uint64, error) {
	p.cur.state, p.cur.wait = blocked, w
	p.switching = true
	return 0, errBlocked
}

// now is the guest's time for deadlines, in nanoseconds of
// CLOCK_MONOTONIC: the fixed clock's time (without a read), or the host's.
func (p *Process) now() int64 {
	if c := p.clk.fixed; c != nil {
		return c.Now()
	}
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
		return 0
	}
	return ts.Nano()
}

// deadlineAfter is the deadline d nanoseconds from now.
func (p *Process) deadlineAfter(d int64) int64 {
	now := p.now()
	if d >= noDeadline-now {
		return noDeadline
	}
	return now + d
}

// CurrentTID is the thread id of the thread running, or last run.
func (p *Process) CurrentTID() int { return p.cur.tid }

// live counts the threads that have not exited.
func (p *Process) live() int { return p.alive }

// threadByTID finds a thread that has not exited.
func (p *Process) threadByTID(tid int) *thread {
	for _, t := range p.threads {
		if t.tid == tid && t.state != exited {
			return t
		}
	}
	return nil
}

// ThreadCount is one thread's share of a run.
type ThreadCount struct {
	TID          int
	Name         string
	Instructions uint64
}

// ThreadCounts returns the instructions each thread ran, in creation
// order, given the run's total: the first thread's share is what the
// others did not run (it alone ran before there were slices). Nil for a
// program that never made a second thread.
func (p *Process) ThreadCounts(total uint64) []ThreadCount {
	if len(p.threads) < 2 {
		return nil
	}
	out := make([]ThreadCount, len(p.threads))
	others := uint64(0)
	for i, t := range p.threads {
		out[i] = ThreadCount{TID: t.tid, Name: t.name, Instructions: t.insns}
		if i > 0 {
			others += t.insns
		}
	}
	out[0].Instructions = total - min(others, total)
	return out
}

// DeadlockError ends a run in which every thread waits with no deadline
// and nothing can wake one.
type DeadlockError struct {
	Threads []ThreadWait
}

// ThreadWait is where one thread of a deadlocked process waits.
type ThreadWait struct {
	TID   int
	PC    uint64      // its system call's address
	What  string      // what it waits for
	Stack []emu.Frame // its calls, innermost first, when attribution is on
}

// Error says what happened; count lists the threads, naming where each
// waits.
func (e *DeadlockError) Error() string {
	return fmt.Sprintf("deadlock: all %d threads wait and none can wake another", len(e.Threads))
}
