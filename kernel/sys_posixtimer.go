package kernel

import (
	"encoding/binary"
	"math"

	"golang.org/x/sys/unix"
)

// POSIX timers (timer_create and the calls on its timers): each process's
// own, numbered from 0 in creation order, not inherited by fork, deleted
// by exec and exit. A timer expires when guest time (Process.now) reaches
// its deadline, whatever its clock: icount's clocks all read guest time,
// the CPU-time clocks too. Its signal carries SI_TIMER, the timer's id and
// sigev_value; an interval timer is armed again when its signal is
// delivered, and the intervals that went by meanwhile are its overrun, as
// Linux counts them.

// sigevent's sigev_notify.
const (
	sigevSignal   = 0
	sigevNone     = 1
	sigevThread   = 2 // glibc's own; the kernel sends the signal as for SIGEV_SIGNAL
	sigevThreadID = 4
)

// siTimer is the si_code of a timer's signal.
const siTimer = -2

// maxPosixTimers bounds a process's timers: past it timer_create fails
// with EAGAIN, as Linux's does past RLIMIT_SIGPENDING.
const maxPosixTimers = 1 << 15

// Clock ids timer_create gives EOPNOTSUPP: clocks without timers, and the
// alarm clocks, which need a real-time clock device (/dev/rtc) the guest
// has none of (timerfd_create refuses them with EPERM first: without
// CAP_WAKE_ALARM).
const (
	clockMonotonicRaw    = 4
	clockRealtimeCoarse  = 5
	clockMonotonicCoarse = 6
	clockRealtimeAlarm   = 8
	clockBoottimeAlarm   = 9
)

// posixTimer is one timer of timer_create.
type posixTimer struct {
	id     int32
	clock  int32 // the host clock that stands for its clock in host time
	notify int32 // sigev_notify
	signo  int32
	value  uint64 // sigev_value
	target *Task  // the thread SIGEV_THREAD_ID names
	itimer        // deadline noDeadline: disarmed
	// active says that its expiry is still to be sent: armed, not
	// SIGEV_NONE, not waiting for the delivery of its last signal.
	active bool
	// gen counts timer_settime calls: a signal queued before the last
	// one does not arm the timer again when it is delivered.
	gen uint64
	// overrun counts the intervals that went by since its last signal
	// was delivered, less one (-1 when none did); overrunLast is what it
	// was at that delivery (timer_getoverrun).
	overrun, overrunLast int64
}

// timerByID finds a timer of the process.
func (p *Process) timerByID(id int32) *posixTimer {
	for _, tm := range p.timers {
		if tm.id == id {
			return tm
		}
	}
	return nil
}

// posixTimersArmed reports whether one of the process's timers is to
// send its expiry.
func (p *Process) posixTimersArmed() bool {
	for _, tm := range p.timers {
		if tm.active {
			return true
		}
	}
	return false
}

// nextExpiry is the earliest deadline of the process's timers that send
// their expiry (ITIMER_REAL's and the POSIX timers'), noDeadline for none.
func (p *Process) nextExpiry() int64 {
	next := p.alarm.deadline
	for _, tm := range p.timers {
		if tm.active {
			next = min(next, tm.deadline)
		}
	}
	return next
}

// firePosixTimers sends the expiry of each timer whose deadline has come,
// in the order of their deadlines.
func (p *Process) firePosixTimers() {
	now := p.now()
	for {
		var next *posixTimer
		for _, tm := range p.timers {
			if tm.active && tm.deadline <= now && (next == nil || tm.deadline < next.deadline) {
				next = tm
			}
		}
		if next == nil || p.exited {
			return
		}
		p.expire(next)
	}
}

