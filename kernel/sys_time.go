package kernel

import (
	"encoding/binary"
	"math"

	"golang.org/x/sys/unix"
)

// Time system calls. Every read of a clock goes through readClock: the
// fixed clock under --fixed-clock, the host's otherwise, counted by source
// either way. Sleeps advance the fixed clock and return at once.

// Clock ids (include/uapi/linux/time.h).
var clockNames = map[int32]string{
	0: "CLOCK_REALTIME", 1: "CLOCK_MONOTONIC", 2: "CLOCK_PROCESS_CPUTIME_ID",
	3: "CLOCK_THREAD_CPUTIME_ID", 4: "CLOCK_MONOTONIC_RAW", 5: "CLOCK_REALTIME_COARSE",
	6: "CLOCK_MONOTONIC_COARSE", 7: "CLOCK_BOOTTIME", 8: "CLOCK_REALTIME_ALARM",
	9: "CLOCK_BOOTTIME_ALARM", 11: "CLOCK_TAI",
}

// clockID checks a guest clock id and names it. A negative id is a CPU-time
// clock of a process or thread (clock_getcpuclockid): of an emulated one. host is the host clock that stands for it in host time.
func (k *Kernel) clockID(id int32) (name string, host int32, err error) {
	if id >= 0 {
		name, ok := clockNames[id]
		if !ok {
			return "", 0, unix.EINVAL
		}
		return name, id, nil
	}
	// ~pid << 3 | thread << 2 | type, type 3 is invalid.
	if pid := int(^(id >> 3)); id&3 == 3 || pid != 0 && !k.knows(pid) {
		return "", 0, unix.EINVAL
	}
	return "CPU-time clock", unix.CLOCK_PROCESS_CPUTIME_ID, nil
}

// timespec encodes nanoseconds as struct timespec (and, with usec, as
// struct timeval): seconds and a non-negative remainder.
func timespec(ns int64, usec bool) []byte {
	sec, rem := ns/1e9, ns%1e9
	if rem < 0 {
		sec, rem = sec-1, rem+1e9
	}
	if usec {
		rem /= 1000
	}
	b := binary.LittleEndian.AppendUint64(nil, uint64(sec))
	return binary.LittleEndian.AppendUint64(b, uint64(rem))
}

// readTimespec decodes a struct timespec a guest passes; EINVAL if it is
// not a valid duration or time.
func (p *Process) readTimespec(addr uint64) (int64, error) {
	b, err := p.readMem(addr, 16)
	if err != nil {
		return 0, err
	}
	return decodeTimespec(b)
}

// decodeTimespec decodes a struct timespec; EINVAL if it is not a valid
// duration or time.
func decodeTimespec(b []byte) (int64, error) {
	sec, nsec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
	if sec < 0 || nsec < 0 || nsec >= 1e9 {
		return 0, unix.EINVAL
	}
	if sec >= math.MaxInt64/int64(1e9) {
		return math.MaxInt64, nil
	}
	return sec*1e9 + nsec, nil
}

// readTimeout reads an optional struct timespec timeout (ppoll,
// epoll_pwait2): -1, for none, when addr is NULL; readTimespec refuses a
// negative one with EINVAL.
func (p *Process) readTimeout(addr uint64) (int64, error) {
	if addr == 0 {
		return -1, nil
	}
	return p.readTimespec(addr)
}

func sysClockGettime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	name, host, err := p.k.clockID(int32(a[0]))
	if err != nil {
		return 0, err
	}
	ns, err := p.readClock("clock_gettime("+name+")", host)
	if err != nil {
		return 0, err
	}
	return 0, p.writeMem(a[1], timespec(ns, false))
}

// Resolutions clock_getres reports: the same on every host.
const (
	resHigh   = 1         // nanoseconds
	resCoarse = 4_000_000 // a 250 Hz tick
)

func sysClockGetres(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	id := int32(a[0])
	if _, _, err := p.k.clockID(id); err != nil {
		return 0, err
	}
	if a[1] == 0 {
		return 0, nil
	}
	res := int64(resHigh)
	if id == 5 || id == 6 {
		res = resCoarse
	}
	return 0, p.writeMem(a[1], timespec(res, false))
}

