package kernel

import (
	"encoding/binary"

	"github.com/icount-dev/icount/emu"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Unix-domain socket system calls (the sockets are in unixsock.go):
// socketpair, the transfers (send, recv and their msg forms, and read and
// write through readFile and writeFile), shutdown and the socket options.

// sockFlags are socket's and socketpair's type flags (SOCK_NONBLOCK,
// SOCK_CLOEXEC), numbered alike on x86-64 and arm64.
const sockFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC

// sendFlags are the send flags passed to the host as they are (MSG_OOB
// would put bytes outside the stream that icount's log does not follow).
const sendFlags = unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL | unix.MSG_EOR | unix.MSG_MORE | unix.MSG_CONFIRM

// recvFlags are the receive flags a receive honours.
const recvFlags = unix.MSG_DONTWAIT | unix.MSG_PEEK | unix.MSG_TRUNC | unix.MSG_WAITALL | unix.MSG_CMSG_CLOEXEC | unix.MSG_ERRQUEUE

func sysSocketpair(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	switch a[0] {
	case unix.AF_UNIX:
	case unix.AF_INET, unix.AF_INET6:
		return 0, unix.EOPNOTSUPP // the family has no pairs
	default:
		return 0, unix.EAFNOSUPPORT // no other family exists in the guest
	}
	host, err := unix.Socketpair(unix.AF_UNIX, int(a[1]&^sockFlags)|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, int(a[2]))
	if err != nil {
		return 0, errnoOf(err)
	}
	var ends [2]*file
	for i := range ends {
		s, err := newUnixSock(host[i])
		if err != nil {
			unix.Close(host[0])
			unix.Close(host[1])
			return 0, err
		}
		s.peerPid = p.pid
		ends[i] = p.newSockFile(host[i], s, a[1])
	}
	ends[0].sock.peer, ends[1].sock.peer = ends[1].sock, ends[0].sock
	fds, err := p.installPair(ends, a[1]&unix.SOCK_CLOEXEC)
	if err != nil {
		return 0, err
	}
	return 0, p.putFDPair(a[3], fds)
}

// putFDPair writes the descriptors fds at addr (socketpair's sv, pipe's
// pipefd), closing them if it cannot, as Linux does.
func (p *Process) putFDPair(addr uint64, fds [2]int) error {
	err := p.writeU32(addr, uint32(fds[0]))
	if err == nil {
		err = p.writeU32(addr+4, uint32(fds[1]))
	}
	if err != nil {
		p.fds.close(fds[0])
		p.fds.close(fds[1])
	}
	return err
}

// newSockFile is the open file of the host socket host, icount's side s,
// non-blocking for the guest when typ has SOCK_NONBLOCK.
func (p *Process) newSockFile(host int, s *unixSock, typ uint64) *file {
	return &file{host: host, path: "socket", pipe: true, nonblock: typ&unix.SOCK_NONBLOCK != 0, sock: s}
}

// installPair gives the two files the lowest free descriptors (O_CLOEXEC
// from flags), closing both if either fails (EMFILE).
func (p *Process) installPair(ends [2]*file, flags uint64) ([2]int, error) {
	var fds [2]int
	for i, f := range ends {
		fd, err := p.fds.installFlags(f, 0, flags)
		if err != nil {
			if i == 1 {
				p.fds.close(fds[0])
			}
			for _, g := range ends[i:] {
				g.hold()
				g.release()
			}
			return fds, err
		}
		fds[i] = fd
	}
	return fds, nil
}

// sockOf is the socket behind the guest's descriptor fd: EBADF if none is
// open, ENOTSOCK if it is not one icount made.
func (p *Process) sockOf(fd uint64) (*file, error) {
	f, err := p.fds.get(fd)
	if err != nil {
		return nil, err
	}
	if f.sock == nil {
		var st unix.Stat_t
		if f.virt == virtNone && unix.Fstat(f.host, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
			return nil, errUnsupported("socket calls on a socket icount was given (fd " + itoa(uint64(uint32(fd))) + ")")
		}
		return nil, unix.ENOTSOCK
	}
	return f, nil
}

func sysSendto(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	var to *unixSock
	if a[4] != 0 {
		if to, err = p.destination(f.sock, a[4], a[5]); err != nil {
			return 0, err
		}
	}
	buf, err := p.readMem(a[1], min(a[2], maxIO))
	if err != nil {
		return 0, err
	}
	return p.sockSend(f, a[0], buf, int(a[3]), to, nil, sentCount)
}

func sysRecvfrom(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	fits := func(off, n int) bool { return p.writable(a[1]+uint64(off), uint64(n)) }
	return p.k.withIOBuffer(min(a[2], maxIO), func(buf []byte) (uint64, error) {
		return p.sockRecv(f, a[0], buf, int(a[3]), fits, func(n, res int, got unixRecv, _ int) (uint64, error) {
			releaseAll(got.files)
			if err := p.writeMem(a[1], buf[:n]); err != nil {
				return 0, err
			}
			if a[4] != 0 {
				if err := p.putSockaddr(a[4], a[5], got.from); err != nil {
					return 0, err
				}
			}
			return uint64(res), nil
		})
	})
}

// destination is the socket a datagram sent to the address at addr (of
// length n) goes to; a connected stream has its peer (EISCONN), an
// unconnected one none (EOPNOTSUPP), as Linux's.
func (p *Process) destination(s *unixSock, addr, n uint64) (*unixSock, error) {
	if s.typ != unix.SOCK_DGRAM {
		if s.peer != nil {
			return nil, unix.EISCONN
		}
		return nil, unix.EOPNOTSUPP
	}
	ua, err := p.readUnixAddr(addr, n)
	if err != nil {
		return nil, err
	}
	to, err := p.lookup(ua)
	if err == nil && to.typ != s.typ {
		err = unix.EPROTOTYPE
	}
	return to, err
}

// releaseAll drops the files a receive took that the guest does not get.
func releaseAll(files []*file) {
	for _, f := range files {
		f.release()
	}
}

// sockSend sends buf on f (the guest's descriptor fd) to to, or its peer
// when nil, with
// files (held, and kept in flight when the send moves bytes), as a
// blocking send does unless f is non-blocking or flags say MSG_DONTWAIT.
// EPIPE on a stream sends SIGPIPE unless MSG_NOSIGNAL, as Linux's does
// (a message socket's EPIPE sends none).
func (p *Process) sockSend(f *file, fd uint64, buf []byte, flags int, to *unixSock, files []*file, finish func(n int) (uint64, error)) (uint64, error) {
	s := f.sock
	if flags&^sendFlags != 0 {
		releaseAll(files)
		return 0, errUnsupported("send flags " + itoa(uint64(flags&^sendFlags)))
	}
	w := ioWait{what: "send on socket (fd " + itoa(uint64(uint32(fd))) + ")", want: len(buf),
		blocking: !f.nonblock && flags&unix.MSG_DONTWAIT == 0 && s.sndtimeo >= 0,
		sigpipe:  s.stream() && flags&unix.MSG_NOSIGNAL == 0, timeout: s.sndtimeo}
	hostFlags := flags | unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL
	pid := p.pid
	ret, err := p.transfer([]*file{f}, w, func(done int) (int, error) {
		dest, hostTo := s.peer, unix.Sockaddr(nil)
		if to != nil {
			dest, hostTo = to, to.hostAddr
		}
		n, err := unix.SendmsgN(f.host, buf[done:], nil, hostTo, hostFlags)
		if err == nil && dest != nil && (n > 0 || !s.stream()) {
			var from []byte
			if s.name != nil {
				from = unixSockaddr(s.name)
			}
			dest.sent(n, pid, from, files)
			files = nil
		}
		return n, err
	}, finish)
	if err != nil || files != nil {
		releaseAll(files)
	}
	return ret, err
}

// sentCount is a send's result: the bytes it moved.
func sentCount(n int) (uint64, error) { return uint64(n), nil }

// sockRecv receives into buf on f (the guest's descriptor fd), when fits
// (if not nil) says the guest can take bytes off to off+n, and gives
// finish what came: the bytes in buf, the call's result (a datagram's whole length under MSG_TRUNC), what the log says
// came with them and the msg_flags. It blocks as sockSend does; under
// MSG_WAITALL a stream's receive waits until size bytes came, the stream
// ended or descriptors came.
func (p *Process) sockRecv(f *file, fd uint64, buf []byte, flags int, fits func(off, n int) bool,
	finish func(n, res int, got unixRecv, msgFlags int) (uint64, error)) (uint64, error) {
	s := f.sock
	if flags&^recvFlags != 0 || flags&unix.MSG_ERRQUEUE != 0 {
		return 0, errUnsupported("recv flags " + itoa(uint64(flags)))
	}
	peek := flags&unix.MSG_PEEK != 0
	waitall := flags&unix.MSG_WAITALL != 0 && s.stream() && !peek
	w := ioWait{what: "receive on socket (fd " + itoa(uint64(uint32(fd))) + ")",
		blocking: !f.nonblock && flags&unix.MSG_DONTWAIT == 0 && s.rcvtimeo >= 0, timeout: s.rcvtimeo}
	size := len(buf)
	hostFlags := flags&(unix.MSG_PEEK|unix.MSG_TRUNC) | unix.MSG_DONTWAIT
	got, res, msgFlags := 0, 0, 0
	var rec unixRecv
	w.timedOut = func() (uint64, error) {
		if got > 0 { // MSG_WAITALL ended short
			return finish(got, res, rec, msgFlags)
		}
		return 0, unix.EAGAIN
	}
	if fits != nil && !peek {
		hostFlags |= unix.MSG_PEEK // taken once fits says the guest can have them
	}
	ret, err := p.transfer([]*file{f}, w, func(int) (int, error) {
		part := buf[got : got+s.recvLimit(size-got)]
		n, _, rflags, _, err := unix.Recvmsg(f.host, part, nil, hostFlags)
		switch {
		case err == unix.EAGAIN && got > 0 && w.blocking:
			return 0, err // MSG_WAITALL: wait for the rest
		case err != nil && got > 0:
			return got, nil // MSG_WAITALL ended short
		case err != nil:
			return 0, err
		}
		if fits != nil && !peek {
			ok := fits(got, min(n, len(part)))
			if !ok && (s.stream() || got > 0) {
				return got, unix.EFAULT // a stream's bytes stay, as Linux leaves them
			}
			if _, _, _, _, err := unix.Recvmsg(f.host, part, nil, hostFlags&^unix.MSG_PEEK); err != nil {
				return 0, err
			}
			if !ok {
				releaseAll(s.received(n, false).files) // a message is taken, and lost
				return 0, unix.EFAULT
			}
		}
		more := s.received(n, peek)
		if got == 0 {
			rec.pid, rec.from = more.pid, more.from
		}
		rec.files = append(rec.files, more.files...)
		msgFlags |= rflags & unix.MSG_TRUNC
		res = got + n
		got = min(res, size)
		if waitall && n > 0 && got < size && more.files == nil {
			return 0, unix.EAGAIN // wait for the rest
		}
		return got, nil
	}, func(int) (uint64, error) { return finish(got, res, rec, msgFlags) })
	return ret, err
}

// putSockaddr writes the address raw (a struct sockaddr) at addr, at most
// the length the guest's *lenAddr allows, and its full length to
// *lenAddr, as Linux does.
func (p *Process) putSockaddr(addr, lenAddr uint64, raw []byte) error {
	want, err := p.readU32(lenAddr)
	if err != nil {
		return err
	}
	if int32(want) < 0 {
		return unix.EINVAL
	}
	if err := p.writeMem(addr, raw[:min(uint32(len(raw)), want)]); err != nil {
		return err
	}
	return p.writeU32(lenAddr, uint32(len(raw)))
}

// unixSockaddr is the struct sockaddr_un of the name (sun_path's bytes,
// none for an unnamed socket).
func unixSockaddr(name []byte) []byte {
	return append(binary.LittleEndian.AppendUint16(nil, unix.AF_UNIX), name...)
}

func sysShutdown(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Shutdown(f.host, int(int32(a[1]))))
}

