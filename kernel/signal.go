package kernel

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/inherited"
	"golang.org/x/sys/unix"
)

// Signal delivery. A synchronous fault (count.Run hands it over with
// DeliverFault) runs the guest's handler at once; a signal sent with kill,
// tkill or tgkill is pending on one thread until that thread runs from a
// scheduling point (Schedule ends with signalPoint), where the handler is
// entered through a signal frame laid out as Linux lays it out for the
// guest's arch (sigframe_x86_64.go, sigframe_aarch64.go). rt_sigreturn
// takes the frame back. A signal with no handler either is ignored or ends
// the process with status 128+sig, as its default action says.

// Signal numbers, the same on x86-64 and arm64.
const (
	sigILL   = 4
	sigTRAP  = 5
	sigBUS   = 7
	sigFPE   = 8
	sigKILL  = 9
	sigSEGV  = 11
	sigPIPE  = 13
	sigCHLD  = 17
	sigCONT  = 18
	sigSTOP  = 19
	sigTSTP  = 20
	sigTTIN  = 21
	sigTTOU  = 22
	sigURG   = 23
	sigWINCH = 28
)

// sigaction flags (the same on both arches).
const (
	saSiginfo   = 0x4
	saOnstack   = 0x08000000
	saRestart   = 0x10000000
	saNodefer   = 0x40000000
	saResethand = 0x80000000
	saRestorer  = 0x04000000
)

const (
	sigDFL = 0
	sigIGN = 1
)

// si_code values.
const (
	siUser   = 0
	siKernel = 0x80
	siTkill  = -6

	segvMaperr = 1
	segvAccerr = 2
)

// sigaltstack flags.
const (
	ssOnstack    = 1
	ssAutodisarm = 1 << 31
)

// unblockable are the signals no mask blocks.
const unblockable = 1<<(sigKILL-1) | 1<<(sigSTOP-1)

func sigBit(sig int) uint64 { return 1 << (sig - 1) }

// SignalName names a guest signal: "SIGSEGV".
func SignalName(sig int) string {
	if n := unix.SignalName(unix.Signal(sig)); n != "" {
		return n
	}
	return fmt.Sprintf("signal %d", sig)
}

// sigaction is a decoded rt_sigaction record.
type sigaction struct {
	handler, flags, restorer, mask uint64
}

// action returns the disposition of sig.
func (p *Process) action(sig int) sigaction {
	b := p.sigactions[uint64(sig)]
	if len(b) < 32 {
		return sigaction{}
	}
	le := binary.LittleEndian
	return sigaction{le.Uint64(b), le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:])}
}

// inheritedActions are the dispositions the first process starts with:
// SIG_IGN for each signal icount was started ignoring (an exec keeps
// SIG_IGN, as nohup and a shell's background jobs rely on), the default
// for the others.
func inheritedActions() map[uint64][]byte {
	acts := map[uint64][]byte{}
	for sig := 1; sig <= nsig; sig++ {
		if sig != sigKILL && sig != sigSTOP && inherited.Ignored(sig) {
			rec := make([]byte, 32) // handler, flags, restorer, mask
			binary.LittleEndian.PutUint64(rec, sigIGN)
			acts[uint64(sig)] = rec
		}
	}
	return acts
}

// ignoredByDefault are the signals whose default action is to do
// nothing. The stop signals are among them here: icount cannot stop the
// process and have something continue it.
func ignoredByDefault(sig int) bool {
	switch sig {
	case sigCHLD, sigURG, sigWINCH, sigCONT, sigSTOP, sigTSTP, sigTTIN, sigTTOU:
		return true
	}
	return false
}

// ignored reports whether sig is discarded when it arrives.
func (a sigaction) ignored(sig int) bool {
	return a.handler == sigIGN || a.handler == sigDFL && ignoredByDefault(sig)
}

// sigInfo is what a siginfo_t says about one signal.
type sigInfo struct {
	signo, code int32
	pid, uid    uint32 // kill, tkill, tgkill, SIGCHLD
	status      int32  // SIGCHLD: the exit status or the signal
	addr        uint64 // faults
	// A POSIX timer's (code SI_TIMER): its id, overrun and sigev_value,
	// and the timer_settime it was sent after (posixTimer.gen).
	timerID, overrun int32
	value            uint64
	gen              uint64
	// raw, if not nil, is the whole siginfo_t (rt_sigqueueinfo's).
	raw []byte
}

