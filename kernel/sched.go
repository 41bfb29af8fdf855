package kernel

import (
	"time"
)

// The scheduler. The run loop (count.Run) calls Schedule whenever the CPU
// stops for a thread's sake: a system call blocked or yielded, a thread
// exited, or the running thread used up its quantum (emu.ErrSliceEnd).
// Threads take turns in creation order; waits end by a wake, by their
// deadline in guest time, or when their readiness poll says so, all
// checked at scheduling points only.

// DefaultQuantum is how many instructions a thread runs before the others
// get their turn, unless it blocks first (--quantum).
const DefaultQuantum = 100_000

// MinQuantum is the smallest quantum: it must exceed the longest block.
const MinQuantum = 1024

// Quantum is the instructions a thread runs before the next one's turn.
func (p *Process) Quantum() uint64 { return p.quantum }

// Switching reports that the CPU stopped for the scheduler: a system call
// blocked, yielded or ended its thread, made a signal deliverable, or made
// the process's second thread (the CPU runs in slices from then on).
func (p *Process) Switching() bool { return p.switching }

// Schedule picks the thread to run next and makes it the CPU's, after the
// CPU stopped because Switching said so or because the running thread's
// slice ran out (sliceEnd). It returns where to run from, or a
// *DeadlockError when every thread waits for what no thread can do.
func (p *Process) Schedule(sliceEnd bool) (uint64, error) {
	yield := p.switching && p.yield || sliceEnd
	p.switching, p.yield = false, false
	from := p.cur
	if sliceEnd {
		p.passTime(p.lastRan)
	}
	p.fireTimers()
	if err := p.useSlices(); err != nil {
		return 0, err
	}
	next := from
	if from.state != runnable || yield {
		var err error
		if next, err = p.pickNext(from); err != nil {
			return 0, err
		}
	}
	if next != from {
		if err := p.cpu.Switch(from.ctx, next.ctx); err != nil {
			return 0, err
		}
		if from.state == exited {
			p.cpu.FreeContext(from.ctx)
			from.ctx = nil
		}
		p.cur = next
	}
	if next.wait != nil {
		// Its system call returns now.
		next.wait = nil
		if err := p.cpu.SetReg(p.abi.ret, next.result); err != nil {
			return 0, err
		}
	}
	// A signal made pending since the CPU stopped (a timer's) is delivered
	// now: no further stop is needed for it.
	p.switching = false
	if err := p.signalPoint(); err != nil {
		return 0, err
	}
	return p.cpu.PC(), nil
}

// useSlices makes the CPU run in slices once there is a second thread or
// a timer.
func (p *Process) useSlices() error {
	if p.sliced || len(p.threads) < 2 && !p.timerArmed() {
		return nil
	}
	p.sliced = true
	return p.cpu.SetSlice(p.quantum)
}

// Account adds the instructions of the CPU's last run to the running
// thread: call it after every run.
func (p *Process) Account(ran uint64) {
	p.cur.insns += ran
	p.lastRan = ran
}

// NominalHz is the rate at which guest time passes for a thread that runs
// out its quantum while another waits for a deadline: one instruction a
// nanosecond. Without it a thread spinning until a sleeping thread wakes
// would spin forever, since the fixed clock moves only when read.
const NominalHz = 1_000_000_000

// passTime moves the fixed clock on by the time ran instructions take at
// NominalHz, when a thread or a timer waits for a deadline; host time
// passes anyway.
func (p *Process) passTime(ran uint64) {
	c := p.clk.fixed
	if c == nil {
		return
	}
	if p.timerArmed() {
		c.Sleep(int64(ran * (1e9 / NominalHz)))
		return
	}
	for _, t := range p.threads {
		if t.state == blocked && t.wait.deadline != noDeadline {
			c.Sleep(int64(ran * (1e9 / NominalHz)))
			return
		}
	}
}

// pickNext returns the first runnable thread after from in creation order
// (from itself last), ending waits that are over; when every thread
// waits, guest time moves on to the earliest deadline.
func (p *Process) pickNext(from *thread) (*thread, error) {
	start := 0
	for i, t := range p.threads {
		if t == from {
			start = i + 1
		}
	}
	for {
		p.fireTimers()
		p.endWaits()
		n := len(p.threads)
		for i := 0; i < n; i++ {
			if t := p.threads[(start+i)%n]; t.state == runnable {
				return t, nil
			}
		}
		earliest := p.alarm.deadline
		for _, t := range p.threads {
			if t.state == blocked {
				earliest = min(earliest, t.wait.deadline)
			}
		}
		if earliest == noDeadline {
			return nil, p.deadlock()
		}
		if err := p.advanceTo(earliest); err != nil {
			return nil, err
		}
	}
}

// endWaits ends the waits that are over: those whose readiness poll says
// done, then those past their deadline.
func (p *Process) endWaits() {
	now := p.now()
	for _, t := range p.threads {
		if t.state != blocked {
			continue
		}
		w := t.wait
		if w.ready != nil {
			if ret, err, done := w.ready(); done {
				p.wake(t, ret, err)
				continue
			}
		}
		if w.deadline <= now {
			var ret uint64
			err := error(errTimedOut)
			if w.timedOut != nil {
				ret, err = w.timedOut()
			}
			p.wake(t, ret, err)
		}
	}
}

// errTimedOut is a wait's result at its deadline, unless it says otherwise.
var errTimedOut = Errno(110) // ETIMEDOUT

// wake makes a blocked thread runnable; its system call returns ret, or
// -errno for an Errno err.
func (p *Process) wake(t *thread, ret uint64, err error) {
	if e, ok := err.(Errno); ok {
		ret = uint64(-int64(e))
	}
	t.state, t.result = runnable, ret
	t.wait.end()
}

// end runs the wait's release, once.
func (w *wait) end() {
	if w.release != nil {
		w.release()
		w.release = nil
	}
}

// advanceTo moves guest time on to t, when every thread waits: the fixed
// clock jumps there, host time is slept through, in steps short enough
// that a timeout or a signal to icount (CPU.Interrupted) ends the run in
// time: advanceTo then returns its reason.
func (p *Process) advanceTo(t int64) error {
	if c := p.clk.fixed; c != nil {
		c.SleepUntil(t)
		return nil
	}
	for d := t - p.now(); d > 0; d = t - p.now() {
		if err := p.cpu.Interrupted(); err != nil {
			return err
		}
		time.Sleep(min(time.Duration(d), interruptCheck))
	}
	return nil
}

// interruptCheck is how often a wait in host time looks for a reason to
// stop.
const interruptCheck = 20 * time.Millisecond

// deadlock describes every thread's wait.
func (p *Process) deadlock() error {
	e := &DeadlockError{}
	for _, t := range p.threads {
		if t.state != blocked {
			continue
		}
		pc, stack := p.cpu.PC(), p.cpu.Stack()
		if t != p.cur {
			pc, stack = p.cpu.ContextReg(t.ctx, p.abi.pc), p.cpu.ContextStack(t.ctx)
		}
		e.Threads = append(e.Threads, ThreadWait{TID: t.tid, PC: pc - p.abi.syscallSize, What: t.wait.what, Stack: stack})
	}
	return e
}
