package kernel

import (
	"golang.org/x/sys/unix"
)

// What one read or write makes icount allocate, whatever the guest
// passes: a write takes the guest's bytes a piece of ioPiece at a time,
// when the host takes them (a write blocked on a full pipe holds none, as
// Linux copies from the caller's memory as room appears), and a read's
// buffer is no larger than what the file can give at once (what is left
// of a regular file, a pipe's capacity). The bytes moved, the short
// counts and the errors are the single transfer's.

// ioPiece is the most of a transfer icount holds at once.
const ioPiece = 1 << 20

// guestSource is the bytes a write takes from the guest: the first size
// bytes through iov (iovSpan's size: those the guest may read).
type guestSource struct {
	p    *Process
	iov  []iovec
	size uint64
}

// bytesAt reads n bytes of the source from offset off.
func (s guestSource) bytesAt(off, n uint64) ([]byte, error) {
	buf := make([]byte, 0, n)
	for _, v := range s.iov {
		if uint64(len(buf)) == n {
			break
		}
		if off >= v.len {
			off -= v.len
			continue
		}
		b, err := s.p.readMem(v.base+off, min(v.len-off, n-uint64(len(buf))))
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
		off = 0
	}
	return buf, nil
}

// writePieces writes the source from offset done with write, pieces of
// at most piece bytes, until it is all written, the host takes less than a
// piece, or an error; an error after some bytes is the short count's end.
// A write of nothing is one host write of nothing, which checks the
// descriptor (EBADF for one not open for writing).
func (s guestSource) writePieces(done int, piece uint64, write func(b []byte, at int) (int, error)) (int, error) {
	if uint64(done) >= s.size {
		return write(nil, done)
	}
	moved := 0
	for at := uint64(done); at < s.size; {
		b, err := s.bytesAt(at, min(piece, s.size-at))
		if err != nil {
			return moved, err
		}
		n, err := write(b, int(at))
		if n > 0 {
			moved += n
			at += uint64(n)
		}
		if err != nil {
			if moved > 0 {
				return moved, nil
			}
			return 0, err
		}
		if n < len(b) {
			break
		}
	}
	return moved, nil
}

// pipeBuf is PIPE_BUF: a write to a pipe of at most this many bytes is
// atomic, so it is never cut.
const pipeBuf = 4096

// writePiece is the piece a write to the host descriptor fd takes now:
// ioPiece, or for a pipe or FIFO the room it has (at least pipeBuf, so
// that a write that cannot fit fails EAGAIN as the host's does), so that
// a full pipe costs no copy of what it cannot take.
func writePiece(fd int) uint64 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return ioPiece
	}
	capacity, err := unix.FcntlInt(uintptr(fd), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		return ioPiece
	}
	queued, err := unix.IoctlGetInt(fd, fionread)
	if err != nil {
		return ioPiece
	}
	return uint64(min(max(capacity-queued, pipeBuf), ioPiece))
}

// readRoom bounds the buffer of a read of size bytes from f's host file at
// pos (-1: its offset): a regular file gives at most what is left of it
// (one whose size says nothing, as /proc's 0, is not bounded), a pipe or
// FIFO at most its capacity. (A host stream's read waits for its whole
// buffer, readWant: it is not bounded; nor are the files icount answers
// itself.)
func readRoom(f *file, size uint64, pos int64) uint64 {
	var st unix.Stat_t
	special := f.virt != 0 || f.sock != nil || f.stream != 0 || f.counted || f.inotify || f.sigfd != nil || f.timer != nil
	if special || unix.Fstat(f.host, &st) != nil {
		return size
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Size <= 0 {
			return size
		}
		if pos < 0 {
			var err error
			if pos, err = unix.Seek(f.host, 0, unix.SEEK_CUR); err != nil {
				return size
			}
		}
		return min(size, uint64(max(st.Size-pos, 0)))
	case unix.S_IFIFO:
		if c, err := unix.FcntlInt(uintptr(f.host), unix.F_GETPIPE_SZ, 0); err == nil && c > 0 {
			return min(size, uint64(c))
		}
	}
	return size
}
