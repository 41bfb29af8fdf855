package kernel

import (
	"golang.org/x/sys/unix"
)

// What one read or write makes icount hold, whatever the guest passes: a
// write takes the guest's bytes a piece of ioPiece at a time, when the
// host takes them (a write blocked on a full pipe holds none, as Linux
// copies from the caller's memory as room appears), and a read's buffer
// is no larger than what the file can give at once (what is left of a
// regular file, a pipe's capacity). The bytes moved, the short counts and
// the errors are the single transfer's. The buffers are lent (ioBuffers),
// not made per call.

// ioPiece is the most of a transfer icount holds at once.
const ioPiece = 1 << 20

// ioBuffers lends transfers their buffers: one kept between calls, as
// large as the largest transfer so far (at most maxIO), so that a
// program's reads and writes cost no allocation, nor the zeroing of one.
// The kernel handles one system call at a time, and a transfer gives its
// buffer back when the call returns; one that blocks its thread
// (errBlocked) keeps the buffer it has until its wait ends (its closures
// hold it), and the next transfer gets a new one. A lent buffer holds
// the bytes of earlier transfers: only what a transfer put in it may
// reach the guest.
type ioBuffers struct {
	spare []byte
}

// take lends a buffer of n bytes.
func (b *ioBuffers) take(n uint64) []byte {
	buf := b.spare
	b.spare = nil
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	return buf[:n]
}

// give takes a buffer back, keeping the larger of it and the one kept.
func (b *ioBuffers) give(buf []byte) {
	if cap(buf) > cap(b.spare) {
		b.spare = buf
	}
}

// withIOBuffer runs the transfer xfer with a buffer of n bytes lent by
// the kernel, and takes it back unless the transfer blocked its thread.
func (k *Kernel) withIOBuffer(n uint64, xfer func(buf []byte) (uint64, error)) (uint64, error) {
	buf := k.ioBufs.take(n)
	ret, err := xfer(buf)
	if err != errBlocked {
		k.ioBufs.give(buf)
	}
	return ret, err
}

// guestSource is the bytes a write takes from the guest: the first size
// bytes through iov (iovSpan's size: those the guest may read).
type guestSource struct {
	p    *Process
	iov  []iovec
	size uint64
}

// read fills buf with the source's bytes from offset off.
func (s guestSource) read(buf []byte, off uint64) error {
	for _, v := range s.iov {
		if len(buf) == 0 {
			break
		}
		if off >= v.len {
			off -= v.len
			continue
		}
		n := min(v.len-off, uint64(len(buf)))
		if err := s.p.cpu.ReadAsGuest(v.base+off, buf[:n]); err != nil {
			return unix.EFAULT
		}
		buf = buf[n:]
		off = 0
	}
	return nil
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
	bufs := &s.p.k.ioBufs
	buf := bufs.take(min(piece, s.size-uint64(done)))
	defer bufs.give(buf)
	moved := 0
	for at := uint64(done); at < s.size; {
		b := buf[:min(piece, s.size-at)]
		if err := s.read(b, at); err != nil {
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
