package kernel

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// Named Unix sockets: socket(AF_UNIX), bind, listen, connect, accept and
// accept4, getsockname and getpeername. A name is icount's, in a name
// space of the run: an abstract name (a leading NUL byte) is looked up in
// the Kernel's table, a path name by the inode bind made for it in the
// file system (S_IFSOCK, the mode less the umask, as Linux makes it: stat
// and unlink see it, and it stays after the socket closes). The host
// socket behind a bound one has a name the host picks (autobind) that
// only icount uses, so no other host process reaches a socket of the run
// nor the run one of theirs.

// unixNames is the Kernel's table of bound Unix sockets.
type unixNames struct {
	abstract map[string]*unixSock    // by the name, its leading NUL included
	paths    map[[2]uint64]*unixSock // by the socket inode's device and number
	nextAuto int                     // the next autobind name
}

// maxSunPath is sun_path's size.
const maxSunPath = 108

// unixAddr is a guest's struct sockaddr_un: an abstract name, a path, or
// none (autobind).
type unixAddr struct {
	name []byte // as getsockname gives it back: the path and its NUL, or the abstract name
	path string // the path, "" for an abstract name
}

// readUnixAddr reads the sockaddr_un of length n at addr: EINVAL unless it
// is one.
func (p *Process) readUnixAddr(addr, n uint64) (unixAddr, error) {
	if n < 2 || n > 2+maxSunPath {
		return unixAddr{}, unix.EINVAL
	}
	raw, err := p.readMem(addr, n)
	if err != nil {
		return unixAddr{}, err
	}
	if binary.LittleEndian.Uint16(raw) != unix.AF_UNIX {
		return unixAddr{}, unix.EINVAL
	}
	sun := raw[2:]
	if len(sun) == 0 || sun[0] == 0 {
		return unixAddr{name: sun}, nil
	}
	if i := bytes.IndexByte(sun, 0); i >= 0 {
		sun = sun[:i]
	}
	return unixAddr{name: append(append([]byte{}, sun...), 0), path: string(sun)}, nil
}

func (k *Kernel) unixNames() *unixNames {
	if k.unix == nil {
		k.unix = &unixNames{abstract: map[string]*unixSock{}, paths: map[[2]uint64]*unixSock{}}
	}
	return k.unix
}

// sysSocket makes Unix sockets; every other family is refused: AF_INET,
// AF_INET6 and AF_NETLINK with EACCES, as a sandbox that forbids them
// answers (libc then goes without: the name-service cache, routes), the
// rest with EAFNOSUPPORT.
func sysSocket(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case unix.AF_UNIX:
	case unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK:
		return 0, unix.EACCES
	default:
		return 0, unix.EAFNOSUPPORT
	}
	host, err := unix.Socket(unix.AF_UNIX, int(a[1]&^sockFlags)|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, int(a[2]))
	if err != nil {
		return 0, errnoOf(err)
	}
	s, err := newUnixSock(host)
	if err != nil {
		unix.Close(host)
		return 0, err
	}
	fd, err := p.installSock(host, s, a[1])
	return uint64(fd), err
}

// installSock gives the host socket host, icount's side s, the lowest free
// descriptor, with SOCK_NONBLOCK and SOCK_CLOEXEC from typ; it closes the
// socket if there is none (EMFILE).
func (p *Process) installSock(host int, s *unixSock, typ uint64) (int, error) {
	f := p.newSockFile(host, s, typ)
	fd, err := p.fds.installFlags(f, 0, typ&unix.SOCK_CLOEXEC)
	if err != nil {
		f.hold()
		f.release()
	}
	return fd, err
}

// hostBind gives s's host socket a name the host picks, and keeps it for
// connect and sendto.
func (s *unixSock) hostBind(host int) error {
	if err := unix.Bind(host, &unix.SockaddrUnix{}); err != nil {
		return errnoOf(err)
	}
	sa, err := unix.Getsockname(host)
	if err != nil {
		return errnoOf(err)
	}
	s.hostAddr = sa
	return nil
}

// addrCall reads bind's and connect's arguments: the socket behind a[0]
// and the address at a[1], a[2] bytes long.
func (p *Process) addrCall(a [6]uint64) (*file, unixAddr, error) {
	f, err := p.sockOf(a[0])
	if err != nil {
		return nil, unixAddr{}, err
	}
	addr, err := p.readUnixAddr(a[1], a[2])
	return f, addr, err
}

func sysBind(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, addr, err := p.addrCall(a)
	if err != nil {
		return 0, err
	}
	s := f.sock
	if s.name != nil {
		return 0, unix.EINVAL
	}
	return 0, p.bindName(f, addr)
}

// bindName binds f's socket to addr: an abstract name free in the run, a
// path where the file system has no file, or (none) a name of its own.
func (p *Process) bindName(f *file, addr unixAddr) error {
	s, names := f.sock, p.k.unixNames()
	switch {
	case len(addr.name) == 0:
		for names.abstract[autoName(names.nextAuto)] != nil {
			names.nextAuto++
		}
		addr.name = []byte(autoName(names.nextAuto))
		names.nextAuto = (names.nextAuto + 1) & 0xfffff
		fallthrough
	case addr.path == "":
		if names.abstract[string(addr.name)] != nil {
			return unix.EADDRINUSE
		}
		if err := s.hostBind(f.host); err != nil {
			return err
		}
		names.abstract[string(addr.name)] = s
	default:
		dir, err := p.hostDir(guestFDCWD)
		if err != nil {
			return err
		}
		host := p.hostPath(addr.path)
		if err := unix.Mknodat(dir, host, unix.S_IFSOCK|0o777&^p.umask, 0); err != nil {
			if err == unix.EEXIST {
				return unix.EADDRINUSE
			}
			return errnoOf(err)
		}
		p.created(dir, host, 0o777, true)
		var st unix.Stat_t
		if err := unix.Fstatat(dir, host, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return errnoOf(err)
		}
		if err := s.hostBind(f.host); err != nil {
			unix.Unlinkat(dir, host, 0)
			return err
		}
		s.inode = [2]uint64{st.Dev, st.Ino}
		names.paths[s.inode] = s
	}
	s.name, s.names = addr.name, names
	return nil
}

