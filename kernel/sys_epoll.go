package kernel

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// epoll: an epoll instance is a host one, watching the host descriptors of
// the guest's files, so that level- and edge-triggered readiness and
// EPOLLONESHOT behave as Linux's. Only icount's own descriptors change
// readiness while the guest runs (its pipes and eventfds, which the
// guest's own system calls fill and drain), so what a wait reports is the
// same on every run. A wait that is not over at once blocks the calling
// thread; it is polled again at every scheduling point until an event
// comes or its deadline in guest time passes.
//
// A host stream (a terminal, a pipe from the shell: hoststream.go) is
// watched by icount, not the host instance: always ready for what its
// open mode allows, level-triggered at every wait, edge-triggered again
// after each of its transfers, EPOLLONESHOT once until EPOLL_CTL_MOD
// re-arms it; never EPOLLHUP or EPOLLERR; reported after the host
// instance's events.
// A FIFO with an end in the run when it is added is the host instance's.
//
// Limits: a descriptor is registered by its host descriptor, so two guest
// descriptors of one file (dup) cannot both be in one instance (EEXIST).

// epoll_ctl operations and epoll_create1's flag (include/uapi/linux/eventpoll.h).
const (
	epollCtlAdd  = 1
	epollCtlDel  = 2
	epollCtlMod  = 3
	epollCloexec = 0x80000 // O_CLOEXEC, on x86-64 and arm64 alike
)

// maxEpollEvents bounds the events one wait reports; more stay for the next.
const maxEpollEvents = 1024

// epollEventSize is the size of struct epoll_event: packed on x86-64
// (events, then the 64-bit data at offset 4), naturally aligned on arm64
// (data at offset 8).
func (p *Process) epollEventSize() uint64 {
	if p.abi.arch == emu.X86_64 {
		return 12
	}
	return 16
}

func sysEpollCreate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if int32(a[0]) <= 0 {
		return 0, unix.EINVAL
	}
	return p.epollCreate(0)
}

func sysEpollCreate1(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[0]&^epollCloexec != 0 {
		return 0, unix.EINVAL
	}
	return p.epollCreate(a[0])
}

// epollCreate makes an epoll instance, close-on-exec when flags has
// EPOLL_CLOEXEC.
func (p *Process) epollCreate(flags uint64) (uint64, error) {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return 0, errnoOf(err)
	}
	gfd, err := p.fds.installFlags(&file{host: fd, path: "anon_inode:[eventpoll]", epoll: true}, 0, flags&epollCloexec)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	return uint64(gfd), nil
}

func sysEpollCtl(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	ep, f, err := p.fds.get2(a[0], a[2])
	if err != nil {
		return 0, err
	}
	if !ep.epoll || f == ep {
		return 0, unix.EINVAL
	}
	op := int(a[1])
	var ev unix.EpollEvent
	switch op {
	case epollCtlAdd, epollCtlMod:
		raw, err := p.readMem(a[3], p.epollEventSize())
		if err != nil {
			return 0, err
		}
		le := binary.LittleEndian
		data := le.Uint64(raw[p.epollEventSize()-8:])
		// The host keeps the guest's 64 bits of data as they are.
		ev = unix.EpollEvent{Events: le.Uint32(raw), Fd: int32(uint32(data)), Pad: int32(uint32(data >> 32))}
	case epollCtlDel:
	default:
		return 0, unix.EINVAL
	}
	if f.stream != 0 && (ep.watchOf(f) >= 0 || !p.k.runPipe(f)) {
		return 0, ep.watchStream(op, f, ev.Events, uint64(uint32(ev.Fd))|uint64(uint32(ev.Pad))<<32)
	}
	return 0, errnoOrNil(unix.EpollCtl(ep.host, op, f.host, &ev))
}

// epoll flags of a watch (include/uapi/linux/eventpoll.h).
const (
	epollExclusive = 1 << 28
	epollOneshot   = 1 << 30
	epollET        = 1 << 31
)

// streamWatch is an epoll instance's watch of a host stream.
type streamWatch struct {
	f      *file
	events uint32
	data   uint64
	// seen is 1 + the stream's transfers when an edge-triggered watch
	// last reported it (0: not since it was set).
	seen     uint64
	disarmed bool // an EPOLLONESHOT watch that reported
}

// watchOf is the index of the instance ep's watch of the host stream f,
// -1 for none.
func (ep *file) watchOf(f *file) int {
	return slices.IndexFunc(ep.watches, func(w *streamWatch) bool { return w.f == f })
}

// watchStream adds, changes or removes (op) the instance ep's watch of
// the host stream f, as epoll_ctl does a host instance's.
func (ep *file) watchStream(op int, f *file, events uint32, data uint64) error {
	i := ep.watchOf(f)
	switch {
	case op == epollCtlAdd && i >= 0:
		return unix.EEXIST
	case op != epollCtlAdd && i < 0:
		return unix.ENOENT
	case op == epollCtlMod && (events|ep.watches[i].events)&epollExclusive != 0:
		return unix.EINVAL
	case op == epollCtlAdd:
		ep.watches = append(ep.watches, &streamWatch{f: f, events: events, data: data})
	case op == epollCtlMod:
		*ep.watches[i] = streamWatch{f: f, events: events, data: data}
	default:
		ep.watches = slices.Delete(ep.watches, i, i+1)
	}
	return nil
}

