package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/icount-dev/icount/emu"

	"golang.org/x/sys/unix"
)

// Scheduling attributes: each thread's policy and nice value, which
// change nothing about how icount runs it (threads take turns in creation
// order, sched.go) but read back as set, with what an unprivileged
// process may and may not set: no real-time or deadline policy, no lower
// nice value (RLIMIT_RTPRIO and RLIMIT_NICE are 0), no leaving SCHED_IDLE
// or dropping SCHED_RESET_ON_FORK.

// Scheduling policies.
const (
	schedOther    = 0
	schedFIFO     = 1
	schedRR       = 2
	schedBatch    = 3
	schedIdle     = 5
	schedDeadline = 6

	schedResetOnFork = 0x40000000
	setparamPolicy   = -1 // sched_setparam: the policy stays
)

// sched_attr's sched_flags.
const (
	schedFlagResetOnFork = 0x01
	schedFlagKeepPolicy  = 0x08
	schedFlagKeepParams  = 0x10
	schedFlagUtilClamp   = 0x60
	schedFlagAll         = 0x7f
)

// Sizes of struct sched_attr: the first version, and Linux's own.
const (
	schedAttrSizeVer0 = 48
	schedAttrSize     = 56
)

// schedState is a thread's scheduling attributes.
type schedState struct {
	policy      int32
	nice        int32 // -20..19
	resetOnFork bool
	// affinity is its CPU mask (sched_setaffinity), one bit per guest
	// CPU; nil: every one. Replaced, never changed in place: a new
	// thread or process shares its creator's.
	affinity []byte
}

// forked is what a new thread or process starts with.
func (s schedState) forked() schedState {
	if !s.resetOnFork {
		return s
	}
	return schedState{policy: s.policy, nice: max(s.nice, 0), affinity: s.affinity} // SCHED_OTHER, SCHED_BATCH and SCHED_IDLE stay
}

func validPolicy(policy int32) bool {
	switch policy {
	case schedOther, schedFIFO, schedRR, schedBatch, schedIdle, schedDeadline:
		return true
	}
	return false
}

func rtPolicy(policy int32) bool   { return policy == schedFIFO || policy == schedRR }
func fairPolicy(policy int32) bool { return policy == schedOther || policy == schedBatch }

// schedTarget is the thread a scheduling call names: the caller for 0.
func (t *Task) schedTarget(pid int32) (*Task, error) {
	if pid < 0 {
		return nil, unix.EINVAL
	}
	if pid == 0 {
		return t, nil
	}
	if o := t.proc.k.taskByTID(int(pid)); o != nil {
		return o, nil
	}
	return nil, unix.ESRCH
}

// setScheduler changes target's attributes to policy (setparamPolicy
// keeps it), priority and nice, as __sched_setscheduler does for an
// unprivileged caller.
// dlValid says whether SCHED_DEADLINE's parameters are valid.
func setScheduler(target *Task, policy int32, flags uint64, priority uint32, nice int32, dlValid bool) error {
	s := &target.sched
	resetOnFork := flags&schedFlagResetOnFork != 0
	if policy == setparamPolicy {
		policy, resetOnFork = s.policy, s.resetOnFork
	} else if !validPolicy(policy) {
		return unix.EINVAL
	}
	switch {
	case flags&^schedFlagAll != 0, priority > 99:
		return unix.EINVAL
	case policy == schedDeadline && !dlValid || rtPolicy(policy) != (priority != 0):
		return unix.EINVAL
	case policy == schedDeadline:
		return unix.EPERM
	case fairPolicy(policy) && nice < s.nice, rtPolicy(policy):
		return unix.EPERM
	case s.policy == schedIdle && policy != schedIdle:
		return unix.EPERM // SCHED_IDLE is nice 20: leaving it lowers the nice value
	case s.resetOnFork && !resetOnFork:
		return unix.EPERM
	case flags&schedFlagUtilClamp != 0:
		return unix.EOPNOTSUPP // a kernel without CONFIG_UCLAMP_TASK
	}
	s.resetOnFork = resetOnFork
	if flags&schedFlagKeepParams != 0 {
		return nil // the policy and its parameters stay
	}
	s.policy = policy
	if fairPolicy(policy) {
		s.nice = nice
	}
	return nil
}

