package kernel

import (
	"sort"
	"time"

	"github.com/icount-dev/icount/emu"
)

// The scheduler. The run loop (count.Run) calls Schedule whenever the CPU
// stops for a task's sake: a system call blocked or yielded, a task
// exited or exec'd, or the running task used up its quantum
// (emu.ErrSliceEnd). The tasks of every process take turns in creation
// order; waits end by a wake, by their deadline in guest time, or when
// their readiness poll says so, all checked at scheduling points only.

// DefaultQuantum is how many instructions a thread runs before the others
// get their turn, unless it blocks first (--quantum).
const DefaultQuantum = 100_000

// MinQuantum is the smallest quantum: it must exceed the longest block.
const MinQuantum = 1024

// Switching reports that the CPU stopped for the scheduler: a system call
// blocked, yielded or ended its task, made a signal deliverable, made a
// second task (the CPUs run in slices from then on), or exec replaced the
// running task's address space.
func (k *Kernel) Switching() bool { return k.switching }

// Schedule picks the task to run next and makes its registers its CPU's,
// after the CPU stopped because Switching said so or because the running
// task's slice ran out (sliceEnd). Run the CPU of Current() from its PC
// then. It returns a *DeadlockError when every task waits for what no task
// can do.
func (k *Kernel) Schedule(sliceEnd bool) error {
	yield := k.switching && k.yield || sliceEnd
	k.switching, k.yield = false, false
	from := k.cur
	if sliceEnd {
		k.passTime(k.lastRan)
	}
	k.fireTimers()
	if err := k.useSlices(); err != nil {
		return err
	}
	next := from
	if from.state != runnable || yield {
		var err error
		if next, err = k.pickNext(from); err != nil {
			return err
		}
	}
	if err := k.load(next); err != nil {
		return err
	}
	k.cur = next
	p := next.proc
	if next.wait != nil {
		// Its system call returns now.
		next.wait = nil
		if err := p.cpu.SetReg(p.abi.ret, next.result); err != nil {
			return err
		}
	}
	// A signal made pending since the CPU stopped (a timer's) is delivered
	// now: no further stop is needed for it.
	k.switching = false
	if err := p.signalPoint(); err != nil {
		return err
	}
	if next.state == exited && !k.Done() {
		return k.Schedule(false) // the signal ended its process: another runs
	}
	return nil
}

// held is the context whose registers a CPU holds, and the task it was
// made for.
type held struct {
	ctx   *emu.Context
	owner *Task
}

// load makes t's registers those of its CPU, saving the ones it held.
func (k *Kernel) load(t *Task) error {
	cpu := t.proc.cpu
	h := k.loaded[cpu]
	if h.ctx == t.ctx {
		return nil
	}
	if err := cpu.Switch(h.ctx, t.ctx); err != nil {
		return err
	}
	k.loaded[cpu] = held{t.ctx, t}
	if h.owner.ctx != h.ctx {
		cpu.FreeContext(h.ctx) // its task exited, or exec moved it
	}
	return nil
}

// taskReg reads a register of t, which is not running: from its CPU when
// the CPU still holds its registers (no other task ran there since), else
// from its saved context.
func (k *Kernel) taskReg(t *Task, r emu.Reg) uint64 {
	cpu := t.proc.cpu
	if k.loaded[cpu].ctx == t.ctx {
		return cpu.Reg(r)
	}
	return cpu.ContextReg(t.ctx, r)
}

// setTaskReg writes a register of t, which is not running (see taskReg).
func (k *Kernel) setTaskReg(t *Task, r emu.Reg, v uint64) error {
	cpu := t.proc.cpu
	if k.loaded[cpu].ctx == t.ctx {
		return cpu.SetReg(r, v)
	}
	return cpu.SetContextReg(t.ctx, r, v)
}

// firstContext readies a new CPU (a fork's, an exec's) to run like the
// others, in slices once they do, and saves its running registers as the
// context of the task that will run there first.
func (k *Kernel) firstContext(cpu CPU) (*emu.Context, error) {
	if k.sliced {
		if err := cpu.SetSlice(k.quantum); err != nil {
			return nil, err
		}
	}
	return cpu.NewContext()
}

// runsOn makes ctx, which holds cpu's running registers, t's: the first
// task of a new CPU.
func (k *Kernel) runsOn(t *Task, cpu CPU, ctx *emu.Context) {
	k.setContext(t, cpu, ctx)
	k.loaded[cpu] = held{ctx, t}
}

// setContext gives t the context ctx on cpu (a new task's, an exec's), or
// none (an exit), freeing its old one unless its CPU holds it (load frees
// it then).
func (k *Kernel) setContext(t *Task, cpu CPU, ctx *emu.Context) {
	old, oldCPU := t.ctx, t.ctxCPU
	t.ctx, t.ctxCPU = ctx, cpu
	if old != nil && k.loaded[oldCPU].ctx != old {
		oldCPU.FreeContext(old)
	}
}

// useSlices makes every CPU run in slices once there is a second task or
// a timer.
func (k *Kernel) useSlices() error {
	if k.sliced || len(k.tasks) < 2 && !k.timerArmed() {
		return nil
	}
	k.sliced = true
	for p := range k.live() {
		if err := p.cpu.SetSlice(k.quantum); err != nil {
			return err
		}
	}
	return nil
}

// Account adds the instructions of the CPU's last run to the running
// task: call it after every run.
func (k *Kernel) Account(ran uint64) {
	if im := k.cur.proc.img; im != nil {
		im.account(k.cur, ran)
	}
	k.lastRan = ran
}

