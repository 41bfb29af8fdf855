package kernel

import "golang.org/x/sys/unix"

// Process groups and sessions. The first process leads its own group and
// session; children inherit both; setpgid and setsid move a process as
// Linux allows.

func sysGetppid(t *Task, a [6]uint64) (uint64, error) { return uint64(t.proc.ppid()), nil }

func sysGetpgrp(t *Task, a [6]uint64) (uint64, error) { return uint64(t.proc.pgid), nil }

// process returns the process pid names for the caller (0: the caller).
func (t *Task) process(pid int32) (*Process, error) {
	if pid == 0 {
		return t.proc, nil
	}
	if q := t.proc.k.procs[int(pid)]; q != nil && pid > 0 {
		return q, nil
	}
	return nil, unix.ESRCH
}

func sysGetpgid(t *Task, a [6]uint64) (uint64, error) {
	q, err := t.process(int32(a[0]))
	if err != nil {
		return 0, err
	}
	return uint64(q.pgid), nil
}

func sysGetsid(t *Task, a [6]uint64) (uint64, error) {
	q, err := t.process(int32(a[0]))
	if err != nil {
		return 0, err
	}
	return uint64(q.sid), nil
}

// sysSetpgid moves the caller or one of its children into the group pgid
// (0: its own pid), within its session.
func sysSetpgid(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	pid, pgid := int32(a[0]), int32(a[1])
	if pgid < 0 {
		return 0, unix.EINVAL
	}
	q, err := t.process(pid)
	if err != nil {
		return 0, err
	}
	if q != p && q.parent != p {
		return 0, unix.ESRCH
	}
	if q.sid != p.sid || q.pid == q.sid {
		return 0, unix.EPERM
	}
	if pgid == 0 {
		pgid = int32(q.pid)
	}
	if int(pgid) != q.pid {
		found := false
		for r := range p.k.live() {
			if r.pgid == int(pgid) && r.sid == p.sid {
				found = true
				break
			}
		}
		if !found {
			return 0, unix.EPERM
		}
	}
	q.pgid = int(pgid)
	return 0, nil
}

// sysSetsid makes the caller the leader of a new session and group,
// unless it leads a group already.
func sysSetsid(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	for r := range p.k.live() {
		if r.pgid == p.pid {
			return 0, unix.EPERM
		}
	}
	p.pgid, p.sid = p.pid, p.pid
	return uint64(p.pid), nil
}