func sysSchedGetscheduler(t *Task, a [6]uint64) (uint64, error) {
	target, err := t.schedTarget(int32(a[0]))
	if err != nil {
		return 0, err
	}
	policy := uint64(target.sched.policy)
	if target.sched.resetOnFork {
		policy |= schedResetOnFork
	}
	return policy, nil
}

func sysSchedGetparam(t *Task, a [6]uint64) (uint64, error) {
	if a[1] == 0 {
		return 0, unix.EINVAL
	}
	if _, err := t.schedTarget(int32(a[0])); err != nil {
		return 0, err
	}
	return 0, t.proc.writeU32(a[1], 0) // sched_priority: 0 outside the real-time policies
}

// schedSetscheduler is sched_setscheduler and sched_setparam.
func schedSetscheduler(t *Task, pid int32, policy int32, param uint64) (uint64, error) {
	if param == 0 || pid < 0 {
		return 0, unix.EINVAL
	}
	priority, err := t.proc.readU32(param)
	if err != nil {
		return 0, err
	}
	target, err := t.schedTarget(pid)
	if err != nil {
		return 0, err
	}
	var flags uint64
	if policy != setparamPolicy && policy&schedResetOnFork != 0 {
		flags, policy = schedFlagResetOnFork, policy&^schedResetOnFork
	}
	return 0, setScheduler(target, policy, flags, priority, target.sched.nice, false)
}

func sysSchedSetscheduler(t *Task, a [6]uint64) (uint64, error) {
	if int32(a[1]) < 0 {
		return 0, unix.EINVAL
	}
	return schedSetscheduler(t, int32(a[0]), int32(a[1]), a[2])
}

func sysSchedSetparam(t *Task, a [6]uint64) (uint64, error) {
	return schedSetscheduler(t, int32(a[0]), setparamPolicy, a[1])
}

// sysSchedGetPriorityMax and sysSchedGetPriorityMin give the range of
// sched_priority for a policy: 1..99 for the real-time ones, 0 else.
func sysSchedGetPriorityMax(t *Task, a [6]uint64) (uint64, error) {
	return priorityBound(int32(a[0]), 99)
}

func sysSchedGetPriorityMin(t *Task, a [6]uint64) (uint64, error) {
	return priorityBound(int32(a[0]), 1)
}

func priorityBound(policy int32, rt uint64) (uint64, error) {
	switch {
	case !validPolicy(policy):
		return 0, unix.EINVAL
	case rtPolicy(policy):
		return rt, nil
	}
	return 0, nil
}

// rrInterval is the time slice sched_rr_get_interval reports for a
// thread outside SCHED_RR: Linux's EEVDF slice (slice, at most 2.8 ms) in
// whole ticks of a 250 Hz kernel (4 ms), none.
const rrInterval = 0

func sysSchedRrGetInterval(t *Task, a [6]uint64) (uint64, error) {
	if _, err := t.schedTarget(int32(a[0])); err != nil {
		return 0, err
	}
	return 0, t.proc.writeMem(a[1], timespec(rrInterval, false))
}

// sysSchedSetattr sets the attributes of struct sched_attr; a size
// Linux does not know is answered with E2BIG and its own written back.
func sysSchedSetattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	pid, addr := int32(a[0]), a[1]
	if addr == 0 || pid < 0 || a[2] != 0 {
		return 0, unix.EINVAL
	}
	size, err := p.readU32(addr)
	if err != nil {
		return 0, err
	}
	if size == 0 {
		size = schedAttrSizeVer0
	}
	if size < schedAttrSizeVer0 || size > emu.PageSize {
		return 0, schedAttrTooBig(p, addr)
	}
	b, err := p.readMem(addr, uint64(size))
	if err != nil {
		return 0, err
	}
	for _, c := range b[min(size, schedAttrSize):] {
		if c != 0 {
			return 0, schedAttrTooBig(p, addr)
		}
	}
	b = append(b, make([]byte, schedAttrSize)...)
	le := binary.LittleEndian
	policy, flags := int32(le.Uint32(b[4:])), le.Uint64(b[8:])
	nice, priority := min(max(int32(le.Uint32(b[16:])), -20), 19), le.Uint32(b[20:])
	if flags&schedFlagUtilClamp != 0 && size < schedAttrSize {
		return 0, unix.EINVAL
	}
	if policy < 0 {
		return 0, unix.EINVAL
	}
	if flags&schedFlagKeepPolicy != 0 {
		policy = setparamPolicy
	}
	target, err := t.schedTarget(pid)
	if err != nil {
		return 0, err
	}
	if flags&schedFlagKeepParams != 0 {
		nice, priority = target.sched.nice, 0
	}
	dl := dlParamsValid(le.Uint64(b[24:]), le.Uint64(b[32:]), le.Uint64(b[40:]))
	return 0, setScheduler(target, policy, flags, priority, nice, dl)
}

