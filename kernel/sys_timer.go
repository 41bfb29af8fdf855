package kernel

import (
	"encoding/binary"
	"slices"

	"golang.org/x/sys/unix"
)

// Interval timers: alarm and setitimer's ITIMER_REAL send SIGALRM when
// guest time reaches their deadline. With a timer armed the CPU runs in
// slices, so that the timer is looked at between them: guest time then
// passes at NominalHz while the program runs (a loop waiting for the
// alarm ends after a fixed number of instructions), and jumps to the
// deadline when every thread waits.

// itimer is ITIMER_REAL's state.
type itimer struct {
	deadline int64 // guest time it fires at, noDeadline when disarmed
	interval int64 // it is armed again this long after firing; 0: once
}

// setitimer's which.
const (
	itimerReal    = 0
	itimerVirtual = 1
	itimerProf    = 2
)

// timerArmed reports whether the process's ITIMER_REAL or one of its
// POSIX timers is armed.
func (p *Process) timerArmed() bool { return p.alarmArmed() || p.posixTimersArmed() }

// alarmArmed reports whether the process's ITIMER_REAL is armed.
func (p *Process) alarmArmed() bool { return p.alarm.deadline != noDeadline }

// timerArmed reports whether any process has a timer armed, or a
// timerfd is.
func (k *Kernel) timerArmed() bool {
	if k.timerfdsArmed() {
		return true
	}
	for p := range k.live() {
		if p.timerArmed() {
			return true
		}
	}
	return false
}

// alone reports whether the running task is the only one and no timer
// can fire: a sleep then ends at once, guest time jumping over it.
func (k *Kernel) alone() bool { return len(k.tasks) == 1 && !k.timerArmed() }

// fireTimers sends the signal of each timer whose deadline has come.
func (k *Kernel) fireTimers() {
	if !k.timerArmed() {
		return
	}
	k.expireTimerfds()
	// A SIGALRM may end a process, and reap others: not while iterating.
	for _, p := range slices.Collect(k.live()) {
		p.fireTimers()
	}
}

// armTimer sets ITIMER_REAL to fire after value, then every interval
// (value 0 disarms it), and returns what was left of it and its interval.
func (p *Process) armTimer(value, interval int64) (left, oldInterval int64) {
	if p.alarmArmed() {
		left = max(p.alarm.deadline-p.now(), 1)
	}
	oldInterval = p.alarm.interval
	p.alarm = itimer{deadline: noDeadline}
	if value > 0 {
		p.alarm = itimer{deadline: p.deadlineAfter(value), interval: max(interval, 0)}
		p.k.switching = true // Schedule makes the CPU run in slices
	}
	return left, oldInterval
}

// fireTimers sends SIGALRM if ITIMER_REAL's deadline has come, and arms
// it again for its interval; then the expiries of the POSIX timers.
func (p *Process) fireTimers() {
	p.firePosixTimers()
	if !p.alarmArmed() || p.alarm.deadline > p.now() {
		return
	}
	p.sendProcess(int(unix.SIGALRM), sigInfo{signo: int32(unix.SIGALRM), code: siKernel})
	if p.alarm.interval == 0 {
		p.alarm.deadline = noDeadline
		return
	}
	// Intervals that went by while nobody looked fire once, as Linux's do.
	for p.alarm.deadline <= p.now() {
		p.alarm.deadline += p.alarm.interval
	}
}

// sysAlarm arms ITIMER_REAL for a whole number of seconds; it returns the
// seconds the previous alarm still had, rounded to the nearest.
func sysAlarm(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	left, _ := p.armTimer(int64(uint32(a[0]))*1e9, 0)
	secs := (left + 5e8) / 1e9
	if left > 0 && secs == 0 {
		secs = 1
	}
	return uint64(secs), nil
}

// timeval encodes and decodes struct timeval (seconds, microseconds).
func readTimeval(b []byte) (int64, error) {
	sec, usec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || usec < 0 || usec >= 1e6 {
		return 0, unix.EINVAL
	}
	return sec*1e9 + usec*1e3, nil
}

// itimerval encodes struct itimerval: the interval, then the value.
func itimerval(interval, value int64) []byte {
	// Round the value up to a microsecond, so that an armed timer never
	// reads as disarmed.
	value = (value + 999) / 1000 * 1000
	return append(timespec(interval, true), timespec(value, true)...)
}

func sysSetitimer(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case itimerReal:
	case itimerVirtual, itimerProf:
		return 0, errUnsupported("ITIMER_VIRTUAL and ITIMER_PROF (CPU-time timers)")
	default:
		return 0, unix.EINVAL
	}
	var value, interval int64
	if a[1] != 0 {
		b, err := p.readMem(a[1], 32)
		if err != nil {
			return 0, err
		}
		if interval, err = readTimeval(b); err != nil {
			return 0, err
		}
		if value, err = readTimeval(b[16:]); err != nil {
			return 0, err
		}
	}
	left, oldInterval := p.armTimer(value, interval)
	if a[2] != 0 {
		return 0, p.writeMem(a[2], itimerval(oldInterval, left))
	}
	return 0, nil
}

func sysGetitimer(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case itimerReal:
	case itimerVirtual, itimerProf:
		return 0, p.writeMem(a[1], make([]byte, 32)) // never armed
	default:
		return 0, unix.EINVAL
	}
	var left int64
	if p.alarmArmed() {
		left = max(p.alarm.deadline-p.now(), 1)
	}
	return 0, p.writeMem(a[1], itimerval(p.alarm.interval, left))
}

// sysPause waits for a signal whose handler runs: it then fails with
// EINTR.
func sysPause(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.block(&wait{what: "a signal (pause)", deadline: noDeadline})
}
