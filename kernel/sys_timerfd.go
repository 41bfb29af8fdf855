package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// timerfd: a descriptor that counts a timer's expiries in guest time. It
// is a host eventfd, made and read as eventfd's are (sys_eventfd.go): an
// expiry adds to its count at the next scheduling point, or before the
// guest reads or polls it, so a read returns the expiries so far and
// resets them, blocks (or fails with EAGAIN) when there are none, and poll
// and epoll see it readable when there are. Writing to it is EINVAL, as
// Linux's timerfd has no write.

// timerfd flags (include/uapi/linux/timerfd.h), alike on both arches.
const (
	tfdCloexec       = 0x80000 // O_CLOEXEC
	tfdNonblock      = 0x800   // O_NONBLOCK
	tfdTimerAbstime  = 1
	tfdTimerCancelOn = 2 // cancel when the real-time clock is set: never, in icount
)

// timerFD is the timer of one timerfd.
type timerFD struct {
	file   *file
	clock  int32 // the host clock that stands for its clock in host time
	itimer       // deadline noDeadline: disarmed
}

// expire adds the expiries up to now to the timerfd's count, and arms an
// interval timer for its next one.
func (tf *timerFD) expire(now int64) {
	if tf.deadline > now {
		return
	}
	n := int64(1)
	if tf.interval == 0 {
		tf.deadline = noDeadline
	} else {
		tf.deadline, n = tf.forwardPast(now)
	}
	unix.Write(tf.file.host, binary.LittleEndian.AppendUint64(nil, uint64(n)))
}

// expireTimerfds counts the expiries of every timerfd still open; it
// forgets those closed.
func (k *Kernel) expireTimerfds() {
	now := k.now()
	open := k.timerfds[:0]
	for _, tf := range k.timerfds {
		if tf.file.refs > 0 {
			tf.expire(now)
			open = append(open, tf)
		}
	}
	clear(k.timerfds[len(open):])
	k.timerfds = open
}

// timerfdsArmed reports whether a timerfd still open is armed.
func (k *Kernel) timerfdsArmed() bool { return k.nextTimerfd() != noDeadline }

// nextTimerfd is the earliest deadline of the timerfds still open.
func (k *Kernel) nextTimerfd() int64 {
	next := int64(noDeadline)
	for _, tf := range k.timerfds {
		if tf.file.refs > 0 {
			next = min(next, tf.deadline)
		}
	}
	return next
}

func sysTimerfdCreate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	clock, flags := int32(a[0]), a[1]
	switch {
	case flags&^(tfdCloexec|tfdNonblock) != 0:
		return 0, unix.EINVAL
	case clock == clockRealtimeAlarm || clock == clockBoottimeAlarm:
		return 0, unix.EPERM // without CAP_WAKE_ALARM
	case clock != unix.CLOCK_REALTIME && clock != unix.CLOCK_MONOTONIC && clock != unix.CLOCK_BOOTTIME:
		return 0, unix.EINVAL
	}
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return 0, errnoOf(err)
	}
	f := &file{host: fd, path: "anon_inode:[timerfd]", pipe: true, nonblock: flags&tfdNonblock != 0}
	f.timer = &timerFD{file: f, clock: clock, itimer: itimer{deadline: noDeadline}}
	gfd, err := p.fds.installFlags(f, 0, flags)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	p.k.timerfds = append(p.k.timerfds, f.timer)
	return uint64(gfd), nil
}

// timerfd finds the timerfd a descriptor names: EBADF if none is open,
// EINVAL if it is not a timerfd.
func (p *Process) timerfd(fd uint64) (*timerFD, error) {
	f, err := p.fds.get(fd)
	if err != nil {
		return nil, err
	}
	if f.timer == nil {
		return nil, unix.EINVAL
	}
	p.k.expireTimerfds()
	return f.timer, nil
}

// setting is what is left of the timer and its interval.
func (tf *timerFD) setting(now int64) []byte {
	left := int64(0)
	if tf.deadline != noDeadline {
		left = max(tf.deadline-now, 0)
	}
	return itimerspec(tf.interval, left)
}

func sysTimerfdSettime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	interval, value, err := p.readItimerspec(a[2])
	if err != nil {
		return 0, err
	}
	if a[1]&^(tfdTimerAbstime|tfdTimerCancelOn) != 0 {
		return 0, unix.EINVAL
	}
	tf, err := p.timerfd(a[0])
	if err != nil {
		return 0, err
	}
	old := tf.setting(p.now())
	drain := make([]byte, 8)
	unix.Read(tf.file.host, drain) // the count starts again from 0
	tf.itimer = itimer{deadline: noDeadline}
	if value != 0 {
		if a[1]&tfdTimerAbstime != 0 {
			if value, err = p.untilTime(tf.clock, value); err != nil {
				return 0, err
			}
		}
		tf.itimer = itimer{deadline: p.deadlineAfter(max(value, 0)), interval: interval}
		p.k.switching = true // Schedule makes the CPU run in slices
	}
	if a[3] != 0 {
		return 0, p.writeMem(a[3], old)
	}
	return 0, nil
}

func sysTimerfdGettime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	tf, err := p.timerfd(a[0])
	if err != nil {
		return 0, err
	}
	return 0, p.writeMem(a[1], tf.setting(p.now()))
}
