package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// sendmsg and recvmsg on Unix sockets icount made: iovecs, and the
// ancillary data Linux passes between processes, SCM_RIGHTS (the receiver
// gets new descriptors of the same open files) and SCM_CREDENTIALS (the
// sender's guest pid and the guest's uid and gid, under SO_PASSCRED).

// struct msghdr's fields on x86-64 and arm64 alike, and its size; a
// cmsghdr's header size and the most descriptors one message carries.
const (
	msgName, msgNamelen, msgIov, msgIovlen, msgControl, msgControllen, msgFlags = 0, 8, 16, 24, 32, 40, 48
	msghdrSize                                                                  = 56
	cmsgHdrSize                                                                 = 16
	scmMaxFD                                                                    = 253
)

// msghdr is the guest's struct msghdr.
type msghdr struct {
	name, namelen, iov, iovlen, control, controllen uint64
}

func (p *Process) readMsghdr(addr uint64) (msghdr, error) {
	raw, err := p.readMem(addr, msghdrSize)
	if err != nil {
		return msghdr{}, err
	}
	le := binary.LittleEndian
	return msghdr{le.Uint64(raw[msgName:]), uint64(le.Uint32(raw[msgNamelen:])), le.Uint64(raw[msgIov:]),
		le.Uint64(raw[msgIovlen:]), le.Uint64(raw[msgControl:]), le.Uint64(raw[msgControllen:])}, nil
}

// msgOf reads the msghdr at addr of a sendmsg or recvmsg and its iovecs.
func (p *Process) msgOf(addr uint64) (msghdr, []iovec, error) {
	m, err := p.readMsghdr(addr)
	if err != nil {
		return m, nil, err
	}
	iov, err := p.readIovecs(m.iov, m.iovlen)
	return m, iov, err
}

func sysSendmsg(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	return p.sendmsg(f, a[0], a[1], int(a[2]), func(n, _ int) (uint64, error) { return uint64(n), nil })
}

// sendmsg sends the message of the msghdr at addr on f (the guest's
// descriptor fd) and gives finish the bytes sent and the bytes the
// message holds.
func (p *Process) sendmsg(f *file, fd, addr uint64, flags int, finish func(n, size int) (uint64, error)) (uint64, error) {
	m, iov, err := p.msgOf(addr)
	if err != nil {
		return 0, err
	}
	var to *unixSock
	if m.name != 0 && m.namelen != 0 {
		if to, err = p.destination(f.sock, m.name, m.namelen); err != nil {
			return 0, err
		}
	}
	size := iovSize(iov)
	return p.k.withIOBuffer(size, func(buf []byte) (uint64, error) {
		if err := (guestSource{p, iov, size}).read(buf, 0); err != nil {
			return 0, err
		}
		files, err := p.readRights(m.control, m.controllen)
		if err != nil {
			return 0, err
		}
		return p.sockSend(f, fd, buf, flags, to, files, func(n int) (uint64, error) { return finish(n, len(buf)) })
	})
}

// readRights reads the guest's control messages: the descriptors of its
// SCM_RIGHTS, held, and a check of its SCM_CREDENTIALS (the caller's own,
// or EPERM, as for a process without CAP_SYS_ADMIN).
func (p *Process) readRights(addr, size uint64) ([]*file, error) {
	if size == 0 {
		return nil, nil
	}
	if size > 1<<16 {
		return nil, unix.ENOBUFS
	}
	raw, err := p.readMem(addr, size)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	var files []*file
	fail := func(err error) ([]*file, error) {
		releaseAll(files)
		return nil, err
	}
	for off := uint64(0); off+cmsgHdrSize <= size; {
		n := le.Uint64(raw[off:])
		level, typ := le.Uint32(raw[off+8:]), le.Uint32(raw[off+12:])
		if n < cmsgHdrSize || n > size-off {
			return fail(unix.EINVAL)
		}
		data := raw[off+cmsgHdrSize : off+n]
		switch {
		case level != unix.SOL_SOCKET:
			return fail(unix.EINVAL)
		case typ == unix.SCM_RIGHTS:
			if len(data)/4+len(files) > scmMaxFD || len(data)%4 != 0 && len(data) < 4 {
				return fail(unix.EINVAL)
			}
			for i := 0; i+4 <= len(data); i += 4 {
				g, err := p.fds.get(uint64(le.Uint32(data[i:])))
				if err != nil {
					return fail(err)
				}
				g.hold()
				files = append(files, g)
			}
		case typ == unix.SCM_CREDENTIALS:
			if len(data) != 12 {
				return fail(unix.EINVAL)
			}
			if le.Uint32(data) != uint32(p.pid) || le.Uint32(data[4:]) != UID || le.Uint32(data[8:]) != GID {
				return fail(unix.EPERM)
			}
		default:
			return fail(unix.EINVAL)
		}
		off += (n + 7) &^ 7
	}
	return files, nil
}

