package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Readiness system calls: poll and ppoll on files, pipes and terminals.
// A wait that is not over at once blocks the calling thread, and is polled
// again (on the host, with no timeout) at every scheduling point until a
// descriptor is ready or its deadline in guest time passes. A host stream
// (a terminal, a pipe from the shell: hoststream.go) is always ready for
// what its open mode allows, its transfers waiting on the host instead. A
// process of one thread waiting on another descriptor not icount's (an
// epoll instance's) waits on the host.

// Poll events without a name in x/sys/unix (asm-generic/poll.h).
const (
	pollRdnorm = 0x40
	pollWrnorm = 0x100 // on x86-64 and arm64 alike
)

func sysPoll(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout := int64(int32(a[2]))
	if timeout >= 0 {
		timeout *= 1e6
	}
	return p.poll(a[0], a[1], timeout, nil)
}

func sysPpoll(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout, err := p.readTimeout(a[2])
	if err != nil {
		return 0, err
	}
	if err := t.useWaitMask(a[3], a[4]); err != nil {
		return 0, err
	}
	end := p.waitEnd(t, a[2], timeout, false)
	return p.poll(a[0], a[1], timeout, end)
}

// poll waits up to timeout nanoseconds (forever when negative) for the
// guest's pollfd array at addr to have an event; end, if not nil, runs as
// the call ends (waitReady).
func (p *Process) poll(addr, nfds uint64, timeout int64, end func(interrupted bool)) (uint64, error) {
	if end == nil {
		end = func(bool) {}
	}
	if nfds > uint64(p.fds.max()) { // RLIMIT_NOFILE
		end(false)
		return 0, unix.EINVAL
	}
	raw, err := p.readMem(addr, 8*nfds)
	if err != nil {
		end(false)
		return 0, err
	}
	le := binary.LittleEndian
	reqs := make([]pollReq, nfds)
	for i := range reqs {
		reqs[i] = pollReq{fd: int32(le.Uint32(raw[8*i:])), events: int16(le.Uint16(raw[8*i+4:]))}
	}
	count := func(revents []int16) uint64 {
		n := uint64(0)
		for _, r := range revents {
			if r != 0 {
				n++
			}
		}
		return n
	}
	return p.waitReady(reqs, timeout, "poll of "+itoa(nfds)+" descriptors", count, func(revents []int16, n uint64) (uint64, error) {
		for i, r := range revents {
			le.PutUint16(raw[8*i+6:], uint16(r))
		}
		return n, p.writeMem(addr, raw)
	}, end)
}

// pollReq is one descriptor to poll and the events asked of it; a
// negative fd is skipped.
type pollReq struct {
	fd     int32
	events int16
}

// waitReady polls the descriptors of reqs (POLLNVAL for one not open)
// until count finds some ready or timeout nanoseconds pass (forever when
// negative), then finish gives the call's result from their revents and
// count's answer (0 at the timeout). A signal the thread's mask lets
// through (pselect6's and ppoll's may) ends a wait with EINTR. end runs
// once as the call ends, told whether a signal interrupted it.
func (p *Process) waitReady(reqs []pollReq, timeout int64, what string, count func([]int16) uint64, finish func([]int16, uint64) (uint64, error), end func(interrupted bool)) (uint64, error) {
	t := p.k.cur
	host := make([]unix.PollFd, 0, len(reqs))
	slot := make([]int, len(reqs)) // index in host, -1 for none
	revents := make([]int16, len(reqs))
	waitable := false // some descriptor another process can make ready
	var held []*file  // the files polled on the host
	for i, r := range reqs {
		slot[i] = -1
		if r.fd < 0 {
			continue
		}
		f, err := p.fds.get(uint64(r.fd))
		if err != nil {
			revents[i] = unix.POLLNVAL
			continue
		}
		if f.virt != virtNone {
			revents[i] = r.events & (unix.POLLIN | unix.POLLOUT | pollRdnorm | pollWrnorm)
			continue
		}
		runPipe := p.k.runPipe(f)
		if f.stream != 0 && !runPipe {
			revents[i] = r.events & f.stream // ready, whatever its host side does
			continue
		}
		if f.epoll && f.streamReady() {
			revents[i] = r.events & (unix.POLLIN | pollRdnorm)
			continue
		}
		waitable = waitable || !f.pipe && !runPipe
		slot[i] = len(host)
		host = append(host, unix.PollFd{Fd: int32(f.host), Events: r.events})
		held = append(held, f)
	}
	gather := func() uint64 {
		for i := range slot {
			if slot[i] >= 0 {
				revents[i] = host[slot[i]].Revents
			}
		}
		return count(revents)
	}
	try := func() (uint64, error, bool) {
		p.k.expireTimerfds()
		p.syncSignalfds(t)
		if _, err := unix.Poll(host, 0); err != nil && err != unix.EINTR {
			return 0, errnoOf(err), true
		}
		if n := gather(); n > 0 {
			ret, err := finish(revents, n)
			return ret, err, true
		}
		return 0, nil, false
	}
	if ret, err, done := try(); done || timeout == 0 {
		if !done {
			ret, err = finish(revents, 0)
		}
		end(err == unix.EINTR)
		if err == unix.EINTR {
			p.k.switching = true // delivered as the call returns
		}
		return ret, err
	}
	if p.deliverable(t) != 0 {
		end(true)
		p.k.switching = true // delivered as the call returns
		return 0, unix.EINTR
	}
	if waitable && p.k.alone() {
		defer end(false)
		ms := -1
		if timeout > 0 {
			ms = int(min((timeout+999_999)/1e6, 1<<31-1))
		}
		if _, err := unix.Poll(host, ms); err != nil && err != unix.EINTR {
			return 0, errnoOf(err)
		}
		return finish(revents, gather())
	}
	deadline := int64(noDeadline)
	if timeout > 0 {
		deadline = p.deadlineAfter(timeout)
	}
	for _, f := range held {
		f.hold()
	}
	release := func() {
		for _, f := range held {
			f.release()
		}
		eintr := int64(unix.EINTR)
		end(t.result == uint64(-eintr))
	}
	return p.block(&wait{what: what, deadline: deadline,
		ready: try, release: release, timedOut: func() (uint64, error) { return finish(revents, 0) }})
}