// dlParamsValid checks SCHED_DEADLINE's runtime, deadline and period (in
// nanoseconds) as __checkparam_dl does, with Linux's default bounds of
// the period: 100 µs to 2^22 µs.
func dlParamsValid(runtime, deadline, period uint64) bool {
	if period == 0 {
		period = deadline
	}
	switch {
	case deadline == 0, runtime < 1<<10, deadline>>63 != 0, period>>63 != 0:
		return false
	case period < deadline, deadline < runtime:
		return false
	}
	return period >= 100_000 && period <= 1<<22*1000
}

func schedAttrTooBig(p *Process, addr uint64) error {
	if err := p.writeU32(addr, schedAttrSize); err != nil {
		return err
	}
	return unix.E2BIG
}

// baseSlice is the time slice of Linux's EEVDF scheduler (6.13 and
// later), which sched_getattr reports as the runtime of a thread of a
// fair policy, multiplied by 1+log2 of the CPUs (at most 8).
const baseSlice = 700_000

// slice is the runtime sched_getattr reports.
func (p *Process) slice() uint64 {
	n := uint64(1)
	for c := min(p.cpus(), 8); c > 1; c >>= 1 {
		n++
	}
	return baseSlice * n
}

func sysSchedGetattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	size := a[2]
	if a[1] == 0 || int32(a[0]) < 0 || size > emu.PageSize || size < schedAttrSizeVer0 || a[3] != 0 {
		return 0, unix.EINVAL
	}
	target, err := t.schedTarget(int32(a[0]))
	if err != nil {
		return 0, err
	}
	s := target.sched
	b := make([]byte, schedAttrSize)
	le := binary.LittleEndian
	le.PutUint32(b, uint32(min(size, schedAttrSize)))
	le.PutUint32(b[4:], uint32(s.policy))
	if s.resetOnFork {
		le.PutUint64(b[8:], schedFlagResetOnFork)
	}
	le.PutUint32(b[16:], uint32(s.nice))
	le.PutUint64(b[24:], p.slice())
	// No utilisation clamps (sched_util_min and max 0), as a kernel
	// without CONFIG_UCLAMP_TASK; past Linux's size, zeros.
	b = append(b, make([]byte, max(size, schedAttrSize)-schedAttrSize)...)
	return 0, p.writeMem(a[1], b[:size])
}

// getpriority's and setpriority's which.
const (
	prioProcess = 0
	prioPgrp    = 1
	prioUser    = 2
)

// priorityTargets are the threads getpriority and setpriority name: a
// thread (PRIO_PROCESS), every thread of a process group, or of the
// user (every thread: all run as UID).
func (t *Task) priorityTargets(which, who int32) ([]*Task, error) {
	k := t.proc.k
	var ts []*Task
	switch which {
	case prioProcess:
		if who == 0 {
			return []*Task{t}, nil
		}
		if o := k.taskByTID(int(who)); o != nil {
			ts = append(ts, o)
		}
	case prioPgrp:
		if who == 0 {
			who = int32(t.proc.pgid)
		}
		for _, o := range k.tasks {
			if o.proc.pgid == int(who) {
				ts = append(ts, o)
			}
		}
	case prioUser:
		if who == 0 || who == UID {
			ts = k.tasks
		}
	default:
		return nil, unix.EINVAL
	}
	if len(ts) == 0 {
		return nil, unix.ESRCH
	}
	return ts, nil
}

