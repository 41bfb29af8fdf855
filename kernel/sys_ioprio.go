package kernel

import "golang.org/x/sys/unix"

// I/O priorities (ioprio_get, ioprio_set), kept per thread as Linux keeps
// them in a thread's io_context: a thread has none until a priority is set
// on it (or it inherits a valid one at clone, or shares its parent's with
// CLONE_IO). They change no scheduling in icount, which has one guest CPU
// and host I/O, only what ioprio_get answers: a thread's priority as set
// (0, class NONE, for one that has none); for a group's or a user's
// threads, the best, class NONE counted as best-effort level 4.

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
// context, as for a zombie (nil: its context went at its exit).
func (t *Task) ioprio() uint32 {
	if t == nil || t.io == nil {
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

// ioprioTargets is the threads which and who name (who 0: the caller's
// thread, process group or user), a nil for each process that exited and
// was not yet waited for (a zombie, which Linux still finds), or EINVAL for
// an unknown which.
func (t *Task) ioprioTargets(which uint64, who int) ([]*Task, error) {
	var out []*Task
	add := func(q *Process) {
		if q.exited {
			out = append(out, nil)
		} else {
			out = append(out, q.tasks...)
		}
	}
	switch which {
	case ioprioWhoProcess:
		if who == 0 {
			return []*Task{t}, nil
		}
		for _, q := range t.proc.k.procList {
			if th := q.threadByTID(who); th != nil && !q.exited {
				return []*Task{th}, nil
			}
			if q.exited && q.pid == who {
				return []*Task{nil}, nil
			}
		}
	case ioprioWhoPgrp:
		if who == 0 {
			who = t.proc.pgid
		}
		for _, q := range t.proc.k.procList {
			if q.pgid == who {
				add(q)
			}
		}
	case ioprioWhoUser:
		if who == 0 || who == UID {
			for _, q := range t.proc.k.procList {
				add(q)
			}
		}
	default:
		return nil, unix.EINVAL
	}
	return out, nil
}

// ioprioBest is the better (lower) of two priorities, class NONE counted
// as best-effort level 4 (ioprio_best).
func ioprioBest(a, b uint32) uint32 {
	norm := func(p uint32) uint32 {
		if c := ioprioClass(p); c == ioprioClassNone || c > ioprioClassIdle {
			return ioprioNorm
		}
		return p
	}
	return min(norm(a), norm(b))
}

func sysIoprioGet(t *Task, a [6]uint64) (uint64, error) {
	targets, err := t.ioprioTargets(a[0], int(int32(a[1])))
	if err != nil {
		return 0, err
	}
	if len(targets) == 0 {
		return 0, unix.ESRCH
	}
	// The first as it is, then the best of it and each other, as Linux.
	prio := targets[0].ioprio()
	for _, th := range targets[1:] {
		prio = ioprioBest(prio, th.ioprio())
	}
	return uint64(prio), nil
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
		if th == nil {
			continue // an exited task gets no new context, and no error
		}
		if th.io == nil {
			th.io = &ioContext{}
		}
		th.io.prio = prio
	}
	return 0, nil
}