func sysRecvmsg(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.sockOf(a[0])
	if err != nil {
		return 0, err
	}
	return p.recvmsg(f, a[0], a[1], int(a[2]), func(res uint64, _ int) (uint64, error) { return res, nil })
}

// recvmsg receives a message on f (the guest's descriptor fd) as the
// msghdr at addr asks, writes back what the msghdr is told, and gives
// finish the call's result and the message's msg_flags.
func (p *Process) recvmsg(f *file, fd, addr uint64, flags int, finish func(res uint64, msgFlags int) (uint64, error)) (uint64, error) {
	m, iov, err := p.msgOf(addr)
	if err != nil {
		return 0, err
	}
	fits := func(off, n int) bool {
		for _, v := range iov {
			part := min(uint64(max(n, 0)), max(v.len, uint64(off))-uint64(off))
			if part > 0 && !p.writable(v.base+uint64(off), part) {
				return false
			}
			n -= int(part)
			off = max(off-int(v.len), 0)
		}
		return true
	}
	return p.k.withIOBuffer(iovSize(iov), func(buf []byte) (uint64, error) {
		return p.sockRecv(f, fd, buf, flags, fits, func(n, res int, got unixRecv, rflags int) (uint64, error) {
			if err := p.scatter(iov, buf[:n]); err != nil {
				releaseAll(got.files)
				return 0, err
			}
			le := binary.LittleEndian
			var out [msghdrSize]byte
			if m.name != 0 {
				if err := p.writeMem(m.name, got.from[:min(uint64(len(got.from)), m.namelen)]); err != nil {
					releaseAll(got.files)
					return 0, err
				}
				le.PutUint32(out[msgNamelen:], uint32(len(got.from)))
			}
			control, trunc := p.controlOut(f.sock, got, m.controllen, flags&unix.MSG_CMSG_CLOEXEC != 0)
			if err := p.writeMem(m.control, control); err != nil {
				return 0, err
			}
			rflags |= flags & unix.MSG_CMSG_CLOEXEC
			if trunc {
				rflags |= unix.MSG_CTRUNC
			}
			le.PutUint64(out[msgControllen:], uint64(len(control)))
			le.PutUint32(out[msgFlags:], uint32(rflags))
			if err := p.writeMem(addr+msgNamelen, out[msgNamelen:msgNamelen+4]); err != nil {
				return 0, err
			}
			if err := p.writeMem(addr+msgControllen, out[msgControllen:]); err != nil {
				return 0, err
			}
			return finish(uint64(res), rflags)
		})
	})
}

// controlOut is the control messages a receive gives in room bytes: the
// sender's credentials under SO_PASSCRED (pid 0 when nothing came), then the descriptors passed,
// installed as new descriptors (close-on-exec if cloexec); what does not
// fit is cut (MSG_CTRUNC), its descriptors closed, as Linux does.
func (p *Process) controlOut(s *unixSock, got unixRecv, room uint64, cloexec bool) ([]byte, bool) {
	le := binary.LittleEndian
	var out []byte
	trunc := false
	cmsg := func(typ uint32, data []byte) {
		n := uint64(cmsgHdrSize + len(data))
		h := le.AppendUint64(nil, n)
		h = le.AppendUint32(le.AppendUint32(h, unix.SOL_SOCKET), typ)
		out = append(out, append(h, data...)...)
		if pad := (n+7)&^7 - n; uint64(len(out))+pad <= room {
			out = append(out, make([]byte, pad)...)
		}
	}
	if s.passcred { // at the end too, naming no process
		cred := le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, uint32(got.pid)), UID), GID)
		switch {
		case room-uint64(len(out)) < cmsgHdrSize+12:
			trunc = true
		default:
			cmsg(unix.SCM_CREDENTIALS, cred)
		}
	}
	if len(got.files) > 0 {
		left := room - min(room, uint64(len(out)))
		fit := 0
		if left >= cmsgHdrSize {
			fit = int(min((left-cmsgHdrSize)/4, uint64(len(got.files))))
		}
		var fds []byte
		flags := uint64(0)
		if cloexec {
			flags = oCloexec
		}
		for i, f := range got.files {
			fd := -1
			if i < fit {
				fd, _ = p.fds.installFlags(f, 0, flags)
			}
			f.release()
			if fd < 0 {
				trunc = true
				continue
			}
			fds = le.AppendUint32(fds, uint32(fd))
		}
		if len(fds) > 0 {
			cmsg(unix.SCM_RIGHTS, fds)
		}
	}
	return out, trunc
}