// expire sends a timer's signal. It stays unarmed until the signal is
// delivered (timerDelivered), unless the signal is ignored: an interval
// timer is then armed again at once, its expiries counted as overruns.
func (p *Process) expire(tm *posixTimer) {
	tm.active = false
	if tm.interval == 0 {
		tm.deadline = noDeadline
	}
	sig := int(tm.signo)
	target := tm.target
	if tm.notify&sigevThreadID == 0 {
		target = p.tasks[0]
	}
	if target.state == exited {
		return // its thread is gone: Linux drops the signal
	}
	act := p.action(sig)
	if act.ignored(sig) && target.sig.mask&sigBit(sig) == 0 {
		if tm.interval != 0 {
			tm.overrun += p.forward(tm)
			tm.active = true
		}
		return
	}
	if p.pendingAnywhere(sig) {
		if info := p.queuedInfo(sig); info.code == siTimer && info.timerID == tm.id && info.raw == nil {
			info.gen = tm.gen // its own signal, still queued from before timer_settime: delivered now
			return
		}
		p.k.fail(errUnsupported("a timer's signal " + SignalName(sig) + " while another of that number is pending (a queue of signals)"))
		return
	}
	info := sigInfo{signo: tm.signo, code: siTimer, timerID: tm.id, value: tm.value, gen: tm.gen}
	if tm.notify&sigevThreadID != 0 {
		p.send(target, sig, info)
		return
	}
	p.sendProcess(sig, info)
}

// queuedInfo is the siginfo of sig pending on the process or one of its
// threads.
func (p *Process) queuedInfo(sig int) *sigInfo {
	if p.sharedPending&sigBit(sig) != 0 {
		return &p.sharedInfo[sig-1]
	}
	for _, t := range p.tasks {
		if t.sig.pending&sigBit(sig) != 0 {
			return &t.sig.info[sig-1]
		}
	}
	return &sigInfo{}
}

// forward moves an interval timer's deadline past now, by whole
// intervals, and returns how many.
func (p *Process) forward(tm *posixTimer) int64 {
	var n int64
	tm.deadline, n = tm.forwardPast(p.now())
	return n
}

// forwardPast is the deadline of an interval timer moved on past now by
// whole intervals (noDeadline past the end of time), and how many.
func (it itimer) forwardPast(now int64) (int64, int64) {
	if it.deadline > now {
		return it.deadline, 0
	}
	n := (now-it.deadline)/it.interval + 1
	if it.interval > (noDeadline-it.deadline)/n {
		return noDeadline, n
	}
	return it.deadline + n*it.interval, n
}

// timerDelivered completes a timer's siginfo as its signal is delivered
// (or taken by sigwaitinfo): an interval timer is armed again for its
// next expiry after now, and the intervals that went by are its overrun.
// It reports false for the signal of a timer deleted or set again since
// it was sent: Linux drops that signal.
func (p *Process) timerDelivered(info *sigInfo) bool {
	tm := p.timerByID(info.timerID)
	if tm == nil || tm.gen != info.gen {
		return false
	}
	if tm.interval != 0 && !tm.active {
		tm.overrun += p.forward(tm)
		tm.overrunLast, tm.overrun = tm.overrun, -1
		tm.active = tm.deadline != noDeadline
		info.overrun = int32(min(tm.overrunLast, math.MaxInt32))
	}
	return true
}

func sysTimerCreate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	tm := &posixTimer{notify: sigevSignal, signo: int32(unix.SIGALRM), itimer: itimer{deadline: noDeadline}, overrun: -1}
	var ev []byte
	if a[1] != 0 {
		var err error
		if ev, err = p.readMem(a[1], 64); err != nil { // struct sigevent
			return 0, err
		}
	}
	clock := int32(a[0])
	_, host, err := p.k.clockID(clock)
	switch {
	case err != nil:
		return 0, err
	case clock == clockMonotonicRaw || clock == clockRealtimeCoarse || clock == clockMonotonicCoarse:
		return 0, unix.EOPNOTSUPP
	case len(p.timers) >= maxPosixTimers:
		return 0, unix.EAGAIN
	}
	tm.clock = host
	// The id is taken now: a timer refused from here on leaves it used.
	tm.id = p.nextTimerID
	for p.timerByID(tm.id) != nil {
		tm.id = (tm.id + 1) & math.MaxInt32
	}
	p.nextTimerID = (tm.id + 1) & math.MaxInt32
	tm.value = uint64(tm.id)
	le := binary.LittleEndian
	if ev != nil {
		tm.value, tm.signo, tm.notify = le.Uint64(ev), int32(le.Uint32(ev[8:])), int32(le.Uint32(ev[12:]))
		switch tm.notify {
		case sigevThreadID:
			if tm.target = p.threadByTID(int(int32(le.Uint32(ev[16:])))); tm.target == nil {
				return 0, unix.EINVAL
			}
			fallthrough
		case sigevSignal, sigevThread:
			if tm.signo <= 0 || tm.signo > nsig {
				return 0, unix.EINVAL
			}
		case sigevNone:
		default:
			return 0, unix.EINVAL
		}
	}
	if err := p.writeU32(a[2], uint32(tm.id)); err != nil {
		return 0, err
	}
	switch {
	case clock == clockRealtimeAlarm || clock == clockBoottimeAlarm:
		return 0, unix.EOPNOTSUPP // no real-time clock device to wake the machine
	case clock < 0 && clock&4 != 0 && int(^(clock>>3)) != 0 && p.threadByTID(int(^(clock>>3))) == nil:
		return 0, unix.EINVAL // another process's thread
	}
	p.timers = append(p.timers, tm)
	return 0, nil
}

