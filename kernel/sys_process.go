package kernel

import (
	"bytes"
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Identity and resource system calls. Identity is fixed, so that a
// program that prints or hashes its pid or uid does the same work on
// every run (process groups and sessions: sys_pgrp.go).

func sysGetpid(t *Task, a [6]uint64) (uint64, error) { return uint64(t.proc.pid), nil }
func sysGetuid(t *Task, a [6]uint64) (uint64, error) { return UID, nil }
func sysGetgid(t *Task, a [6]uint64) (uint64, error) { return GID, nil }
func sysENOSYS(t *Task, a [6]uint64) (uint64, error) { return 0, unix.ENOSYS }

// Resource limits (RLIMIT_*) the guest sees.
const (
	rlimitStack   = 3
	rlimitNofile  = 7
	rlimitMemlock = 8
	rlimitNice    = 13
	rlimitRtprio  = 14
	rlimInfinity  = ^uint64(0)
)

func rlimit(resource uint64) (cur, max uint64) {
	switch resource {
	case rlimitStack:
		return 8 << 20, rlimInfinity
	case rlimitNofile:
		return maxFDs, maxFDs
	case rlimitMemlock:
		return memlockLimit, memlockLimit
	case rlimitNice, rlimitRtprio:
		return 0, 0 // what sys_sched.go lets an unprivileged thread do
	}
	return rlimInfinity, rlimInfinity
}

// limits are p's resource limits, all of them.
func (p *Process) limits() [rlimNlimits][2]uint64 {
	if p.rlimits != nil {
		return *p.rlimits
	}
	var l [rlimNlimits][2]uint64
	for r := range l {
		l[r][0], l[r][1] = rlimit(uint64(r))
	}
	return l
}

// limit is p's limit of resource: what setrlimit or prlimit64 last set,
// else icount's fixed one. Limits are kept and read back; RLIMIT_NOFILE's
// is enforced (fdTable.limit), the others are not.
func (p *Process) limit(resource uint64) (cur, max uint64) {
	l := p.limits()[resource]
	return l[0], l[1]
}

// rlimNlimits is RLIM_NLIMITS: the resources there are.
const rlimNlimits = 16

// prlimit answers prlimit64, setrlimit and getrlimit in Linux's order:
// EINVAL for a resource Linux lacks, EFAULT for a new limit it cannot
// read, ESRCH, then the checks of the new limit (EINVAL for a soft limit
// above the hard, EPERM for a hard limit raised: the guest is
// unprivileged), then the old limits written to oldAddr (EFAULT). New
// limits are kept, read back and inherited; only RLIMIT_NOFILE's is
// enforced.
func (p *Process) prlimit(pid, resource, newAddr, oldAddr uint64) (uint64, error) {
	if resource >= rlimNlimits {
		return 0, unix.EINVAL
	}
	var b []byte
	if newAddr != 0 {
		var err error
		if b, err = p.readMem(newAddr, 16); err != nil {
			return 0, err
		}
	}
	q := p
	if pid != 0 {
		if q = p.k.procs[int(pid)]; q == nil {
			return 0, unix.ESRCH
		}
	}
	cur, max := q.limit(resource)
	if b != nil {
		newCur, newMax := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		if newCur > newMax {
			return 0, unix.EINVAL
		}
		if newMax > max {
			return 0, unix.EPERM
		}
		limits := q.limits()
		limits[resource] = [2]uint64{newCur, newMax}
		q.rlimits = &limits
		if resource == rlimitNofile {
			q.fds.limit = int(min(newCur, maxFDs)) // descriptors stay below it
		}
	}
	if oldAddr != 0 {
		b := binary.LittleEndian.AppendUint64(nil, cur)
		if err := p.writeMem(oldAddr, binary.LittleEndian.AppendUint64(b, max)); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

func sysPrlimit64(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.prlimit(a[0], a[1], a[2], a[3])
}

// sysGetrlimit writes the limits even to NULL, which faults, as Linux's.
func sysGetrlimit(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[0] < rlimNlimits && a[1] == 0 {
		return 0, unix.EFAULT
	}
	return p.prlimit(0, a[0], 0, a[1])
}

// sysSetrlimit reads the new limit before it looks at the resource, as
// Linux's does.
func sysSetrlimit(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if _, err := p.readMem(a[1], 16); err != nil {
		return 0, err
	}
	return p.prlimit(0, a[0], a[1], 0)
}

// Fixed uname fields, 65 bytes each.
func sysUname(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	fields := []string{"Linux", nodeName, kernelRelease, kernelVersion, p.abi.platform, "(none)"}
	buf := make([]byte, 65*len(fields))
	for i, f := range fields {
		copy(buf[65*i:], f)
	}
	return 0, p.writeMem(a[0], buf)
}

func sysGetrandom(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	// GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE; the last two exclusive.
	if a[2]&^7 != 0 || a[2]&6 == 6 {
		return 0, unix.EINVAL
	}
	n := p.ioSpan(a[0], min(a[1], maxIO), emu.ProtWrite)
	if n == 0 && a[1] > 0 {
		return 0, unix.EFAULT
	}
	buf := make([]byte, n)
	p.rng.Read(buf)
	return n, p.writeMem(a[0], buf)
}

type errorString string

func (e errorString) Error() string { return string(e) }

// sysSysinfo answers with fixed figures: glibc's qsort sizes its buffer
// from the memory size, so a host figure would change the work done.
// The guest's machine (procsys.go): the host's would make a program
// that sizes its caches or heap by it count differently from machine to
// machine and from moment to moment.
func sysSysinfo(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	le := binary.LittleEndian
	b := le.AppendUint64(nil, p.uptime()) // seconds
	for i := 0; i < 3; i++ {
		b = le.AppendUint64(b, 0) // load averages
	}
	b = le.AppendUint64(b, guestRAM)                // totalram
	b = le.AppendUint64(b, guestFreeRAM)            // freeram
	b = le.AppendUint64(b, 0)                       // sharedram
	b = le.AppendUint64(b, 0)                       // bufferram
	b = le.AppendUint64(b, 0)                       // totalswap
	b = le.AppendUint64(b, 0)                       // freeswap
	b = le.AppendUint16(b, uint16(p.k.liveTasks())) // procs
	b = append(b, make([]byte, 6)...)
	b = le.AppendUint64(b, 0) // totalhigh
	b = le.AppendUint64(b, 0) // freehigh
	b = le.AppendUint32(b, 1) // mem_unit
	b = append(b, make([]byte, 4)...)
	return 0, p.writeMem(a[0], b)
}

// prctl options.
const (
	prSetPdeathsig = 1
	prGetPdeathsig = 2
	prSetName      = 15
	prGetName      = 16
)

// sysPrctl keeps the thread name and the parent-death signal; other
// options are refused with EINVAL, as a kernel without them would.
func sysPrctl(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case prSetName:
		b, err := p.readMem(a[1], 16)
		if err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		p.k.cur.name = string(b[:min(len(b), 15)])
		return 0, nil
	case prGetName:
		name := make([]byte, 16)
		copy(name, p.k.cur.name)
		return 0, p.writeMem(a[1], name)
	case prSetPdeathsig:
		if a[1] > nsig {
			return 0, unix.EINVAL
		}
		p.deathSignal = int(a[1])
		return 0, nil
	case prGetPdeathsig:
		return 0, p.writeU32(a[1], uint32(p.deathSignal))
	}
	return 0, unix.EINVAL
}

// sysSetID answers setuid/setgid: setting the id to the value it has is
// accepted, any other refused with EPERM, as the kernel does for an
// unprivileged process; -1 is no id (EINVAL).
func sysSetID(t *Task, a [6]uint64) (uint64, error) {
	if int32(a[0]) == -1 {
		return 0, unix.EINVAL
	}
	return sysSetresID(t, [6]uint64{a[0], ^uint64(0), ^uint64(0)})
}

// sysSetresID is sysSetID for the three ids of setresuid/setresgid, where
// -1 keeps an id.
func sysSetresID(t *Task, a [6]uint64) (uint64, error) {
	for _, id := range a[:3] {
		if int32(id) != -1 && uint32(id) != UID && uint32(id) != GID {
			return 0, unix.EPERM
		}
	}
	return 0, nil
}

// sysSetreID is sysSetresID for the two ids of setreuid/setregid.
func sysSetreID(t *Task, a [6]uint64) (uint64, error) {
	return sysSetresID(t, [6]uint64{a[0], a[1], ^uint64(0)})
}

// sysSetfsID answers setfsuid/setfsgid: the previous id, the fixed one,
// whatever the argument (the only id it may change to is that one).
func sysSetfsID(t *Task, a [6]uint64) (uint64, error) { return UID, nil }

// sysGetresID writes the fixed ids to the three pointers of getresuid and
// getresgid (uid and gid are the same number).
func sysGetresID(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	for _, addr := range a[:3] {
		if err := p.writeU32(addr, UID); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

// sysGetgroups reports no supplementary groups; a negative size is
// EINVAL.
func sysGetgroups(t *Task, a [6]uint64) (uint64, error) {
	if int32(a[0]) < 0 {
		return 0, unix.EINVAL
	}
	return 0, nil
}
