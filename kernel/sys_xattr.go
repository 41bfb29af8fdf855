package kernel

import (
	"bytes"
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// Setting and removing extended attributes, on the host's files as the
// getters in sys_file.go read them. The guest is unprivileged, whatever
// the host user may do: the trusted. and security. namespaces, which need
// CAP_SYS_ADMIN (or CAP_SETFCAP), refuse changes with EPERM, and trusted.
// attributes are neither read (ENODATA) nor listed, as Linux hides them.

// xattrSizeMax is XATTR_SIZE_MAX, the largest value Linux takes.
const xattrSizeMax = 1 << 16

// privilegedXattr reports whether setting or removing name needs a
// capability the guest lacks.
func privilegedXattr(name string) bool {
	return strings.HasPrefix(name, "trusted.") || strings.HasPrefix(name, "security.")
}

// xattrChange checks the file (exists reports the path or descriptor
// lookup's error, as Linux looks it up before the permission check), then
// refuses a privileged name or runs change.
func xattrChange(name string, exists func() error, change func() error) (uint64, error) {
	if err := exists(); err != nil {
		return 0, errnoOf(err)
	}
	if privilegedXattr(name) {
		return 0, unix.EPERM
	}
	return 0, errnoOrNil(change())
}

// xattrArgs reads setxattr's name, value (size bytes) and flags as Linux
// checks them, before it looks at the file or descriptor.
func (p *Process) xattrArgs(nameAddr, valueAddr, size, flags uint64) (string, []byte, error) {
	if flags&^(unix.XATTR_CREATE|unix.XATTR_REPLACE) != 0 {
		return "", nil, unix.EINVAL
	}
	name, err := p.xattrName(nameAddr)
	if err != nil {
		return "", nil, err
	}
	if size > xattrSizeMax {
		return "", nil, unix.E2BIG
	}
	value, err := p.readMem(valueAddr, size)
	return name, value, err
}

// xattrName reads an attribute name: ERANGE if empty or longer than 255.
func (p *Process) xattrName(addr uint64) (string, error) {
	name, err := p.readString(addr)
	if err != nil {
		return "", err
	}
	if name == "" || len(name) > 255 {
		return "", unix.ERANGE
	}
	return name, nil
}

// pathXattr runs op on the host path of the guest's path at addr
// (resolved as the getters resolve it), first checking that it exists
// (following a final symbolic link unless nofollow).
func (p *Process) pathXattr(addr uint64, name string, nofollow bool, op func(host string) error) (uint64, error) {
	path, err := p.readString(addr)
	if err != nil {
		return 0, err
	}
	flags := 0
	if nofollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	var host string
	return xattrChange(name, func() (err error) {
		var st unix.Stat_t
		host, err = p.resolve(path, func(h string) error { return unix.Fstatat(unix.AT_FDCWD, p.cwdRelative(h), &st, flags) })
		return err
	}, func() error { return op(p.cwdRelative(host)) })
}

func sysSetxattr(t *Task, a [6]uint64) (uint64, error)  { return t.proc.setxattr(a, false) }
func sysLsetxattr(t *Task, a [6]uint64) (uint64, error) { return t.proc.setxattr(a, true) }

func (p *Process) setxattr(a [6]uint64, nofollow bool) (uint64, error) {
	name, value, err := p.xattrArgs(a[1], a[2], a[3], a[4])
	if err != nil {
		return 0, err
	}
	set := unix.Setxattr
	if nofollow {
		set = unix.Lsetxattr
	}
	return p.pathXattr(a[0], name, nofollow, func(host string) error { return set(host, name, value, int(a[4])) })
}

func sysFsetxattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	name, value, err := p.xattrArgs(a[1], a[2], a[3], a[4])
	if err != nil {
		return 0, err
	}
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return xattrChange(name, openFile, func() error { return unix.Fsetxattr(f.host, name, value, int(a[4])) })
}

func sysRemovexattr(t *Task, a [6]uint64) (uint64, error)  { return t.proc.removexattr(a, false) }
func sysLremovexattr(t *Task, a [6]uint64) (uint64, error) { return t.proc.removexattr(a, true) }

func (p *Process) removexattr(a [6]uint64, nofollow bool) (uint64, error) {
	name, err := p.xattrName(a[1])
	if err != nil {
		return 0, err
	}
	remove := unix.Removexattr
	if nofollow {
		remove = unix.Lremovexattr
	}
	return p.pathXattr(a[0], name, nofollow, func(host string) error { return remove(host, name) })
}

func sysFremovexattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	name, err := p.xattrName(a[1])
	if err != nil {
		return 0, err
	}
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return xattrChange(name, openFile, func() error { return unix.Fremovexattr(f.host, name) })
}

// openFile is the lookup of a descriptor's file, open already: it
// cannot fail.
func openFile() error { return nil }

// xattrListMax is XATTR_LIST_MAX, the longest list of names Linux gives.
const xattrListMax = 1 << 16

// unprivilegedGet reads attribute name into b with get, as an
// unprivileged process reads it: a trusted. attribute of a file that
// exists is ENODATA.
func unprivilegedGet(name string, get func(name string, b []byte) (int, error), b []byte) (int, error) {
	n, err := get(name, b)
	if strings.HasPrefix(name, "trusted.") && (err == nil || errors.Is(err, unix.ERANGE)) {
		return 0, unix.ENODATA
	}
	return n, err
}

// visibleNames is list (a listxattr) without the trusted. names, which an
// unprivileged process is not shown: it lists into a buffer of its own
// and copies what is left into b (nil asks for the size).
func visibleNames(list func(b []byte) (int, error)) func(b []byte) (int, error) {
	return func(b []byte) (int, error) {
		all := make([]byte, xattrListMax)
		n, err := list(all)
		if err != nil {
			return 0, err
		}
		var names []byte
		for _, name := range bytes.SplitAfter(all[:n], []byte{0}) {
			if len(name) > 0 && !bytes.HasPrefix(name, []byte("trusted.")) {
				names = append(names, name...)
			}
		}
		if b == nil {
			return len(names), nil
		}
		if len(names) > len(b) {
			return 0, unix.ERANGE
		}
		return copy(b, names), nil
	}
}