// autoName is the abstract name autobind gives, as Linux's: five hex digits.
func autoName(n int) string { return fmt.Sprintf("\x00%05x", n) }

// lookup finds the socket bound to addr: ENOENT (or the lookup's error)
// for a path with no file, ECONNREFUSED for a name no socket of the run
// holds.
func (p *Process) lookup(addr unixAddr) (*unixSock, error) {
	names := p.k.unixNames()
	if addr.path == "" {
		if s := names.abstract[string(addr.name)]; s != nil {
			return s, nil
		}
		return nil, unix.ECONNREFUSED
	}
	var st unix.Stat_t
	if _, err := p.resolve(addr.path, func(host string) error {
		dir, err := p.hostDir(guestFDCWD)
		if err != nil {
			return err
		}
		return unix.Fstatat(dir, host, &st, 0)
	}); err != nil {
		return nil, errnoOf(err)
	}
	if s := names.paths[[2]uint64{st.Dev, st.Ino}]; s != nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
		return s, nil
	}
	return nil, unix.ECONNREFUSED
}

// unbind takes s's name out of the table, when it closes.
func (s *unixSock) unbind() {
	if s.names == nil {
		return
	}
	if s.inode != ([2]uint64{}) {
		delete(s.names.paths, s.inode)
	} else {
		delete(s.names.abstract, string(s.name))
	}
	s.names = nil
}

func sysListen(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	if f.sock.names == nil && f.sock.typ != unix.SOCK_DGRAM {
		return 0, unix.EINVAL // no listens on an unbound socket
	}
	if err := unix.Listen(f.host, int(int32(a[1]))); err != nil {
		return 0, errnoOf(err)
	}
	f.sock.listenPid = p.pid
	f.sock.peerPid = p.pid // a listener's SO_PEERCRED is its own, as Linux's
	return 0, nil
}

func sysConnect(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, addr, err := p.addrCall(a)
	if err != nil {
		return 0, err
	}
	if len(addr.name) == 0 {
		return 0, unix.EINVAL
	}
	target, err := p.lookup(addr)
	if err != nil {
		return 0, err
	}
	s := f.sock
	if target.typ != s.typ {
		return 0, unix.EPROTOTYPE
	}
	if s.passcred && s.names == nil {
		if err := p.bindName(f, unixAddr{}); err != nil {
			return 0, err
		}
	}
	w := ioWait{what: "connect on socket (fd " + itoa(uint64(uint32(a[0]))) + ")",
		blocking: !f.nonblock && s.sndtimeo >= 0, timeout: s.sndtimeo}
	return p.transfer([]*file{f}, w, func(int) (int, error) {
		if err := unix.Connect(f.host, target.hostAddr); err != nil {
			if err == unix.EAGAIN && !w.blocking {
				return 0, unix.EAGAIN
			}
			return 0, err
		}
		s.peerName = target.name
		if s.typ != unix.SOCK_DGRAM {
			// The socket accept will give, already the peer's.
			child := &unixSock{typ: s.typ, sndbuf: unixBufDefault, rcvbuf: unixBufDefault, peer: s,
				peerPid: p.pid, name: target.name, peerName: s.name}
			s.peer, s.peerPid = child, target.listenPid
			target.pending = append(target.pending, child)
		} else {
			s.peer = target
		}
		return 0, nil
	}, func(int) (uint64, error) { return 0, nil })
}

func sysAccept(t *Task, a [6]uint64) (uint64, error) {
	return sysAccept4(t, [6]uint64{a[0], a[1], a[2], 0})
}

func sysAccept4(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	if a[3]&^sockFlags != 0 {
		return 0, unix.EINVAL
	}
	s := f.sock
	w := ioWait{what: "accept on socket (fd " + itoa(uint64(uint32(a[0]))) + ")",
		blocking: !f.nonblock && s.rcvtimeo >= 0, timeout: s.rcvtimeo}
	return p.transfer([]*file{f}, w, func(int) (int, error) {
		host, _, err := unix.Accept4(f.host, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			return 0, err
		}
		child := s.pending[0]
		s.pending = s.pending[1:]
		if err := child.sizeHost(host); err != nil {
			unix.Close(host)
			return 0, err
		}
		fd, err := p.installSock(host, child, a[3])
		if err != nil {
			return 0, err
		}
		if a[1] != 0 {
			if err := p.putSockaddr(a[1], a[2], unixSockaddr(child.peerName)); err != nil {
				p.fds.close(fd)
				return 0, err
			}
		}
		return fd, nil
	}, func(fd int) (uint64, error) { return uint64(fd), nil })
}

// sockNameOf answers getsockname (peer false) and getpeername for a
// socket icount made.
func (p *Process) sockNameOf(f *file, peer bool, a [6]uint64) (uint64, error) {
	name := f.sock.name
	if peer {
		if f.sock.peer == nil && f.sock.peerName == nil {
			return 0, unix.ENOTCONN
		}
		name = f.sock.peerName
	}
	return 0, p.putSockaddr(a[1], a[2], unixSockaddr(name))
}
