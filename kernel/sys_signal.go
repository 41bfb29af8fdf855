package kernel

import (
	"encoding/binary"
	"math/bits"
	"slices"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Signal system calls: handlers, masks, alternate stacks, sending signals
// and returning from a handler; delivery is in signal.go.

const nsig = 64

func sysRtSigaction(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	sig, act, oact := a[0], a[1], a[2]
	if sig == 0 || sig > nsig || (sig == sigKILL || sig == sigSTOP) && act != 0 || a[3] != 8 {
		return 0, unix.EINVAL
	}
	size := p.abi.sigactionSize
	if oact != 0 {
		old := p.sigactions[sig]
		if old == nil {
			old = make([]byte, size)
		}
		if err := p.writeMem(oact, old); err != nil {
			return 0, err
		}
	}
	if act != 0 {
		b, err := p.readMem(act, size)
		if err != nil {
			return 0, err
		}
		p.sigactions[sig] = b
	}
	return 0, nil
}

const (
	sigBlock   = 0
	sigUnblock = 1
	sigSetmask = 2
)

func sysRtSigprocmask(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	how, set, oset := a[0], a[1], a[2]
	if a[3] != 8 {
		return 0, unix.EINVAL
	}
	old := p.k.cur.sig.mask
	if set != 0 {
		v, err := p.readU64(set)
		if err != nil {
			return 0, err
		}
		switch how {
		case sigBlock:
			p.k.cur.sig.mask |= v
		case sigUnblock:
			p.k.cur.sig.mask &^= v
		case sigSetmask:
			p.k.cur.sig.mask = v
		default:
			return 0, unix.EINVAL
		}
		p.k.cur.sig.mask &^= unblockable
		if p.deliverable(p.k.cur) != 0 {
			p.k.switching = true // delivered as the call returns
		}
	}
	if oset != 0 {
		return 0, p.writeU64(oset, old)
	}
	return 0, nil
}

// readSigset reads a sigset_t argument of sigsetsize bytes (8: 64 signals).
func (p *Process) readSigset(addr, size uint64) (uint64, error) {
	if size != 8 {
		return 0, unix.EINVAL
	}
	return p.readU64(addr)
}

// sysRtSigpending reports the signals pending for the thread.
func sysRtSigpending(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[1] != 8 {
		return 0, unix.EINVAL
	}
	return 0, p.writeU64(a[0], p.pending(p.k.cur))
}

// sysRtSigsuspend waits, with the mask replaced, until a handler runs; the
// handler returns to the mask before, and the call fails with EINTR.
func sysRtSigsuspend(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	mask, err := p.readSigset(a[0], a[1])
	if err != nil {
		return 0, err
	}
	t.sig.suspended, t.sig.suspendedMask = true, t.sig.mask
	t.sig.mask = mask &^ unblockable
	if p.deliverable(t) != 0 {
		p.k.switching = true // delivered as the call returns
		return 0, unix.EINTR
	}
	return p.block(&wait{what: "a signal (rt_sigsuspend)", deadline: noDeadline})
}

// sysRtSigtimedwait takes a pending signal of the set without running its
// handler, waiting for one until the timeout (guest time) if none is.
func sysRtSigtimedwait(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	set, err := p.readSigset(a[0], a[3])
	if err != nil {
		return 0, err
	}
	set &^= unblockable
	deadline := int64(noDeadline)
	if a[2] != 0 {
		d, err := p.readTimespec(a[2])
		if err != nil {
			return 0, err
		}
		deadline = p.deadlineAfter(d)
	}
	take := func() (uint64, error, bool) {
		var sig int
		var info sigInfo
		for ok := false; !ok; {
			ready := p.pending(t) & set
			if ready == 0 {
				return 0, nil, false
			}
			sig = bits.TrailingZeros64(ready) + 1
			info, ok = p.takePending(t, sig)
		}
		if a[1] != 0 {
			if err := p.writeMem(a[1], info.bytes()); err != nil {
				return 0, err, true
			}
		}
		return uint64(sig), nil, true
	}
	if ret, err, done := take(); done {
		return ret, err
	}
	if deadline != noDeadline && deadline <= p.now() {
		return 0, unix.EAGAIN
	}
	return p.block(&wait{what: "a signal (rt_sigtimedwait)", deadline: deadline, ready: take,
		timedOut: func() (uint64, error) { return 0, unix.EAGAIN }})
}

const ssDisable = 2

// sysSigaltstack sets and reports the thread's alternate signal stack.
func sysSigaltstack(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	sp := p.cpu.Reg(p.abi.sp)
	var set []byte
	if a[0] != 0 {
		b, err := p.readMem(a[0], 24)
		if err != nil {
			return 0, err
		}
		set = b
	}
	if a[1] != 0 {
		cur := t.altstack()
		old := stackT{sp: cur.sp, flags: t.sasFlags(sp), size: cur.size}
		if t.sig.altstack != nil {
			old.flags |= stackFrom(t.sig.altstack).flags & ssAutodisarm
		}
		if err := p.writeMem(a[1], old.bytes()); err != nil {
			return 0, err
		}
	}
	if set != nil {
		s := stackFrom(set)
		if t.onAltstack(sp) {
			return 0, unix.EPERM
		}
		switch s.flags &^ ssAutodisarm {
		case ssDisable:
			t.sig.altstack = nil
			return 0, nil
		case 0, ssOnstack:
		default:
			return 0, unix.EINVAL
		}
		if s.size < p.minSigStack() {
			return 0, unix.ENOMEM
		}
		s.flags &= ssAutodisarm
		t.sig.altstack = s.bytes()
	}
	return 0, nil
}

// sysRtSigreturn returns from a signal handler through its frame.
func sysRtSigreturn(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if p.abi.arch == emu.ARM64 {
		return p.sigreturnARM64()
	}
	return p.sigreturnX86()
}

// sysKill sends a signal to a process (pid > 0), to the caller's process
// group (0), to every process but the first (-1), or to the process group
// -pid.
func sysKill(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	pid, sig := int32(a[0]), a[1]
	if sig > nsig {
		return 0, unix.EINVAL
	}
	var targets []*Process
	switch {
	case pid > 0:
		if q := p.k.procs[int(pid)]; q != nil && !q.exited {
			targets = []*Process{q}
		}
	case pid == -1:
		for q := range p.k.live() {
			if q != p.k.first || q == p {
				targets = append(targets, q)
			}
		}
	default:
		group := p.pgid
		if pid < -1 {
			group = int(-pid)
		}
		for q := range p.k.live() {
			if q.pgid == group {
				targets = append(targets, q)
			}
		}
	}
	if len(targets) == 0 {
		return 0, unix.ESRCH
	}
	if sig != 0 {
		for _, q := range targets {
			q.sendProcess(int(sig), sigInfo{signo: int32(sig), code: siUser, pid: uint32(p.pid), uid: UID})
		}
	}
	return 0, nil
}

// sysTkill sends a signal to one thread, of any process.
func sysTkill(t *Task, a [6]uint64) (uint64, error) {
	return t.tkill(0, int(int32(a[0])), a[1])
}

// sysTgkill sends a signal to one thread of the process tgid.
func sysTgkill(t *Task, a [6]uint64) (uint64, error) {
	tgid := int(int32(a[0]))
	if tgid <= 0 {
		return 0, unix.EINVAL
	}
	return t.tkill(tgid, int(int32(a[1])), a[2])
}

// tkill sends sig to the thread tid (of the process tgid, unless 0).
func (t *Task) tkill(tgid, tid int, sig uint64) (uint64, error) {
	if tid <= 0 || sig > nsig {
		return 0, unix.EINVAL
	}
	var target *Task
	for q := range t.proc.k.live() {
		if tgid == 0 || q.pid == tgid {
			if target = q.threadByTID(tid); target != nil {
				break
			}
		}
	}
	if target == nil {
		return 0, unix.ESRCH
	}
	if sig != 0 {
		target.proc.send(target, int(sig), sigInfo{signo: int32(sig), code: siTkill, pid: uint32(t.proc.pid), uid: UID})
	}
	return 0, nil
}

// sigRTMin is the first real-time signal: from it on, Linux queues each
// signal sent, where icount holds one pending signal of each number.
const sigRTMin = 32

// siginfoKernelSize is how much of a guest's siginfo_t Linux takes in
// (struct kernel_siginfo); the rest must be zero for a si_code whose
// layout it does not know.
const siginfoKernelSize = 48

// readQueuedInfo reads the siginfo rt_sigqueueinfo and rt_tgsigqueueinfo
// send as sig, as __copy_siginfo_from_user takes it.
func (p *Process) readQueuedInfo(sig uint64, addr uint64) (sigInfo, error) {
	b, err := p.readMem(addr, 128)
	if err != nil {
		return sigInfo{}, err
	}
	le := binary.LittleEndian
	code := int32(le.Uint32(b[8:]))
	known := code == siKernel || code > 0 && code <= 8 || code <= 0 && code >= -7 || code == -60
	if !known && slices.ContainsFunc(b[siginfoKernelSize:], func(c byte) bool { return c != 0 }) {
		return sigInfo{}, unix.E2BIG
	}
	clear(b[siginfoKernelSize:])
	le.PutUint32(b, uint32(sig))
	return sigInfo{signo: int32(sig), code: code, raw: b}, nil
}

// queueSignal sends a rt_sigqueueinfo signal to the thread t, or to its
// process when process is set. A real-time signal already pending there
// stops the run: Linux would queue a second one.
func queueSignal(t *Task, process bool, info sigInfo) error {
	sig := int(info.signo)
	p := t.proc
	if sig >= sigRTMin && p.pendingAnywhere(sig) {
		return errUnsupported("a second " + SignalName(sig) + " while one is pending (a queue of real-time signals)")
	}
	if process {
		p.sendProcess(sig, info)
	} else {
		p.send(t, sig, info)
	}
	return nil
}

// pendingAnywhere reports whether sig is pending on the process or one of
// its threads.
func (p *Process) pendingAnywhere(sig int) bool {
	pending := p.sharedPending
	for _, t := range p.tasks {
		pending |= t.sig.pending
	}
	return pending&sigBit(sig) != 0
}

// sysRtSigqueueinfo sends a signal with the caller's siginfo to a
// process; a si_code of kill or tkill, or one claiming the kernel, only
// to its own (EPERM).
func sysRtSigqueueinfo(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	info, err := p.readQueuedInfo(uint64(uint32(a[1])), a[2])
	if err != nil {
		return 0, err
	}
	pid := int32(a[0])
	if (info.code >= 0 || info.code == siTkill) && int(pid) != t.tid {
		return 0, unix.EPERM
	}
	q := p.k.procs[int(pid)]
	if pid <= 0 || q == nil || q.exited {
		return 0, unix.ESRCH
	}
	if uint32(a[1]) > nsig {
		return 0, unix.EINVAL
	}
	if uint32(a[1]) == 0 {
		return 0, nil
	}
	return 0, queueSignal(q.tasks[0], true, info)
}

// sysRtTgsigqueueinfo sends a signal with the caller's siginfo to one
// thread, as rt_sigqueueinfo.
func sysRtTgsigqueueinfo(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	info, err := p.readQueuedInfo(uint64(uint32(a[2])), a[3])
	if err != nil {
		return 0, err
	}
	tgid, tid := int32(a[0]), int32(a[1])
	if tgid <= 0 || tid <= 0 {
		return 0, unix.EINVAL
	}
	if (info.code >= 0 || info.code == siTkill) && int(tid) != t.tid {
		return 0, unix.EPERM
	}
	var target *Task
	if q := p.k.procs[int(tgid)]; q != nil && !q.exited {
		target = q.threadByTID(int(tid))
	}
	if target == nil {
		return 0, unix.ESRCH
	}
	if uint32(a[2]) > nsig {
		return 0, unix.EINVAL
	}
	if uint32(a[2]) == 0 {
		return 0, nil
	}
	return 0, queueSignal(target, false, info)
}