func sysGettimeofday(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[1] != 0 {
		// struct timezone: UTC, no daylight saving.
		if err := p.writeMem(a[1], make([]byte, 8)); err != nil {
			return 0, err
		}
	}
	if a[0] == 0 {
		return 0, nil
	}
	ns, err := p.readClock("gettimeofday", unix.CLOCK_REALTIME)
	if err != nil {
		return 0, err
	}
	return 0, p.writeMem(a[0], timespec(ns, true))
}

func sysTime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	ns, err := p.readClock("time", unix.CLOCK_REALTIME)
	if err != nil {
		return 0, err
	}
	sec := ns / 1e9
	if ns < 0 && ns%1e9 != 0 {
		sec--
	}
	if a[0] != 0 {
		if err := p.writeU64(a[0], uint64(sec)); err != nil {
			return 0, err
		}
	}
	return uint64(sec), nil
}

// userHz is the unit of times(): clock ticks of 10 ms.
const userHz = 100

// sysTimes answers with the clock read as both the time since boot and
// the process's user time.
func sysTimes(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	ns, err := p.readClock("times", unix.CLOCK_PROCESS_CPUTIME_ID)
	if err != nil {
		return 0, err
	}
	ticks := uint64(max(ns, 0) / (1e9 / userHz))
	if a[0] != 0 {
		// struct tms: utime, stime, cutime, cstime.
		b := binary.LittleEndian.AppendUint64(nil, ticks)
		if err := p.writeMem(a[0], append(b, make([]byte, 24)...)); err != nil {
			return 0, err
		}
	}
	return ticks, nil
}

// getrusage's who.
const (
	rusageSelf     = 0
	rusageChildren = -1
	rusageThread   = 1
)

// sysGetrusage answers with the clock read as the user time; the system
// time and every other figure are zero (there are no children either).
func sysGetrusage(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	ru := make([]byte, 144)
	switch int32(a[0]) {
	case rusageSelf, rusageThread:
		ns, err := p.readClock("getrusage", unix.CLOCK_PROCESS_CPUTIME_ID)
		if err != nil {
			return 0, err
		}
		copy(ru, timespec(max(ns, 0), true))
	case rusageChildren:
	default:
		return 0, unix.EINVAL
	}
	return 0, p.writeMem(a[1], ru)
}

// uptime is sysinfo's uptime in seconds: from the clock under a fixed
// clock, else a fixed 0 (no read of the host).
func (p *Process) uptime() uint64 {
	if c := p.k.clk.fixed; c != nil {
		return uint64(max(c.Read("sysinfo"), 0) / 1e9)
	}
	return 0
}

func sysNanosleep(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	d, err := p.readTimespec(a[0])
	if err != nil {
		return 0, err
	}
	return p.sleepThread(d, a[1])
}

// sleepThread sleeps d nanoseconds: with other tasks alive, or a timer
// that may fire meanwhile, the task waits in guest time while they run;
// alone it sleeps at once (sleep). A signal ends the wait early with EINTR,
// and the time left is written to rem, if not 0.
func (p *Process) sleepThread(d int64, rem uint64) (uint64, error) {
	if p.k.alone() {
		p.sleep(d)
		return 0, nil
	}
	deadline := p.deadlineAfter(max(d, 0))
	return p.block(&wait{what: "the end of a sleep", deadline: deadline,
		timedOut: func() (uint64, error) { return 0, nil },
		release: func() {
			if left := deadline - p.now(); left > 0 && rem != 0 {
				p.writeMem(rem, timespec(left, false))
			}
		}})
}

const timerAbstime = 1

func sysClockNanosleep(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	id := int32(a[0])
	_, host, err := p.k.clockID(id)
	if err != nil || id == unix.CLOCK_THREAD_CPUTIME_ID {
		return 0, unix.EINVAL
	}
	ts, err := p.readTimespec(a[2])
	if err != nil {
		return 0, err
	}
	if a[1]&timerAbstime != 0 {
		if p.k.alone() {
			return 0, p.sleepUntil(host, ts)
		}
		d, err := p.untilTime(host, ts)
		if err != nil {
			return 0, err
		}
		return p.sleepThread(d, 0)
	}
	return p.sleepThread(ts, a[3])
}

// knows reports whether id is the pid of a process not yet reaped or the
// tid of a live thread.
func (k *Kernel) knows(id int) bool {
	return k.procs[id] != nil || k.taskByTID(id) != nil
}

// taskByTID finds a live thread of any process.
func (k *Kernel) taskByTID(tid int) *Task {
	for _, t := range k.tasks {
		if t.tid == tid {
			return t
		}
	}
	return nil
}