// sysGetpriority returns 20 less the lowest nice value of the threads
// named (the system call's form: libc turns it back into a nice value).
func sysGetpriority(t *Task, a [6]uint64) (uint64, error) {
	ts, err := t.priorityTargets(int32(a[0]), int32(a[1]))
	if err != nil {
		return 0, err
	}
	prio := int32(0)
	for _, o := range ts {
		prio = max(prio, 20-o.sched.nice)
	}
	return uint64(prio), nil
}

// sysSetpriority sets the nice value of the threads named; a lower one
// than a thread has fails with EACCES (RLIMIT_NICE is 0), and the others
// are set all the same.
func sysSetpriority(t *Task, a [6]uint64) (uint64, error) {
	ts, err := t.priorityTargets(int32(a[0]), int32(a[1]))
	if err != nil {
		return 0, err
	}
	nice := min(max(int32(a[2]), -20), 19)
	for _, o := range ts {
		if nice < o.sched.nice {
			err = unix.EACCES
			continue
		}
		o.sched.nice = nice
	}
	return 0, err
}

// sysGetcpu answers CPU 0, node 0: icount runs every thread on one CPU.
func sysGetcpu(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	for _, addr := range a[:2] {
		if addr != 0 {
			if err := p.writeU32(addr, 0); err != nil {
				return 0, err
			}
		}
	}
	return 0, nil
}

// Personas: PER_LINUX, with the flags whose effect icount has anyway.
const (
	personaQuery     = 0xffffffff
	addrNoRandomize  = 0x0040000 // icount's layout is fixed
	personaSupported = addrNoRandomize
)

// sysPersonality returns the process's persona and sets a new one:
// PER_LINUX with ADDR_NO_RANDOMIZE or not; other personas stop the run.
func sysPersonality(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	old := p.persona
	persona := uint32(a[0])
	if persona == personaQuery {
		return uint64(old), nil
	}
	if persona&^personaSupported != 0 {
		return 0, errUnsupported(fmt.Sprintf("personality %#x", persona))
	}
	p.persona = persona
	return uint64(old), nil
}

// affinityTarget is the thread sched_setaffinity and sched_getaffinity
// name: the caller for 0; any other number, a negative one too, that is
// no thread's is ESRCH, as Linux's lookup gives.
func (t *Task) affinityTarget(pid int32) (*Task, error) {
	if pid == 0 {
		return t, nil
	}
	if o := t.proc.k.taskByTID(int(pid)); o != nil && pid > 0 {
		return o, nil
	}
	return nil, unix.ESRCH
}

// maxAffinityBytes is how much of a mask sched_setaffinity reads: the
// bits of --cpus' largest count.
const maxAffinityBytes = 128

// sysSchedSetaffinity sets a thread's CPU mask to the guest's CPUs of the
// mask given (bytes past the length the caller gave are zero); a mask
// naming none of them is EINVAL. It changes nothing about how icount runs
// the thread.
func sysSchedSetaffinity(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	target, err := t.affinityTarget(int32(a[0]))
	if err != nil {
		return 0, err
	}
	b, err := p.readMem(a[2], min(a[1], maxAffinityBytes))
	if err != nil {
		return 0, err
	}
	mask := make([]byte, (p.cpus()+7)/8)
	any := false
	for i := 0; i < p.cpus(); i++ {
		if i/8 < len(b) && b[i/8]&(1<<(i%8)) != 0 {
			mask[i/8] |= 1 << (i % 8)
			any = true
		}
	}
	if !any {
		return 0, unix.EINVAL
	}
	target.sched.affinity = mask
	return 0, nil
}

// sysSchedGetaffinity writes a thread's CPU mask, in whole longs as
// Linux copies it, and returns its length; a buffer shorter than the
// guest's CPUs or not of whole longs is EINVAL.
func sysSchedGetaffinity(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	size := a[1]
	if size*8 < uint64(p.cpus()) || size%8 != 0 {
		return 0, unix.EINVAL
	}
	target, err := t.affinityTarget(int32(a[0]))
	if err != nil {
		return 0, err
	}
	mask := make([]byte, min(size, uint64((p.cpus()+63)/64*8)))
	if target.sched.affinity != nil {
		copy(mask, target.sched.affinity)
	} else {
		for i := 0; i < p.cpus(); i++ {
			mask[i/8] |= 1 << (i % 8)
		}
	}
	return uint64(len(mask)), p.writeMem(a[2], mask)
}
