package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// Readiness system calls: poll and ppoll on files, pipes and terminals.
// A wait that is not over at once blocks the calling thread, and is polled
// again (on the host, with no timeout) at every scheduling point until a
// descriptor is ready or its deadline in guest time passes. A process of
// one thread waiting on a descriptor another process can make ready (a
// terminal, a pipe from the shell) waits on the host instead.

// maxPollFDs bounds nfds, like RLIMIT_NOFILE.
const maxPollFDs = maxFDs

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
	return p.poll(a[0], a[1], timeout)
}

func sysPpoll(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout, err := p.readTimeout(a[2])
	if err != nil {
		return 0, err
	}
	// The signal mask a[3] is not applied during the wait.
	return p.poll(a[0], a[1], timeout)
}

// poll waits up to timeout nanoseconds (forever when negative) for the
// guest's pollfd array at addr to have an event.
func (p *Process) poll(addr, nfds uint64, timeout int64) (uint64, error) {
	if nfds > maxPollFDs {
		return 0, unix.EINVAL
	}
	raw, err := p.readMem(addr, 8*nfds)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	host := make([]unix.PollFd, 0, nfds)
	slot := make([]int, nfds) // index in host, -1 for none
	revents := make([]int16, nfds)
	waitable := false // some descriptor another process can make ready
	var held []*file  // the files polled on the host
	for i := range slot {
		slot[i] = -1
		fd := int32(le.Uint32(raw[8*i:]))
		events := int16(le.Uint16(raw[8*i+4:]))
		if fd < 0 {
			continue
		}
		f, err := p.fds.get(uint64(fd))
		if err != nil {
			revents[i] = unix.POLLNVAL
			continue
		}
		if f.virt != virtNone {
			revents[i] = events & (unix.POLLIN | unix.POLLOUT | pollRdnorm | pollWrnorm)
			continue
		}
		waitable = waitable || !f.pipe
		slot[i] = len(host)
		host = append(host, unix.PollFd{Fd: int32(f.host), Events: events})
		held = append(held, f)
	}
	count := func() uint64 {
		n := uint64(0)
		for i := range slot {
			if slot[i] >= 0 {
				revents[i] = host[slot[i]].Revents
			}
			if revents[i] != 0 {
				n++
			}
		}
		return n
	}
	put := func(n uint64) (uint64, error) {
		for i := range revents {
			le.PutUint16(raw[8*i+6:], uint16(revents[i]))
		}
		return n, p.writeMem(addr, raw)
	}
	try := func() (uint64, error, bool) {
		if _, err := unix.Poll(host, 0); err != nil && err != unix.EINTR {
			return 0, errnoOf(err), true
		}
		if n := count(); n > 0 {
			ret, err := put(n)
			return ret, err, true
		}
		return 0, nil, false
	}
	if ret, err, done := try(); done || timeout == 0 {
		if !done {
			return put(0)
		}
		return ret, err
	}
	if waitable && p.k.alone() {
		ms := -1
		if timeout > 0 {
			ms = int(min((timeout+999_999)/1e6, 1<<31-1))
		}
		if _, err := unix.Poll(host, ms); err != nil && err != unix.EINTR {
			return 0, errnoOf(err)
		}
		return put(count())
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
	}
	return p.block(&wait{what: "poll of " + itoa(nfds) + " descriptors", deadline: deadline,
		ready: try, release: release, timedOut: func() (uint64, error) { return put(0) }})
}