// takeStreamEvents takes up to max events of ep's watches of host streams,
// in the order they were added; those of a stream no longer open go.
// A level-triggered watch that reports moves to the end, as Linux's
// ready list rotates, so that no watch starves another.
func (ep *file) takeStreamEvents(max int) []unix.EpollEvent {
	ep.watches = slices.DeleteFunc(ep.watches, func(w *streamWatch) bool { return w.f.refs == 0 })
	var evs []unix.EpollEvent
	var reported []*streamWatch
	for _, w := range ep.watches {
		if len(evs) == max {
			break
		}
		if !w.due() {
			continue
		}
		ready := uint32(w.f.stream) & w.events
		w.seen, w.disarmed = w.f.transfers+1, w.events&epollOneshot != 0
		evs = append(evs, unix.EpollEvent{Events: ready, Fd: int32(uint32(w.data)), Pad: int32(uint32(w.data >> 32))})
		if w.events&(epollET|epollOneshot) == 0 {
			reported = append(reported, w)
		}
	}
	if len(reported) > 0 {
		ep.watches = append(slices.DeleteFunc(ep.watches, func(w *streamWatch) bool { return slices.Contains(reported, w) }), reported...)
	}
	return evs
}

// streamReady reports whether a wait on ep would report a host stream's
// event (poll of an epoll instance), without taking it.
func (ep *file) streamReady() bool {
	return slices.ContainsFunc(ep.watches, (*streamWatch).due)
}

// due reports whether a wait would report the watch's event: its stream
// open and ready for an event it asks, the watch armed, and an
// edge-triggered one not reported since the stream's last transfer.
func (w *streamWatch) due() bool {
	return w.f.refs > 0 && uint32(w.f.stream)&w.events != 0 && !w.disarmed &&
		(w.events&epollET == 0 || w.seen != w.f.transfers+1)
}

// sysEpollWait is epoll_wait (x86-64 only): a timeout in milliseconds,
// negative for none.
func sysEpollWait(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.epollWait(a[0], a[1], a[2], msTimeout(a[3]))
}

// sysEpollPwait is epoll_pwait: the signal mask a[4] holds during the wait
// (setWaitMask).
func sysEpollPwait(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if err := t.useWaitMask(a[4], a[5]); err != nil {
		return 0, err
	}
	return p.epollWait(a[0], a[1], a[2], msTimeout(a[3]))
}

// sysEpollPwait2 is epoll_pwait2: a timespec timeout, none when NULL.
func sysEpollPwait2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout, err := p.readTimeout(a[3])
	if err != nil {
		return 0, err
	}
	if err := t.useWaitMask(a[4], a[5]); err != nil {
		return 0, err
	}
	return p.epollWait(a[0], a[1], a[2], timeout)
}

// msTimeout converts a timeout in milliseconds (an int) to nanoseconds,
// negative for none.
func msTimeout(v uint64) int64 {
	ms := int64(int32(v))
	if ms < 0 {
		return -1
	}
	return ms * 1e6
}

// epollWait waits up to timeout nanoseconds (forever when negative) for
// events on the instance epfd, and writes up to maxEvents of them at addr.
// A signal the thread's mask lets through (epoll_pwait's may) ends a wait
// with EINTR; the mask epoll_pwait set goes as the call ends, unless a
// signal interrupted it (endWaitMask).
func (p *Process) epollWait(epfd, addr, maxEvents uint64, timeout int64) (uint64, error) {
	t := p.k.cur
	ret, err := p.epollWaitFor(t, epfd, addr, maxEvents, timeout)
	if err != errBlocked {
		t.endWaitMask(err == unix.EINTR)
	}
	return ret, err
}

func (p *Process) epollWaitFor(t *Task, epfd, addr, maxEvents uint64, timeout int64) (uint64, error) {
	ep, err := p.fds.get(epfd)
	if err != nil {
		return 0, err
	}
	size := p.epollEventSize()
	if !ep.epoll || int32(maxEvents) <= 0 || uint64(int32(maxEvents)) > (1<<31-1)/size {
		return 0, unix.EINVAL
	}
	events := make([]unix.EpollEvent, min(uint64(int32(maxEvents)), maxEpollEvents))
	try := func() (uint64, error, bool) {
		p.k.expireTimerfds()
		p.syncSignalfds(t)
		n, err := unix.EpollWait(ep.host, events, 0)
		if err == unix.EINTR {
			n, err = 0, nil
		}
		if err != nil {
			return 0, errnoOf(err), true
		}
		n += copy(events[n:], ep.takeStreamEvents(len(events)-n))
		if n == 0 {
			return 0, nil, false
		}
		raw := make([]byte, uint64(n)*size)
		le := binary.LittleEndian
		for i, ev := range events[:n] {
			rec := raw[uint64(i)*size:][:size]
			le.PutUint32(rec, ev.Events)
			le.PutUint64(rec[size-8:], uint64(uint32(ev.Fd))|uint64(uint32(ev.Pad))<<32)
		}
		return uint64(n), p.writeMem(addr, raw), true
	}
	if ret, err, done := try(); done || timeout == 0 {
		return ret, err
	}
	if p.deliverable(t) != 0 {
		p.k.switching = true // delivered as the call returns
		return 0, unix.EINTR
	}
	deadline := int64(noDeadline)
	if timeout > 0 {
		deadline = p.deadlineAfter(timeout)
	}
	ep.hold()
	eintr := int64(unix.EINTR)
	return p.block(&wait{what: fmt.Sprintf("events of epoll instance fd %d", uint32(epfd)), deadline: deadline,
		ready: try, release: func() {
			ep.release()
			t.endWaitMask(t.result == uint64(-eintr))
		},
		timedOut: func() (uint64, error) { return 0, nil }})
}
