package kernel

import "golang.org/x/sys/unix"

// I/O priorities (ioprio_get, ioprio_set), kept per thread as Linux keeps
// them in a thread's io_context: a thread has none until a priority is set
// on it (or it inherits a valid one at clone, or shares its parent's with
// CLONE_IO). They change no scheduling in icount, which has one guest CPU
// and host I/O, only what ioprio_get answers: a thread's priority as set
// (0, class NONE, for one that has none); the best of a group's or a
// user's, class NONE counted as best-effort level 4 (ioprio_best).

// The notes of both arches' table rows.
const (
	noteIoprioSet = "per thread, as Linux keeps it; IOPRIO_CLASS_RT EPERM (CAP_SYS_NICE); changes no scheduling"
	noteIoprioGet = "as set, 0 for a thread that has none; for a group or user the best, class NONE as best-effort 4 (nice 0)"
)

// ioContext is a thread's I/O context: its priority, as ioprio_set gives it.
type ioContext struct{ prio uint32 }

// ioprio values: class in bits 13-15, level in bits 0-2.
const (
	ioprioClassShift = 13
	ioprioClassNone  = 0
	ioprioClassRT    = 1
	ioprioClassBE    = 2
	ioprioClassIdle  = 3
	ioprioLevels     = 8
	// ioprioNorm is how a class NONE compares with others: best-effort,
	// level 4 (the level of nice 0, the guest's).
	ioprioNorm = ioprioClassBE<<ioprioClassShift | 4
)

// ioprio_get's and ioprio_set's which.
const (
	ioprioWhoProcess = 1
	ioprioWhoPgrp    = 2
	ioprioWhoUser    = 3
)

func ioprioClass(prio uint32) uint32 { return prio >> ioprioClassShift & 7 }

// ioprio is what ioprio_get reads of t: 0 (IOPRIO_DEFAULT) without an I/O
// context.
func (t *Task) ioprio() uint32 {
	if t.io == nil {
		return 0
	}
	return t.io.prio
}

// inheritIO is the I/O context a thread t clones with flags starts with:
// t's with CLONE_IO, a copy of a valid priority, or none.
func (t *Task) inheritIO(flags uint64) *ioContext {
	switch {
	case t.io == nil:
		return nil
	case flags&cloneIO != 0:
		return t.io
	case ioprioClass(t.io.prio) == ioprioClassNone || ioprioClass(t.io.prio) > ioprioClassIdle:
		return nil
	}
	return &ioContext{t.io.prio}
}

// ioprioTargets yields the threads which and who name (pid 0: the caller's
// thread, process group or user), or EINVAL for an unknown which.
func (t *Task) ioprioTargets(which uint64, who int) ([]*Task, error) {
	k := t.proc.k
	var out []*Task
	switch which {
	case ioprioWhoProcess:
		if who == 0 {
			return []*Task{t}, nil
		}
		for q := range k.live() {
			if th := q.threadByTID(who); th != nil {
				return []*Task{th}, nil
			}
		}
	case ioprioWhoPgrp:
		if who == 0 {
			who = t.proc.pgid
		}
		for q := range k.live() {
			if q.pgid == who {
				out = append(out, q.tasks...)
			}
		}
	case ioprioWhoUser:
		if who == 0 || who == UID {
			for q := range k.live() {
				out = append(out, q.tasks...)
			}
		}
	default:
		return nil, unix.EINVAL
	}
	return out, nil
}

func sysIoprioGet(t *Task, a [6]uint64) (uint64, error) {
	which := a[0]
	targets, err := t.ioprioTargets(which, int(int32(a[1])))
	if err != nil {
		return 0, err
	}
	if len(targets) == 0 {
		return 0, unix.ESRCH
	}
	if which == ioprioWhoProcess {
		return uint64(targets[0].ioprio()), nil
	}
	// The best (lowest) of several (ioprio_best).
	best := ^uint32(0)
	for _, th := range targets {
		p := th.ioprio()
		if c := ioprioClass(p); c == ioprioClassNone || c > ioprioClassIdle {
			p = ioprioNorm
		}
		best = min(best, p)
	}
	return uint64(best), nil
}

func sysIoprioSet(t *Task, a [6]uint64) (uint64, error) {
	prio := uint32(a[2])
	level := prio & 7
	switch ioprioClass(prio) {
	case ioprioClassRT:
		return 0, unix.EPERM // CAP_SYS_NICE
	case ioprioClassBE:
		if level >= ioprioLevels {
			return 0, unix.EINVAL
		}
	case ioprioClassIdle:
	case ioprioClassNone:
		if level != 0 {
			return 0, unix.EINVAL
		}
	default:
		return 0, unix.EINVAL
	}
	targets, err := t.ioprioTargets(a[0], int(int32(a[1])))
	if err != nil {
		return 0, err
	}
	if len(targets) == 0 {
		return 0, unix.ESRCH
	}
	for _, th := range targets {
		if th.io == nil {
			th.io = &ioContext{}
		}
		th.io.prio = prio
	}
	return 0, nil
}