// NominalHz is the rate at which guest time passes for a thread that runs
// out its quantum while another waits for a deadline: one instruction a
// nanosecond. Without it a thread spinning until a sleeping thread wakes
// would spin forever, since the fixed clock moves only when read.
const NominalHz = 1_000_000_000

// passTime moves the fixed clock on by the time ran instructions take at
// NominalHz, when a task or a timer waits for a deadline; host time
// passes anyway.
func (k *Kernel) passTime(ran uint64) {
	c := k.clk.fixed
	if c == nil {
		return
	}
	if k.timerArmed() {
		c.Sleep(int64(ran * (1e9 / NominalHz)))
		return
	}
	for _, t := range k.tasks {
		if t.state == blocked && t.wait.deadline != noDeadline {
			c.Sleep(int64(ran * (1e9 / NominalHz)))
			return
		}
	}
}

// pickNext returns the first runnable task after from in creation order
// (from itself last), ending waits that are over; when every task waits,
// guest time moves on to the earliest deadline.
func (k *Kernel) pickNext(from *Task) (*Task, error) {
	for {
		k.fireTimers()
		k.endWaits()
		// from may have left the ring (it exited): start after the tasks
		// created before it (tids rise in creation order).
		n := len(k.tasks)
		start := sort.Search(n, func(i int) bool { return k.tasks[i].tid > from.tid })
		for i := 0; i < n; i++ {
			if t := k.tasks[(start+i)%n]; t.state == runnable {
				return t, nil
			}
		}
		earliest := k.nextTimerfd()
		for p := range k.live() {
			earliest = min(earliest, p.nextExpiry())
		}
		for _, t := range k.tasks {
			if t.state == blocked {
				earliest = min(earliest, t.wait.deadline)
			}
		}
		if earliest == noDeadline {
			if t := k.hostWaiter(); t != nil {
				ret, err := t.wait.onHost()
				k.wake(t, ret, err)
				continue
			}
			return nil, k.deadlock()
		}
		if err := k.advanceTo(earliest); err != nil {
			return nil, err
		}
	}
}

// hostWaiter is the first task in creation order whose wait can end on
// the host (wait.onHost), or nil: when every task waits with no deadline,
// it waits there instead of the run ending as a deadlock, so that what
// the run did meanwhile does not depend on how long the host takes.
func (k *Kernel) hostWaiter() *Task {
	for _, t := range k.tasks {
		if t.state == blocked && t.wait.onHost != nil {
			return t
		}
	}
	return nil
}

// endWaits ends the waits that are over: those whose readiness poll says
// done, then those past their deadline. A wait that moved bytes without
// ending (a writer filling a pipe again that a reader waits to read)
// sends it round again, so that the waits it readied end too.
func (k *Kernel) endWaits() {
	for k.moved = true; k.moved; {
		k.moved = false
		k.endWaitsOnce()
	}
}

func (k *Kernel) endWaitsOnce() {
	now := k.now()
	for _, t := range k.tasks {
		if t.state != blocked {
			continue
		}
		w := t.wait
		if w.ready != nil {
			if ret, err, done := w.ready(); done {
				k.wake(t, ret, err)
				continue
			}
		}
		if w.deadline <= now {
			var ret uint64
			err := error(errTimedOut)
			if w.timedOut != nil {
				ret, err = w.timedOut()
			}
			k.wake(t, ret, err)
		}
	}
}

// errTimedOut is a wait's result at its deadline, unless it says otherwise.
var errTimedOut = Errno(110) // ETIMEDOUT

// wake makes a blocked task runnable; its system call returns ret, or
// -errno for an Errno err.
func (k *Kernel) wake(t *Task, ret uint64, err error) {
	if e, ok := err.(Errno); ok {
		ret = uint64(-int64(e))
	}
	t.state, t.result = runnable, ret
	k.endWait(t)
}

// endWait ends t's wait, however it ends: it leaves its futex's queue and
// runs its release.
func (k *Kernel) endWait(t *Task) {
	if t.wait.futex != 0 {
		k.futexUnqueue(t)
	}
	t.wait.end()
}

// end runs the wait's release, once.
func (w *wait) end() {
	if w.release != nil {
		w.release()
		w.release = nil
	}
}

// advanceTo moves guest time on to t, when every task waits: the fixed
// clock jumps there, host time is slept through, in steps short enough
// that a timeout or a signal to icount (CPU.Interrupted) ends the run in
// time: advanceTo then returns its reason.
func (k *Kernel) advanceTo(t int64) error {
	if c := k.clk.fixed; c != nil {
		c.SleepUntil(t)
		return nil
	}
	for d := t - k.now(); d > 0; d = t - k.now() {
		if err := k.cur.proc.cpu.Interrupted(); err != nil {
			return err
		}
		time.Sleep(min(time.Duration(d), interruptCheck))
	}
	return nil
}

// interruptCheck is how often a wait in host time looks for a reason to
// stop.
const interruptCheck = 20 * time.Millisecond

// deadlock describes every task's wait.
func (k *Kernel) deadlock() error {
	e := &DeadlockError{}
	for _, t := range k.tasks {
		if t.state != blocked {
			continue
		}
		p := t.proc
		pc, stack := p.cpu.ContextReg(t.ctx, p.abi.pc), p.cpu.ContextStack(t.ctx)
		if k.loaded[p.cpu].ctx == t.ctx {
			pc, stack = p.cpu.PC(), p.cpu.Stack()
		}
		e.Threads = append(e.Threads, ThreadWait{PID: p.pid, TID: t.tid, PC: pc - p.abi.syscallSize, What: t.wait.what, Stack: stack})
	}
	return e
}
