package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Capabilities: the guest is an unprivileged user's process, with no
// capability in any set. capget reports the empty sets; capset may only
// keep them empty (EPERM for any capability it would raise). The header's
// version is negotiated as Linux does: a version it does not know is
// answered with EINVAL and _LINUX_CAPABILITY_VERSION_3 written back.

// Capability versions, and how many 32-bit words each set has in each.
const (
	capVersion1 = 0x19980330
	capVersion2 = 0x20071026
	capVersion3 = 0x20080522
)

// capWords checks the header's version and returns the words per set.
func (p *Process) capWords(header uint64) (uint64, error) {
	version, err := p.readU32(header)
	if err != nil {
		return 0, err
	}
	switch version {
	case capVersion1:
		return 1, nil
	case capVersion2, capVersion3:
		return 2, nil
	}
	if err := p.writeU32(header, capVersion3); err != nil {
		return 0, err
	}
	return 0, unix.EINVAL
}

// capPID reads the header's pid.
func (p *Process) capPID(header uint64) (int32, error) {
	pid, err := p.readU32(header + 4)
	return int32(pid), err
}

func sysCapget(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	words, err := p.capWords(a[0])
	if a[1] == 0 && err == unix.EINVAL {
		return 0, nil // a query of the version
	}
	if err != nil || a[1] == 0 {
		return 0, err
	}
	pid, err := p.capPID(a[0])
	switch {
	case err != nil:
		return 0, err
	case pid < 0:
		return 0, unix.EINVAL
	case pid != 0 && !p.k.knows(int(pid)):
		return 0, unix.ESRCH
	}
	// effective, permitted, inheritable: per word.
	return 0, p.writeMem(a[1], make([]byte, 12*words))
}

func sysCapset(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	words, err := p.capWords(a[0])
	if err != nil {
		return 0, err
	}
	pid, err := p.capPID(a[0])
	if err != nil {
		return 0, err
	}
	if pid != 0 && int(pid) != p.pid {
		return 0, unix.EPERM
	}
	b, err := p.readMem(a[1], 12*words)
	if err != nil {
		return 0, err
	}
	for i := 0; i < len(b); i += 4 {
		if binary.LittleEndian.Uint32(b[i:]) != 0 {
			return 0, unix.EPERM
		}
	}
	return 0, nil
}
