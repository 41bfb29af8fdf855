package kernel

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Host streams: a pipe, FIFO, socket or character device (a terminal,
// /dev/null) that icount did not make: the standard descriptors it was
// given, or one the guest opened by path. Another party (the shell's
// reader or writer, a user at a terminal) works its host side at its own
// pace, so nothing the guest sees of it may depend on that pace:
//
//   - its host descriptor stays blocking: the guest's O_NONBLOCK (open,
//     F_SETFL, FIONBIO) is kept in icount's file only, as F_GETFL shows;
//   - a transfer on it waits on the host until it is done, whatever the
//     guest's O_NONBLOCK (a write until every byte is written; a read of
//     a pipe or FIFO until its buffer is full or the end of the file
//     comes, of a terminal, socket or device until some byte or the end
//     comes), stopping the whole run meanwhile, so that no other thread
//     runs more or less by how long the host side takes; it never fails
//     with EAGAIN, and a description the host side made non-blocking is
//     waited on as well;
//   - poll, select and epoll find it always ready for what its open mode
//     allows (reading, writing), never hung up: a guest that polls, then
//     reads, waits in the read.
//
// A FIFO opened by path whose other end a process of the run holds is a
// pipe of the run instead (fifo.go).

// streamEvents is the poll events a host stream on the host descriptor
// fd is always ready for, or 0 when fd is no host stream: a pipe's or
// FIFO's end for what it was opened for (as Linux's pipe_poll checks),
// a socket or character device for both.
func streamEvents(fd int) int16 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	const in, out = unix.POLLIN | pollRdnorm, unix.POLLOUT | pollWrnorm
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK, unix.S_IFCHR:
		return in | out
	case unix.S_IFIFO:
		fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
		if err != nil {
			return 0
		}
		switch fl & unix.O_ACCMODE {
		case unix.O_RDONLY:
			return in
		case unix.O_WRONLY:
			return out
		}
		return in | out
	}
	return 0
}

// hostNonblock reports whether the host descriptor fd is non-blocking.
func hostNonblock(fd int) bool {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK != 0
}

// setHostNonblock sets or clears O_NONBLOCK on the host descriptor fd,
// leaving its other status flags.
func setHostNonblock(fd int, on bool) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK|boolInt(on)*unix.O_NONBLOCK)
	}
	return err
}

// streamIO runs op, a read (read) or write on the host stream f starting
// at byte done of the transfer, as hostIO describes, waiting on the host
// until op moved want bytes: a write's all, a read's at least one, or
// its whole buffer for a host pipe's or FIFO's (readWant), or found the
// end. A FIFO with an end in the run waits as a pipe of the run instead
// (fifoPeer).
func (p *Process) streamIO(f *file, what string, read bool, want int, op func(done int) (int, error), finish func(n int) (uint64, error)) (uint64, error) {
	f.transfers++
	events := int16(unix.POLLOUT)
	if read {
		events = unix.POLLIN
	}
	moved := 0
	for {
		n, err := op(moved)
		if n > 0 {
			moved += n
		}
		switch {
		case errors.Is(err, unix.EAGAIN) && p.k.fifoPeer(f, counterpart(events)):
			done := moved
			return p.transfer([]*file{f}, ioWait{what: what, want: boolInt(!read) * (want - done), blocking: !f.nonblock, sigpipe: true},
				func(more int) (int, error) { return op(done + more) },
				func(n int) (uint64, error) { return finish(done + n) })
		case errors.Is(err, unix.EAGAIN):
			// A FIFO's, or the host side made the description non-blocking.
			if err := waitHost(f.host, events); err != nil {
				return 0, errnoOf(err)
			}
		case errors.Is(err, unix.EINTR):
		case err != nil && moved == 0:
			if errors.Is(err, unix.EPIPE) {
				p.sendSIGPIPE(p.k.cur)
			}
			return 0, errnoOf(err)
		case err != nil, moved >= want, read && n == 0:
			return finish(moved)
		}
	}
}

// fillingDevice reports whether the host descriptor fd is /dev/zero or
// /dev/full, whose reads always have all the bytes asked for: the host cuts
// one short only when a signal reaches icount's thread during it (the Go
// runtime's), which would let the host's timing into the guest.
func fillingDevice(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR &&
		(st.Rdev == unix.Mkdev(1, 5) || st.Rdev == unix.Mkdev(1, 7))
}

// readWant is how many of size bytes a read of the host stream f waits
// for: all of them from a host pipe or FIFO, whose writer's pace would
// otherwise cut the read short where it happened to be (only the end
// cuts it); one from a terminal (a line, as its line discipline gives
// it), a socket or a device, or from a FIFO with an end in the run (a
// pipe of the run: what it holds).
func (p *Process) readWant(f *file, size int) int {
	if f.fills && !p.k.runPipe(f) {
		return size
	}
	return min(size, 1)
}

// waitHost waits on the host, as long as it takes, until the host
// descriptor fd has one of events (or is hung up, or fails).
func waitHost(fd int, events int16) error {
	for {
		_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: events}}, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// sendSIGPIPE sends t SIGPIPE, for a write to a pipe or socket no one
// reads any more.
func (p *Process) sendSIGPIPE(t *Task) {
	p.send(t, sigPIPE, sigInfo{signo: sigPIPE, code: siUser, pid: uint32(p.pid), uid: UID})
}
