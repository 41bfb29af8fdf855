package kernel

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// The ends of processes: exit_group, deaths by signal, and the parent's
// wait4 and waitid, which reap zombies. A process that ends sends its
// parent its exit signal (SIGCHLD) and stays a zombie until waited for,
// unless its parent ignores SIGCHLD; its children are orphaned (their
// parent pid becomes 1) and sent their PR_SET_PDEATHSIG signal. The run
// ends when the first process ends.

func sysExitGroup(t *Task, a [6]uint64) (uint64, error) {
	t.proc.exitProcess(int(a[0])&0xff, 0)
	return 0, errBlocked
}

// exitProcess ends p with status (0-255), or killed by sig (status 0 then):
// every task ends, descriptors close, its parent is told.
func (p *Process) exitProcess(status, sig int) {
	k := p.k
	if p.exited {
		return
	}
	p.exited, p.killedBy = true, sig
	p.exitStatus = status
	if sig != 0 {
		p.exitStatus = 128 + sig
	}
	for _, t := range append([]*Task(nil), p.tasks...) {
		t.exit()
	}
	p.fds.closeAll()
	p.cwd.release()
	p.cwd = nil
	p.alarm = itimer{deadline: noDeadline}
	p.timers = nil
	if im := p.img; im != nil {
		im.Exit = ImageExit{Status: p.exitStatus, Signal: sig}
	}
	p.leaveImage()
	for _, c := range p.children {
		c.parent = nil
		if c.deathSignal != 0 && !c.exited {
			c.sendProcess(c.deathSignal, sigInfo{signo: int32(c.deathSignal), code: siUser, pid: uint32(p.pid)})
		}
		if c.exited {
			k.reap(c)
		}
	}
	p.children = nil
	switch par := p.parent; {
	case par == nil:
		if p != k.first {
			k.reap(p) // nobody waits for an orphan
		}
	case par.action(sigCHLD).handler == sigIGN || par.action(sigCHLD).flags&saNocldwait != 0:
		k.reap(p)
		if p.exitSignal != 0 && par.action(p.exitSignal).handler != sigIGN {
			par.sendProcess(p.exitSignal, p.childInfo())
		}
	default:
		if p.exitSignal != 0 {
			par.sendProcess(p.exitSignal, p.childInfo())
		}
	}
	k.switching = true
	if p == k.first {
		k.stop()
	}
}

// saNocldwait is SA_NOCLDWAIT: children of a process whose SIGCHLD has it
// are reaped at once.
const saNocldwait = 2

// childInfo is the siginfo of the SIGCHLD p's end sends.
func (p *Process) childInfo() sigInfo {
	code, status := int32(cldExited), int32(p.exitStatus)
	if p.killedBy != 0 {
		code, status = cldKilled, int32(p.killedBy)
	}
	return sigInfo{signo: int32(sigCHLD), code: code, pid: uint32(p.pid), uid: UID, status: status}
}

// si_code values of SIGCHLD.
const (
	cldExited = 1
	cldKilled = 2
)

// reap forgets an ended process: its pid may not be waited for again.
func (k *Kernel) reap(p *Process) {
	delete(k.procs, p.pid)
	for i, q := range k.procList {
		if q == p {
			k.procList = append(k.procList[:i], k.procList[i+1:]...)
			break
		}
	}
	if par := p.parent; par != nil {
		for i, c := range par.children {
			if c == p {
				par.children = append(par.children[:i], par.children[i+1:]...)
				break
			}
		}
	}
}

// wait options (include/uapi/linux/wait.h).
const (
	wNohang    = 1
	wUntraced  = 2
	wExited    = 4
	wContinued = 8
	wNowait    = 0x01000000
	wNothread  = 0x20000000
	wAll       = 0x40000000
	wClone     = 0x80000000
)

// waitid's idtype.
const (
	pAll  = 0
	pPID  = 1
	pPGID = 2
)

// selects reports whether a wait for (idtype, id) from p takes child c.
func (p *Process) selects(c *Process, idtype int, id int) bool {
	switch idtype {
	case pPID:
		return c.pid == id
	case pPGID:
		return c.pgid == id
	}
	return true
}

// waitChild finds a child of p the wait selects: an ended one, if any;
// none means p has no such child at all (ECHILD).
func (p *Process) waitChild(idtype, id int) (ended *Process, any bool) {
	for _, c := range p.children {
		if !p.selects(c, idtype, id) {
			continue
		}
		any = true
		if c.exited {
			return c, true
		}
	}
	return nil, any
}

// waitStatus is the status word wait4 reports for an ended child.
func (c *Process) waitStatus() uint32 {
	if c.killedBy != 0 {
		return uint32(c.killedBy)
	}
	return uint32(c.exitStatus&0xff) << 8
}

func sysWait4(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	pid, statusAddr, options, rusage := int32(a[0]), a[1], a[2], a[3]
	if options&^(wNohang|wUntraced|wContinued|wNothread|wAll|wClone) != 0 {
		return 0, unix.EINVAL
	}
	idtype, id := pAll, 0
	switch {
	case pid > 0:
		idtype, id = pPID, int(pid)
	case pid == 0:
		idtype, id = pPGID, p.pgid
	case pid < -1:
		idtype, id = pPGID, int(-pid)
	}
	try := func() (uint64, error, bool) {
		c, any := p.waitChild(idtype, id)
		switch {
		case !any:
			return 0, unix.ECHILD, true
		case c == nil:
			return 0, nil, false
		}
		if statusAddr != 0 {
			if err := p.writeU32(statusAddr, c.waitStatus()); err != nil {
				return 0, err, true
			}
		}
		if rusage != 0 {
			if err := p.writeMem(rusage, make([]byte, 144)); err != nil {
				return 0, err, true
			}
		}
		p.k.reap(c)
		return uint64(c.pid), nil, true
	}
	if ret, err, done := try(); done || options&wNohang != 0 {
		return ret, err
	}
	return p.block(&wait{what: fmt.Sprintf("wait4(%d) for a child to end", pid), deadline: noDeadline,
		ready: try, restartable: true})
}

func sysWaitid(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	idtype, id, infop, options := int(a[0]), int(int32(a[1])), a[2], a[3]
	if options&^(wNohang|wUntraced|wExited|wContinued|wNowait|wNothread|wAll|wClone) != 0 || options&(wExited|wUntraced|wContinued) == 0 {
		return 0, unix.EINVAL
	}
	switch {
	case idtype == pAll:
	case idtype == pPID && id > 0:
	case idtype == pPGID && id >= 0:
		if id == 0 {
			id = p.pgid
		}
	default:
		return 0, unix.EINVAL
	}
	try := func() (uint64, error, bool) {
		c, any := p.waitChild(idtype, id)
		switch {
		case !any:
			return 0, unix.ECHILD, true
		case c == nil && options&wNohang != 0:
			if infop != 0 {
				return 0, p.writeMem(infop, make([]byte, 128)), true
			}
			return 0, nil, true
		case c == nil:
			return 0, nil, false
		}
		// As Linux, the child is reaped before its siginfo is written:
		// a bad infop is EFAULT with the child gone.
		info := c.childInfo().bytes()
		if options&wNowait == 0 {
			p.k.reap(c)
		}
		if infop != 0 {
			return 0, p.writeMem(infop, info), true
		}
		return 0, nil, true
	}
	if ret, err, done := try(); done {
		return ret, err
	}
	return p.block(&wait{what: "waitid for a child to end", deadline: noDeadline, ready: try, restartable: true})
}