// bytes lays the siginfo_t out (128 bytes on both arches).
func (i sigInfo) bytes() []byte {
	if i.raw != nil {
		return slices.Clone(i.raw)
	}
	b := make([]byte, 128)
	le := binary.LittleEndian
	le.PutUint32(b[0:], uint32(i.signo))
	le.PutUint32(b[8:], uint32(i.code))
	switch {
	case i.code == siTimer:
		le.PutUint32(b[16:], uint32(i.timerID))
		le.PutUint32(b[20:], uint32(i.overrun))
		le.PutUint64(b[24:], i.value)
	case i.addr != 0:
		le.PutUint64(b[16:], i.addr)
	default:
		le.PutUint32(b[16:], i.pid)
		le.PutUint32(b[20:], i.uid)
		le.PutUint32(b[24:], uint32(i.status))
	}
	return b
}

// FaultSignal is a synchronous fault as the guest is told of it.
type FaultSignal struct {
	Signo int
	// Code is the si_code; for a memory fault (Memory) that is a SIGSEGV,
	// SEGV_MAPERR or SEGV_ACCERR is worked out from the mappings (a SIGBUS
	// past the end of a mapped file has BUS_ADRERR).
	Code   int
	Addr   uint64 // si_addr: the address accessed, or the instruction's
	Memory bool   // an access refused by the page tables
	Write  bool   // ... that was a write
	Fetch  bool   // ... that was an instruction fetch
	// Trapno is the x86-64 exception number (sigcontext.trapno).
	Trapno uint64
}

// DeliverFault enters the guest's handler for a fault of the running
// thread, whose registers are as they were before the faulting
// instruction. It reports false when the fault ends the process instead:
// no handler, the handler SIG_DFL or SIG_IGN, or the signal blocked, or no
// room for the signal frame.
func (p *Process) DeliverFault(f FaultSignal) (bool, error) {
	act := p.action(f.Signo)
	if act.handler == sigDFL || act.handler == sigIGN || p.k.cur.sig.mask&sigBit(f.Signo) != 0 {
		return false, nil
	}
	if f.Memory && f.Signo == sigSEGV {
		f.Code = segvMaperr
		if p.mm.mapped(pageDown(f.Addr), pageDown(f.Addr)+1) {
			f.Code = segvAccerr
		}
	}
	info := sigInfo{signo: int32(f.Signo), code: int32(f.Code), addr: f.Addr}
	return p.deliver(f.Signo, act, info, &f)
}

// killBy ends the process as sig's default action does.
func (p *Process) killBy(sig int) { p.exitProcess(0, sig) }

// send makes sig pending on t; from a system call of the running thread.
func (p *Process) send(t *Task, sig int, info sigInfo) {
	act := p.action(sig)
	b := sigBit(sig)
	if act.ignored(sig) && t.sig.mask&b == 0 {
		return
	}
	if t.sig.pending&b == 0 {
		t.sig.pending |= b
		t.sig.info[sig-1] = info
	}
	if t.sig.mask&b != 0 {
		return
	}
	if act.handler == sigDFL {
		p.killBy(sig)
		return
	}
	switch {
	case t.state == blocked && t.wait.restartable && act.flags&saRestart != 0:
		p.restartCall(t)
	case t.state == blocked:
		// Also the running thread, when a timer fires as it waits.
		p.k.wake(t, 0, unix.EINTR)
	case t == p.k.cur:
		p.k.switching = true // delivered as the call returns
	}
}

// restartCall ends a waiting thread's wait so that it runs its system call
// again once the handler returns: the handler's frame saves the PC at the
// system-call instruction, whose number and arguments are still in their
// registers (the result was not written).
func (p *Process) restartCall(t *Task) {
	pc := p.k.taskReg(t, p.abi.pc)
	if err := p.k.setTaskReg(t, p.abi.pc, pc-p.abi.syscallSize); err != nil {
		p.k.wake(t, 0, unix.EINTR)
		return
	}
	p.k.endWait(t)
	t.state, t.wait = runnable, nil
}

// sendProcess sends sig to the process: to the first thread in creation
// order that does not block it; when every thread blocks it, it stays
// pending on the process, for the first thread that unblocks it.
func (p *Process) sendProcess(sig int, info sigInfo) {
	if p.exited {
		return
	}
	for _, t := range p.tasks {
		if t.sig.mask&sigBit(sig) == 0 {
			p.send(t, sig, info)
			return
		}
	}
	if p.sharedPending&sigBit(sig) == 0 {
		p.sharedPending |= sigBit(sig)
		p.sharedInfo[sig-1] = info
	}
}