// itimerspec encodes struct itimerspec: the interval, then the value.
func itimerspec(interval, value int64) []byte {
	return append(timespec(interval, false), timespec(value, false)...)
}

// readItimerspec decodes the struct itimerspec a guest passes: EINVAL if
// either time is not valid.
func (p *Process) readItimerspec(addr uint64) (interval, value int64, err error) {
	b, err := p.readMem(addr, 32)
	if err != nil {
		return 0, 0, err
	}
	if interval, err = decodeTimespec(b); err != nil {
		return 0, 0, err
	}
	value, err = decodeTimespec(b[16:])
	return interval, value, err
}

// setting is what is left of a timer and its interval, as timer_gettime
// reports them: an expired timer whose signal is not yet delivered reads
// 1 ns, a SIGEV_NONE interval timer moves on past now.
func (p *Process) setting(tm *posixTimer) (value, interval int64) {
	if tm.deadline == noDeadline {
		return 0, tm.interval
	}
	if tm.interval != 0 && (!tm.active || tm.notify == sigevNone) {
		tm.overrun += p.forward(tm)
	}
	if left := tm.deadline - p.now(); left > 0 {
		return left, tm.interval
	}
	if tm.notify == sigevNone {
		return 0, tm.interval
	}
	return 1, tm.interval
}

func sysTimerSettime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[2] == 0 {
		return 0, unix.EINVAL
	}
	interval, value, err := p.readItimerspec(a[2])
	if err != nil {
		return 0, err
	}
	tm := p.timerByID(int32(a[0]))
	if tm == nil {
		return 0, unix.EINVAL
	}
	oldValue, oldInterval := p.setting(tm)
	tm.gen++
	tm.overrunLast, tm.overrun = 0, -1
	tm.itimer, tm.active = itimer{deadline: noDeadline}, false
	if value != 0 {
		if a[1]&timerAbstime != 0 {
			if value, err = p.untilTime(tm.clock, value); err != nil {
				return 0, err
			}
		}
		tm.itimer = itimer{deadline: p.deadlineAfter(max(value, 0)), interval: interval}
		tm.active = tm.notify != sigevNone
		p.k.switching = true // Schedule makes the CPU run in slices
	}
	if a[3] != 0 {
		return 0, p.writeMem(a[3], itimerspec(oldInterval, oldValue))
	}
	return 0, nil
}

func sysTimerGettime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	tm := p.timerByID(int32(a[0]))
	if tm == nil {
		return 0, unix.EINVAL
	}
	value, interval := p.setting(tm)
	return 0, p.writeMem(a[1], itimerspec(interval, value))
}

func sysTimerGetoverrun(t *Task, a [6]uint64) (uint64, error) {
	tm := t.proc.timerByID(int32(a[0]))
	if tm == nil {
		return 0, unix.EINVAL
	}
	return uint64(min(tm.overrunLast, math.MaxInt32)), nil
}

// sysTimerDelete deletes a timer; a signal of it still pending is dropped
// (timerDelivered).
func sysTimerDelete(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	for i, tm := range p.timers {
		if tm.id == int32(a[0]) {
			p.timers = append(p.timers[:i], p.timers[i+1:]...)
			return 0, nil
		}
	}
	return 0, unix.EINVAL
}
