package kernel

import (
	"fmt"
	"math"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Tasks: the guest's threads, of every process. A task runs on its
// process's CPU (one per address space); the tasks not running wait with
// their registers saved (emu.Context). A task runs until it blocks in a
// system call, exits, or has run a quantum of instructions; the next
// runnable task in creation order runs then (sched.go), whichever process
// it belongs to. No host time enters: a count is the same on every run.

// threadState is where a thread is in its life.
type threadState int

const (
	runnable threadState = iota // running, or ready to
	blocked                     // waiting in a system call (wait)
	exited
)

// sigState is a task's own part of the signal state: the process shares
// the handlers (Process.sigactions).
type sigState struct {
	mask     uint64 // blocked signals, bit sig-1
	altstack []byte // stack_t given to sigaltstack, nil for none
	pending  uint64 // signals sent to it and not yet delivered, bit sig-1
	// Signal delivery (signal.go): each pending signal's siginfo, what
	// rt_sigreturn still has to restore when the CPU has stopped.
	info      [nsig]sigInfo
	afterStop func() error
	// suspended says that rt_sigsuspend replaced mask until a handler
	// runs: the handler's frame then saves suspendedMask, the mask before.
	suspended     bool
	suspendedMask uint64
	// handlers counts the handler frames entered and not yet returned
	// from with rt_sigreturn (restart_syscall, sys_legacy.go).
	handlers int
}

// Task is one guest thread: its registers and its part of the signal
// state. Its process (the thread group) holds what its threads share, the
// Kernel what every process shares.
type Task struct {
	proc *Process
	tid  int
	ctx  *emu.Context // its registers while another task runs on its CPU
	// ctxCPU is the CPU ctx belongs to: its process's, or, until the next
	// switch frees it, the one it left by exec.
	ctxCPU CPU
	state  threadState
	wait   *wait // what it waits for, while blocked
	// result is what its system call returns when the wait ends.
	result uint64
	// clearTID is CLONE_CHILD_CLEARTID's address (set_tid_address): at
	// the thread's exit 0 is written there and one futex waiter woken.
	clearTID   uint64
	robustList uint64
	sig        sigState
	// slot is 1 + its index among its image's tasks (Image.account), 0
	// for none.
	slot int
	name string // prctl PR_SET_NAME
	// sched is its scheduling policy and nice value (sys_sched.go).
	sched schedState
	// vforkParent is the task a CLONE_VFORK child's exec or exit
	// releases (it waits until then); nil for none.
	vforkParent *Task
	io          *ioContext // its I/O priority (sys_ioprio.go); nil until set
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
	// onHost, if not nil, ends the wait by waiting on the host, when no
	// thread of the run can run and no deadline is left (an open of a
	// FIFO whose other end only a host process can open): the call's
	// result.
	onHost func() (uint64, error)

	// A futex wait: the address, the FUTEX_WAIT_BITSET bits, and the
	// order of waiting (wakes take waiters first come, first served).
	futex  uint64
	bitset uint32
	seq    uint64

	// vfork is the pid of the CLONE_VFORK child a parent waits for: the
	// clone's result once the child execs or exits.
	vfork int
}

// errBlocked is returned by a handler that blocked the calling thread
// (Process.block): its result is written when the wait ends.
var errBlocked = errorString("the thread blocked")

// block makes the running task wait for w; a handler returns what it
// returns. The task's system call returns when the wait ends.
func (p *Process) block(w *wait) (uint64, error) {
	p.k.cur.state, p.k.cur.wait = blocked, w
	p.k.switching = true
	return 0, errBlocked
}

// now is the guest's time for deadlines, in nanoseconds of
// CLOCK_MONOTONIC: the fixed clock's time (without a read), or the host's.
func (p *Process) now() int64 { return p.k.now() }

// now is the guest's time for deadlines (Process.now).
func (k *Kernel) now() int64 {
	if c := k.clk.fixed; c != nil {
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

// CurrentTID is the thread id of the task running, or last run.
func (k *Kernel) CurrentTID() int { return k.cur.tid }

// threadByTID finds a thread of the process that has not exited.
func (p *Process) threadByTID(tid int) *Task {
	for _, t := range p.tasks {
		if t.tid == tid {
			return t
		}
	}
	return nil
}

// ThreadCount is one thread's share of a program's run.
type ThreadCount struct {
	TID          int
	Name         string
	Instructions uint64
}

// DeadlockError ends a run in which every task of every process waits
// with no deadline and nothing can wake one.
type DeadlockError struct {
	Threads []ThreadWait
}

// ThreadWait is where one thread of a deadlocked run waits.
type ThreadWait struct {
	PID   int // its process
	TID   int
	PC    uint64      // its system call's address
	What  string      // what it waits for
	Stack []emu.Frame // its calls, innermost first, when attribution is on
}

// Error says what happened; count lists the threads, naming where each
// waits.
func (e *DeadlockError) Error() string {
	procs := map[int]bool{}
	for _, t := range e.Threads {
		procs[t.PID] = true
	}
	if len(procs) > 1 {
		return fmt.Sprintf("deadlock: all %d threads of %d processes wait and none can wake another", len(e.Threads), len(procs))
	}
	return fmt.Sprintf("deadlock: all %d threads wait and none can wake another", len(e.Threads))
}