// pending is what is pending for t: its own signals and the process's.
func (p *Process) pending(t *Task) uint64 { return t.sig.pending | p.sharedPending }

// deliverable is what of t's pending signals its mask lets through.
func (p *Process) deliverable(t *Task) uint64 { return p.pending(t) &^ t.sig.mask }

// takePending takes sig off what is pending for t (its own first) and
// returns its siginfo; false for a timer's signal that is dropped instead
// (timerDelivered).
func (p *Process) takePending(t *Task, sig int) (sigInfo, bool) {
	b := sigBit(sig)
	info := &p.sharedInfo[sig-1]
	if t.sig.pending&b != 0 {
		t.sig.pending &^= b
		info = &t.sig.info[sig-1]
	} else {
		p.sharedPending &^= b
	}
	if info.code == siTimer && info.raw == nil && !p.timerDelivered(info) {
		return sigInfo{}, false
	}
	return *info, true
}

// signalPoint runs as the running thread goes on from a scheduling point:
// it finishes an rt_sigreturn, then delivers one pending signal the mask
// lets through (the next is delivered when that handler returns).
func (p *Process) signalPoint() error {
	t := p.k.cur
	if f := t.sig.afterStop; f != nil {
		t.sig.afterStop = nil
		if err := f(); err != nil {
			return err
		}
	}
	defer t.endWaitMask(false) // no handler ran: pselect6's or ppoll's mask goes
	for !p.exited && p.deliverable(t) != 0 {
		sig := bits.TrailingZeros64(p.deliverable(t)) + 1
		info, ok := p.takePending(t, sig)
		act := p.action(sig)
		switch {
		case !ok, act.ignored(sig):
			continue
		case act.handler == sigDFL:
			p.killBy(sig)
			return nil
		}
		ok, err := p.deliver(sig, act, info, nil)
		if err != nil {
			return err
		}
		if !ok {
			p.killBy(sigSEGV) // no room for the frame
		}
		return nil
	}
	return nil
}

// setWaitMask makes mask the thread's signal mask while pselect6, ppoll
// or epoll_pwait waits: endWaitMask puts the mask before back as the call
// returns, unless a signal interrupted it, whose handler then returns to
// that mask (as rt_sigsuspend's does).
func (t *Task) setWaitMask(mask uint64) {
	t.sig.suspended, t.sig.suspendedMask = true, t.sig.mask
	t.sig.mask = mask &^ unblockable
}

// useWaitMask reads the signal mask (a sigset_t of size bytes at addr,
// none if addr is 0) a waiting call is given, and sets it (setWaitMask).
func (t *Task) useWaitMask(addr, size uint64) error {
	if addr == 0 {
		return nil
	}
	mask, err := t.proc.readSigset(addr, size)
	if err == nil {
		t.setWaitMask(mask)
	}
	return err
}

// endWaitMask ends setWaitMask's mask, unless the call was interrupted.
func (t *Task) endWaitMask(interrupted bool) {
	if t.sig.suspended && !interrupted {
		t.sig.mask, t.sig.suspended = t.sig.suspendedMask, false
	}
}

// deliver enters act's handler for sig on the running thread: it writes
// the signal frame, points the registers at the handler and blocks what
// the handler blocks. It reports false when the frame cannot be written.
func (p *Process) deliver(sig int, act sigaction, info sigInfo, fault *FaultSignal) (bool, error) {
	t := p.k.cur
	d := &sigDelivery{sig: sig, act: act, info: info.bytes(), fault: fault, mask: t.sig.mask}
	if t.sig.suspended {
		// The handler returns to the mask rt_sigsuspend replaced.
		d.mask, t.sig.suspended = t.sig.suspendedMask, false
	}
	var ok bool
	var err error
	interrupted := p.cpu.PC()
	if p.abi.arch == emu.ARM64 {
		ok, err = p.frameARM64(d)
	} else {
		ok, err = p.frameX86(d)
	}
	if err != nil || !ok {
		return false, err
	}
	p.cpu.SignalEntered(interrupted, d.ret)
	t.sig.handlers++
	t.sig.mask |= act.mask
	if act.flags&saNodefer == 0 {
		t.sig.mask |= sigBit(sig)
	}
	t.sig.mask &^= unblockable
	if act.flags&saResethand != 0 {
		p.sigactions[uint64(sig)] = nil
	}
	return true, nil
}