// hostSockopts are the SOL_SOCKET options whose host answer is the
// guest's: flags and values that concern the socket alone.
var hostSockopts = map[uint64]bool{
	unix.SO_REUSEADDR: true, unix.SO_REUSEPORT: true, unix.SO_KEEPALIVE: true, unix.SO_BROADCAST: true,
	unix.SO_LINGER: true, unix.SO_OOBINLINE: true, unix.SO_DONTROUTE: true, unix.SO_RCVLOWAT: true,
	unix.SO_SNDLOWAT: true, unix.SO_ERROR: true, unix.SO_ACCEPTCONN: true, unix.SO_PASSSEC: true,
}

// maxOptlen bounds an option's value read from or written for the guest.
const maxOptlen = 256

func sysGetsockopt(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	want, err := p.readU32(a[4])
	if err != nil {
		return 0, err
	}
	if int32(want) < 0 {
		return 0, unix.EINVAL
	}
	val, err := f.sock.option(f.host, a[1], a[2])
	if err != nil {
		return 0, err
	}
	if err := p.writeMem(a[3], val[:min(uint32(len(val)), want)]); err != nil {
		return 0, err
	}
	return 0, p.writeU32(a[4], min(uint32(len(val)), want))
}

// option is the value of the socket option name at level, as getsockopt
// gives it.
func (s *unixSock) option(host int, level, name uint64) ([]byte, error) {
	le := binary.LittleEndian
	word := func(v int) []byte { return le.AppendUint32(nil, uint32(v)) }
	if level != unix.SOL_SOCKET {
		return nil, unix.EOPNOTSUPP // no protocol levels on a Unix socket
	}
	switch {
	case name == unix.SO_TYPE:
		return word(s.typ), nil
	case name == unix.SO_DOMAIN:
		return word(unix.AF_UNIX), nil
	case name == unix.SO_PROTOCOL:
		return word(0), nil
	case name == unix.SO_SNDBUF:
		return word(s.sndbuf), nil
	case name == unix.SO_RCVBUF:
		return word(s.rcvbuf), nil
	case name == unix.SO_PASSCRED:
		return word(boolInt(s.passcred)), nil
	case name == unix.SO_RCVTIMEO:
		return timeoutTimeval(s.rcvtimeo), nil
	case name == unix.SO_SNDTIMEO:
		return timeoutTimeval(s.sndtimeo), nil
	case name == unix.SO_PEERCRED:
		if s.peerPid == 0 {
			return append(word(0), append(word(-1), word(-1)...)...), nil
		}
		return append(word(s.peerPid), append(word(UID), word(GID)...)...), nil
	case hostSockopts[name]:
		buf := make([]byte, maxOptlen)
		n, err := getsockoptRaw(host, int(level), int(name), buf)
		return buf[:n], err
	}
	return nil, errUnsupported("getsockopt option " + itoa(name))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sysSetsockopt(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	if a[1] != unix.SOL_SOCKET {
		return 0, unix.EOPNOTSUPP
	}
	if int32(a[4]) < 0 {
		return 0, unix.EINVAL
	}
	val, err := p.readMem(a[3], min(a[4], maxOptlen))
	if err != nil {
		return 0, err
	}
	s := f.sock
	switch name := a[2]; {
	case name == unix.SO_SNDBUF, name == unix.SO_RCVBUF, name == unix.SO_PASSCRED:
		if len(val) < 4 {
			return 0, unix.EINVAL
		}
		v := int(int32(binary.LittleEndian.Uint32(val)))
		switch name {
		case unix.SO_SNDBUF:
			s.sndbuf = max(2*min(max(v, 0), unixBufMax), unixSndbufMin)
		case unix.SO_RCVBUF:
			s.rcvbuf = max(2*min(max(v, 0), unixBufMax), unixRcvbufMin)
		default:
			s.passcred = v != 0
			return 0, nil
		}
		return 0, s.sizeHost(f.host)
	case name == unix.SO_RCVTIMEO, name == unix.SO_SNDTIMEO:
		d, err := timevalTimeout(val)
		if err != nil {
			return 0, err
		}
		if name == unix.SO_RCVTIMEO {
			s.rcvtimeo = d
		} else {
			s.sndtimeo = d
		}
		return 0, nil
	case hostSockopts[name] && name != unix.SO_ERROR && name != unix.SO_ACCEPTCONN:
		return 0, setsockoptRaw(f.host, int(a[1]), int(name), val)
	case name == unix.SO_TYPE, name == unix.SO_DOMAIN, name == unix.SO_PROTOCOL, name == unix.SO_PEERCRED,
		name == unix.SO_ERROR, name == unix.SO_ACCEPTCONN:
		return 0, unix.ENOPROTOOPT // read-only
	}
	return 0, errUnsupported("setsockopt option " + itoa(a[2]))
}

// getsockoptRaw and setsockoptRaw are the host's calls on a buffer.
func getsockoptRaw(host, level, name int, buf []byte) (int, error) {
	n := uint32(len(buf))
	_, _, e := unix.Syscall6(unix.SYS_GETSOCKOPT, uintptr(host), uintptr(level), uintptr(name),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&n)), 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func setsockoptRaw(host, level, name int, val []byte) error {
	var ptr unsafe.Pointer
	if len(val) > 0 {
		ptr = unsafe.Pointer(&val[0])
	}
	_, _, e := unix.Syscall6(unix.SYS_SETSOCKOPT, uintptr(host), uintptr(level), uintptr(name),
		uintptr(ptr), uintptr(len(val)), 0)
	if e != 0 {
		return e
	}
	return nil
}

// sockHZ is the tick SO_RCVTIMEO and SO_SNDTIMEO are kept in, as Linux
// keeps them in jiffies: Debian's kernels' CONFIG_HZ.
const sockHZ = 250

// timevalTimeout reads a struct timeval timeout as Linux's
// sock_set_timeout does: rounded up to a tick, 0 for none, -1 (no wait)
// for a negative one; EINVAL if short, EDOM if tv_usec is out of range.
func timevalTimeout(val []byte) (int64, error) {
	if len(val) < 16 {
		return 0, unix.EINVAL
	}
	sec, usec := int64(binary.LittleEndian.Uint64(val)), int64(binary.LittleEndian.Uint64(val[8:]))
	if usec < 0 || usec >= 1e6 {
		return 0, unix.EDOM
	}
	if sec < 0 {
		return -1, nil
	}
	const tick = 1e9 / sockHZ
	ticks := min(sec, 1<<40)*sockHZ + (usec*1000+tick-1)/tick
	return ticks * tick, nil
}

// timeoutTimeval is the struct timeval getsockopt gives for a timeout.
func timeoutTimeval(d int64) []byte {
	d = max(d, 0)
	le := binary.LittleEndian
	return le.AppendUint64(le.AppendUint64(nil, uint64(d/1e9)), uint64(d%1e9/1000))
}

// writable says that the guest may write the n bytes at addr.
func (p *Process) writable(addr, n uint64) bool {
	if n == 0 {
		return true
	}
	if addr+n < addr || !p.mm.mapped(pageDown(addr), pageUp(addr+n)) {
		return false
	}
	for page := pageDown(addr); page < addr+n; page += emu.PageSize {
		if p.mm.protAt(page)&emu.ProtWrite == 0 {
			return false
		}
	}
	return true
}
