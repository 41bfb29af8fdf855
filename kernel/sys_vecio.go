package kernel

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Vectored transfers at an offset: preadv, pwritev and their v2 forms with
// RWF_ flags, made as one host transfer of the gathered bytes (so that
// what the guest moves in one call moves in one piece). An offset of -1
// in the v2 forms is the file offset, as readv and writev use it, and a
// pipe icount made then blocks the thread as readv and writev do.
// RWF_NOWAIT on a file (not a pipe) is taken as if its pages were cached:
// whether they are is the host's state, which must not enter.

// rwfNowait is RWF_NOWAIT.
const rwfNowait = 8

// iovSize is the bytes iov holds, at most maxIO.
func iovSize(iov []iovec) uint64 {
	var size uint64
	for _, v := range iov {
		size += min(v.len, maxIO-size)
	}
	return size
}

// scatter writes buf into the guest's iovecs in order.
func (p *Process) scatter(iov []iovec, buf []byte) error {
	for _, v := range iov {
		if len(buf) == 0 {
			break
		}
		part := buf[:min(v.len, uint64(len(buf)))]
		if err := p.writeMem(v.base, part); err != nil {
			return err
		}
		buf = buf[len(part):]
	}
	return nil
}

func sysPreadv(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.preadv(a[0], a[1], a[2], a[3], 0, false)
}
func sysPwritev(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.pwritev(a[0], a[1], a[2], a[3], 0, false)
}
func sysPreadv2(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.preadv(a[0], a[1], a[2], a[3], a[5], true)
}
func sysPwritev2(t *Task, a [6]uint64) (uint64, error) {
	return t.proc.pwritev(a[0], a[1], a[2], a[3], a[5], true)
}

// vecArgs checks a vectored transfer's descriptor and reads its iovecs,
// in Linux's order: EBADF unless the descriptor is open for the transfer
// (refused is the access mode that is not), ESPIPE at an offset on a pipe
// or socket, the iovecs' errors, EINVAL for a negative offset (v1) or
// one below -1 (v2: the host refuses it). atCursor says the transfer is
// at the file offset (a v2 call's -1).
func (p *Process) vecArgs(fd, iovAddr, cnt, pos uint64, v2 bool, refused int) (f *file, iov []iovec, atCursor bool, err error) {
	if f, err = p.fds.get(fd); err != nil {
		return nil, nil, false, err
	}
	atCursor = v2 && int64(pos) == -1
	if _, err := unix.Seek(f.host, 0, unix.SEEK_CUR); err != nil && !atCursor {
		return nil, nil, false, errnoOf(err)
	}
	if mode, err := lockMode(f); err != nil || mode == refused {
		return nil, nil, false, unix.EBADF
	}
	if iov, err = p.readIovecs(iovAddr, cnt); err != nil {
		return nil, nil, false, err
	}
	if !v2 && int64(pos) < 0 {
		return nil, nil, false, unix.EINVAL // the host's preadv2 would take -1 for the file offset
	}
	return f, iov, atCursor, nil
}

// hostRWFlags are the RWF_ flags the host's call gets for f.
func hostRWFlags(f *file, flags uint64) int {
	if !f.pipe {
		flags &^= rwfNowait
	}
	return int(flags)
}

func (p *Process) preadv(fd, iovAddr, cnt, pos, flags uint64, v2 bool) (uint64, error) {
	f, iov, atCursor, err := p.vecArgs(fd, iovAddr, cnt, pos, v2, unix.O_WRONLY)
	if err != nil {
		return 0, err
	}
	size, want := p.iovSpan(iov, emu.ProtWrite)
	if size == 0 && want > 0 {
		return 0, unix.EFAULT
	}
	room := int64(pos)
	if atCursor {
		room = -1
	}
	return p.k.withIOBuffer(readRoom(f, size, room), func(buf []byte) (uint64, error) {
		finish := func(n int) (uint64, error) { return uint64(n), p.scatter(iov, buf[:n]) }
		if n, ok := p.readVirtual(f, buf); ok {
			return finish(n)
		}
		if atCursor && f.pipe && flags&rwfNowait == 0 {
			return p.readFile(f, fd, buf, finish)
		}
		n, err := unix.Preadv2(f.host, [][]byte{buf}, int64(pos), hostRWFlags(f, flags))
		if err != nil {
			return 0, errnoOf(err)
		}
		return finish(n)
	})
}

func (p *Process) pwritev(fd, iovAddr, cnt, pos, flags uint64, v2 bool) (uint64, error) {
	f, iov, atCursor, err := p.vecArgs(fd, iovAddr, cnt, pos, v2, unix.O_RDONLY)
	if err != nil {
		return 0, err
	}
	size, want := p.iovSpan(iov, emu.ProtRead)
	if size == 0 && want > 0 {
		return 0, unix.EFAULT
	}
	src := guestSource{p, iov, size}
	if atCursor && f.pipe && flags&rwfNowait == 0 {
		if size == 0 {
			return 0, nil
		}
		return p.writeFile(f, fd, src)
	}
	n, err := src.writePieces(0, writePiece(f.host), func(b []byte, at int) (int, error) {
		at64 := int64(pos)
		if !atCursor {
			at64 += int64(at)
		}
		return unix.Pwritev2(f.host, [][]byte{b}, at64, hostRWFlags(f, flags))
	})
	if err != nil {
		return 0, errnoOf(err)
	}
	if n > 0 && !f.pipe && !f.stdio {
		p.stamp(f.host, false, true)
	}
	return uint64(n), nil
}
