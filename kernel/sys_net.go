package kernel

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// getsockname and getpeername: of a Unix socket icount made
// (sys_unixname.go) or of a socket the guest was given.

// sysGetsockname and sysGetpeername answer for a socket the guest was
// given (a standard descriptor icount inherited: the guest makes none),
// from the host's, and ENOTSOCK for anything else, as Linux does. The
// address is the host's: part of the program's input, as its descriptors
// are.
func sysGetsockname(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.sockName(unix.SYS_GETSOCKNAME, a)
}

func sysGetpeername(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.sockName(unix.SYS_GETPEERNAME, a)
}

// sockName runs getsockname or getpeername (nr) on the host descriptor
// behind the guest's a[0] and copies the address out as Linux does: at
// most *addrlen bytes, and the full length back in *addrlen.
func (p *Process) sockName(nr uintptr, a [6]uint64) (uint64, error) {
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if f.sock != nil {
		return p.sockNameOf(f, nr == unix.SYS_GETPEERNAME, a)
	}
	var buf [128]byte // sockaddr_storage
	n := uint32(len(buf))
	if _, _, e := unix.Syscall(nr, uintptr(f.host), uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n))); e != 0 {
		return 0, e
	}
	return 0, p.putSockaddr(a[1], a[2], buf[:min(n, uint32(len(buf)))])
}
