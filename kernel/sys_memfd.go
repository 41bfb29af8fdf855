package kernel

import (
	"golang.org/x/sys/unix"
)

// memfd_create: an anonymous file in memory, made on the host (a memfd of
// icount's, so its contents, size and seals are the host kernel's, and
// nothing of it depends on the host but what the guest wrote), with
// F_ADD_SEALS and F_GET_SEALS passed to it. MFD_HUGETLB is refused as by
// a kernel without hugetlbfs (EINVAL): huge pages' sizes are the host's.

// memfd_create flags.
const (
	mfdCloexec    = 1
	mfdHugetlb    = 4
	mfdKnownFlags = 0x1f // MFD_CLOEXEC, _ALLOW_SEALING, _HUGETLB, _NOEXEC_SEAL, _EXEC
)

// fcntl's seal commands.
const (
	fAddSeals = 1033
	fGetSeals = 1034
)

func sysMemfdCreate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := a[1]
	if flags&^mfdKnownFlags != 0 || flags&mfdHugetlb != 0 {
		return 0, unix.EINVAL
	}
	name, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	fd, err := unix.MemfdCreate(name, int(flags|mfdCloexec))
	if err != nil {
		return 0, errnoOf(err)
	}
	var guestFlags uint64
	if flags&mfdCloexec != 0 {
		guestFlags = oCloexec
	}
	gfd, err := p.fds.installFlags(&file{host: fd, path: "/memfd:" + name + " (deleted)", memfd: true}, 0, guestFlags)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	return uint64(gfd), nil
}

// fcntlSeals adds seals to f's memfd or reads them, as the host's kernel
// does; EINVAL for a file that is not one of the guest's memfds (also one
// reopened through /proc/self/fd, which icount does not follow).
func fcntlSeals(f *file, cmd, arg uint64) (uint64, error) {
	if !f.memfd {
		return 0, unix.EINVAL
	}
	n, err := unix.FcntlInt(uintptr(f.host), int(cmd), int(uint32(arg)))
	if err != nil {
		return 0, errnoOf(err)
	}
	return uint64(n), nil
}
