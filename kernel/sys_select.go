package kernel

import (
	"encoding/binary"
	"math"
	"math/bits"

	"golang.org/x/sys/unix"
)

// select and pselect6, on the poll emulation (sys_poll.go): each
// descriptor of the three sets is polled for what its set asks, and the
// sets come back holding the ready ones. nfds is cut to the size of the
// descriptor table as Linux's has grown (fdTable.size): bits past it are
// not looked at; a bit of a descriptor not open fails with EBADF. The
// time left is written back to the timeout, as Linux does, and pselect6's
// signal mask holds while it waits.

// Poll events that make a descriptor ready in each set (fs/select.c).
const (
	pollRdband = 0x80
	pollWrband = 0x200

	pollInSet  = unix.POLLIN | pollRdnorm | pollRdband | unix.POLLHUP | unix.POLLERR
	pollOutSet = unix.POLLOUT | pollWrnorm | pollWrband | unix.POLLERR
	pollExSet  = unix.POLLPRI
)

func sysSelect(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout := int64(-1)
	if a[4] != 0 {
		b, err := p.readMem(a[4], 16)
		if err != nil {
			return 0, err
		}
		// The microseconds may pass a second: they are carried over.
		sec, usec := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
		sec, usec = sec+usec/1e6, usec%1e6
		if sec < 0 || usec < 0 {
			return 0, unix.EINVAL
		}
		timeout = math.MaxInt64
		if sec < math.MaxInt64/int64(1e9)-1 {
			timeout = sec*1e9 + usec*1e3
		}
	}
	return p.selectFDs(int32(a[0]), [3]uint64{a[1], a[2], a[3]}, timeout, p.waitEnd(t, a[4], timeout, true))
}

func sysPselect6(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	timeout, err := p.readTimeout(a[4])
	if err != nil {
		return 0, err
	}
	if a[5] != 0 {
		// struct { const sigset_t *ss; size_t ss_len; }
		b, err := p.readMem(a[5], 16)
		if err != nil {
			return 0, err
		}
		if err := t.useWaitMask(binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])); err != nil {
			return 0, err
		}
	}
	return p.selectFDs(int32(a[0]), [3]uint64{a[1], a[2], a[3]}, timeout, p.waitEnd(t, a[4], timeout, false))
}

// waitEnd is what ends a pselect6, ppoll or select call: the mask the
// call set goes (setWaitMask), and the time left of a timeout (of
// timeout nanoseconds, at addr, a struct timeval when usec) is written
// back, unless it was none or zero. A timeout that cannot be written is
// left as it was, as Linux leaves it.
func (p *Process) waitEnd(t *Task, addr uint64, timeout int64, usec bool) func(interrupted bool) {
	deadline := p.deadlineAfter(max(timeout, 0))
	return func(interrupted bool) {
		t.endWaitMask(interrupted)
		if addr != 0 && timeout > 0 {
			p.writeMem(addr, timespec(max(deadline-p.now(), 0), usec))
		}
	}
}

// selectFDs waits for the descriptors of the fd_sets at sets (read,
// write, except; 0 for none) below nfds. Nothing ready while a signal
// the mask lets through is pending is EINTR, even at once.
func (p *Process) selectFDs(nfds int32, sets [3]uint64, timeout int64, end func(bool)) (uint64, error) {
	t := p.k.cur
	fail := func(err error) (uint64, error) {
		end(false)
		return 0, err
	}
	if nfds < 0 {
		return fail(unix.EINVAL)
	}
	n := min(int(nfds), p.fds.size)
	words := (n + 63) / 64
	var in [3][]uint64
	for s, addr := range sets {
		in[s] = make([]uint64, words)
		if addr == 0 {
			continue
		}
		b, err := p.readMem(addr, uint64(8*words))
		if err != nil {
			return fail(err)
		}
		for w := range in[s] {
			in[s][w] = binary.LittleEndian.Uint64(b[8*w:])
		}
	}
	var reqs []pollReq
	for w := 0; w < words; w++ {
		for any := in[0][w] | in[1][w] | in[2][w]; any != 0; any &= any - 1 {
			fd := w*64 + bits.TrailingZeros64(any)
			if fd >= n {
				break
			}
			if _, err := p.fds.get(uint64(fd)); err != nil {
				return fail(unix.EBADF)
			}
			var events int16
			for s, ev := range [3]int16{unix.POLLIN | pollRdnorm, unix.POLLOUT | pollWrnorm, unix.POLLPRI} {
				if in[s][w]&(1<<(fd%64)) != 0 {
					events |= ev
				}
			}
			reqs = append(reqs, pollReq{fd: int32(fd), events: events})
		}
	}
	var out [3][]uint64
	count := func(revents []int16) uint64 {
		total := uint64(0)
		for s, ready := range [3]int16{pollInSet, pollOutSet, pollExSet} {
			out[s] = make([]uint64, words)
			for i, r := range reqs {
				w, bit := int(r.fd)/64, uint64(1)<<(r.fd%64)
				if in[s][w]&bit != 0 && revents[i]&ready != 0 {
					out[s][w] |= bit
					total++
				}
			}
		}
		return total
	}
	finish := func(revents []int16, total uint64) (uint64, error) {
		if total == 0 && p.deliverable(t) != 0 {
			return 0, unix.EINTR // a signal the mask lets through, at the timeout
		}
		count(revents)
		for s, addr := range sets {
			if addr == 0 {
				continue
			}
			b := make([]byte, 8*words)
			for w, v := range out[s] {
				binary.LittleEndian.PutUint64(b[8*w:], v)
			}
			if err := p.writeMem(addr, b); err != nil {
				return 0, err
			}
		}
		return total, nil
	}
	return p.waitReady(reqs, timeout, "select of "+itoa(uint64(len(reqs)))+" descriptors", count, finish, end)
}
