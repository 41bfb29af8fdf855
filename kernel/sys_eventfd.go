package kernel

import (
	"golang.org/x/sys/unix"
)

// eventfd: a host eventfd, non-blocking on the host as icount's pipes are
// (file.pipe): reads and writes go to it as they are, and one that would
// block blocks the guest thread (hostIO). Go's runtime wakes a thread
// waiting in epoll with one.

// eventfd2 flags (include/uapi/linux/eventfd.h), alike on x86-64 and arm64.
const (
	efdSemaphore = 1
	efdNonblock  = 0x800   // O_NONBLOCK
	efdCloexec   = 0x80000 // O_CLOEXEC
)

// sysEventfd is eventfd (x86-64 only): eventfd2 with no flags.
func sysEventfd(t *Task, a [6]uint64) (uint64, error) {
	return sysEventfd2(t, [6]uint64{a[0], 0})
}

func sysEventfd2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := a[1]
	if flags&^(efdSemaphore|efdNonblock|efdCloexec) != 0 {
		return 0, unix.EINVAL
	}
	fd, err := unix.Eventfd(uint(uint32(a[0])), unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|int(flags&efdSemaphore))
	if err != nil {
		return 0, errnoOf(err)
	}
	f := &file{host: fd, path: "anon_inode:[eventfd]", pipe: true, counted: true, nonblock: flags&efdNonblock != 0}
	gfd, err := p.fds.installFlags(f, 0, flags&efdCloexec)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	return uint64(gfd), nil
}
