package kernel

import (
	"slices"

	"golang.org/x/sys/unix"
)

// FIFOs opened by path. The other end of one may be the run's too (a
// shell's `mkfifo p; producer >p & consumer <p`), whose processes a wait
// on the host would stop, so that neither end came:
//
//   - a blocking open (no O_NONBLOCK, not O_RDWR) waits in icount's
//     scheduler until a process of the run holds an end for the other
//     direction or waits in open for one, as Linux's open waits for the
//     other end; only when no thread of the run can run does it wait on
//     the host, for a host process to open the other end;
//   - its host descriptor is non-blocking, and while a process of the
//     run holds an end for the other direction (fifoPeer) it is a pipe of
//     the run, as icount's own: a transfer that would block honours the
//     guest's O_NONBLOCK or blocks the thread in the scheduler, and poll
//     and epoll ask the host. With no such end it is a host stream
//     (hoststream.go).
//
// Which comes first does not depend on the host: a host process's end
// counts only once the run cannot go on without it.

// fifoID names a FIFO opened by path: its host device and inode.
type fifoID struct{ dev, ino uint64 }

// fifoOf is the FIFO the host descriptor fd is, if it is one.
func fifoOf(fd int) (fifoID, bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return fifoID{}, false
	}
	return fifoID{st.Dev, st.Ino}, true
}

// fifoPeer reports whether a process of the run holds an end of the FIFO
// f is for one of events (unix.POLLIN a reader, unix.POLLOUT a writer):
// f itself, opened for both, is its own.
func (k *Kernel) fifoPeer(f *file, events int16) bool {
	return f.fifo != (fifoID{}) && k.fifoHeld(f.fifo, events, false)
}

// fifoHeld reports whether a process of the run holds an end of the FIFO
// id for one of events, or, with opening, waits in open for one.
func (k *Kernel) fifoHeld(id fifoID, events int16, opening bool) bool {
	for p := range k.live() {
		for _, g := range p.fds.fds {
			if g.fifo == id && g.stream&events != 0 {
				return true
			}
		}
	}
	return opening && slices.ContainsFunc(k.fifoOpens, func(o fifoOpen) bool { return o.id == id && o.events&events != 0 })
}

// runPipe reports whether f is a FIFO with an end in the run for the
// other direction than its own (for either, when it is for both).
func (k *Kernel) runPipe(f *file) bool { return k.fifoPeer(f, counterpart(f.stream)) }

// counterpart is the direction (unix.POLLIN, unix.POLLOUT) that serves
// events': a reader for a writer, a writer for a reader.
func counterpart(events int16) int16 {
	var c int16
	if events&unix.POLLIN != 0 {
		c |= unix.POLLOUT
	}
	if events&unix.POLLOUT != 0 {
		c |= unix.POLLIN
	}
	return c
}

// fifoOpen is a blocking open of a FIFO waiting for the other end: the
// FIFO and the direction it opens for.
type fifoOpen struct {
	id     fifoID
	events int16
	t      *Task
}

// endFIFOOpens ends the blocking opens of the FIFO id that an end the run
// now holds completes (installOpened calls it for every FIFO opened), at
// once, as Linux's opens of the two ends return
// together: none may find the other end gone, or not yet there, by the
// order the scheduler happens to run them in.
func (k *Kernel) endFIFOOpens(id fifoID) {
	for _, o := range slices.Clone(k.fifoOpens) {
		if o.id != id || o.t.state != blocked {
			continue
		}
		if ret, err, done := o.t.wait.ready(); done {
			k.wake(o.t, ret, err)
		}
	}
}

// openFIFO ends a blocking open of the FIFO id for events (unix.POLLIN
// for reading, unix.POLLOUT for writing) at host, relative to the host
// directory dir, with the guest's hostFlags; fd is the host descriptor
// its open with O_NONBLOCK gave (-1 for a writer's, which the host
// refuses while it has no reader). install makes the guest's descriptor
// of a host descriptor. The open completes once the run holds or opens
// the other end (fifoHeld), or, when nothing else of the run can run,
// once the host gives the blocking open.
func (p *Process) openFIFO(id fifoID, events int16, dir int, host string, hostFlags int, fd int, install func(fd int) (uint64, error)) (uint64, error) {
	k := p.k
	need := counterpart(events)
	hostFlags &^= unix.O_CREAT | unix.O_EXCL | unix.O_TRUNC // it opens the FIFO it found again, or nothing
	me := fifoOpen{id, events, k.cur}
	leave := func() {
		if i := slices.Index(k.fifoOpens, me); i >= 0 {
			k.fifoOpens = slices.Delete(k.fifoOpens, i, i+1)
		}
	}
	complete := func() (uint64, error) {
		leave() // no longer an open that waits, for endFIFOOpens
		if fd < 0 {
			var err error
			if fd, err = unix.Openat(dir, host, hostFlags|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err != nil {
				return 0, errnoOf(err)
			}
		}
		got := fd
		fd = -1
		return install(got)
	}
	if k.fifoHeld(id, need, true) {
		return complete()
	}
	if events == unix.POLLOUT && fd >= 0 {
		unix.Close(fd) // a host process reads it: that counts only once the run waits (below)
		fd = -1
	}
	k.fifoOpens = append(k.fifoOpens, me)
	return p.block(&wait{what: "open of FIFO " + host, deadline: noDeadline, restartable: true,
		ready: func() (uint64, error, bool) {
			if !k.fifoHeld(id, need, true) {
				return 0, nil, false
			}
			ret, err := complete()
			return ret, err, true
		},
		onHost: func() (uint64, error) {
			if fd >= 0 {
				unix.Close(fd)
				fd = -1
			}
			hfd, err := unix.Openat(dir, host, hostFlags|unix.O_CLOEXEC, 0)
			if err != nil {
				return 0, errnoOf(err)
			}
			fd = hfd
			return complete()
		},
		release: func() {
			leave()
			if fd >= 0 {
				unix.Close(fd)
			}
		}})
}