// sigDelivery is one signal being delivered.
type sigDelivery struct {
	sig   int
	act   sigaction
	info  []byte
	fault *FaultSignal // nil for a signal sent
	mask  uint64       // the mask to restore
	ret   uint64       // where the handler returns to (its restorer), set by the frame's writer
}

// stackT is a sigaltstack stack_t.
type stackT struct {
	sp    uint64
	flags uint32
	size  uint64
}

func (s stackT) bytes() []byte {
	b := make([]byte, 24)
	le := binary.LittleEndian
	le.PutUint64(b, s.sp)
	le.PutUint32(b[8:], s.flags)
	le.PutUint64(b[16:], s.size)
	return b
}

func stackFrom(b []byte) stackT {
	le := binary.LittleEndian
	return stackT{le.Uint64(b), le.Uint32(b[8:]), le.Uint64(b[16:])}
}

// altstack is the thread's alternate signal stack; size 0 for none.
func (t *Task) altstack() stackT {
	if t.sig.altstack == nil {
		return stackT{}
	}
	s := stackFrom(t.sig.altstack)
	if s.flags&ssDisable != 0 {
		return stackT{}
	}
	return s
}

// onAltstack reports whether sp is on the thread's alternate stack.
func (t *Task) onAltstack(sp uint64) bool {
	s := t.altstack()
	return s.size != 0 && sp > s.sp && sp-s.sp <= s.size
}

// sasFlags is the ss_flags sigaltstack reports at sp.
func (t *Task) sasFlags(sp uint64) uint32 {
	s := t.altstack()
	switch {
	case s.size == 0:
		return ssDisable
	case t.onAltstack(sp):
		return ssOnstack
	}
	return 0
}

// signalStack returns the stack pointer a handler's frame goes below, and
// saves the alternate stack as the frame's uc_stack records it: the
// interrupted sp, or the top of the alternate stack for SA_ONSTACK when
// the thread is not on it already.
func (p *Process) signalStack(d *sigDelivery, sp uint64) (uint64, []byte) {
	t := p.k.cur
	s := t.altstack()
	saved := stackT{sp: s.sp, flags: t.sasFlags(sp), size: s.size}
	if t.sig.altstack != nil && s.size == 0 {
		saved = stackFrom(t.sig.altstack)
		saved.flags = ssDisable
	}
	if d.act.flags&saOnstack != 0 && t.sasFlags(sp) == 0 {
		sp = s.sp + s.size
		if stackFrom(t.sig.altstack).flags&ssAutodisarm != 0 {
			t.sig.altstack = nil
		}
	}
	return sp, saved.bytes()
}

// restoreAltstack sets the alternate stack from a frame's uc_stack at
// rt_sigreturn, as sigaltstack would from sp (errors are ignored, as
// Linux ignores them).
func (p *Process) restoreAltstack(b []byte, sp uint64) {
	if p.k.cur.onAltstack(sp) {
		return
	}
	s := stackFrom(b)
	if s.flags&ssDisable != 0 {
		p.k.cur.sig.altstack = nil
		return
	}
	if s.size < p.minSigStack() {
		return
	}
	s.flags &= ssAutodisarm
	p.k.cur.sig.altstack = s.bytes()
}

// minSigStack is MINSIGSTKSZ.
func (p *Process) minSigStack() uint64 {
	if p.abi.arch == emu.ARM64 {
		return 5120
	}
	return 2048
}

// sigreturnFailed ends the process for an rt_sigreturn whose frame cannot
// be read, as Linux does (SIGSEGV).
func (p *Process) sigreturnFailed() (uint64, error) {
	p.killBy(sigSEGV)
	return 0, errBlocked
}

// afterSigreturn has the registers of a frame written once the CPU has
// stopped (Schedule, then signalPoint): a system call's hook cannot move
// the PC. The call returns nothing: the registers are the frame's.
func (p *Process) afterSigreturn(restore func() error) (uint64, error) {
	if p.k.cur.sig.handlers > 0 {
		p.k.cur.sig.handlers--
	}
	p.cpu.SignalReturned()
	p.k.cur.sig.afterStop = restore
	p.k.switching = true
	return 0, errBlocked
}
