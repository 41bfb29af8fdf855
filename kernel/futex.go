package kernel

import (
	"fmt"
	"sort"

	"golang.org/x/sys/unix"
)

// futex: waits block the calling thread until a wake, a requeue's wake or
// the deadline, in guest time; waiters are woken first come, first served.

// futex operations and flags (include/uapi/linux/futex.h).
const (
	futexWait          = 0
	futexWake          = 1
	futexRequeue       = 3
	futexCmpRequeue    = 4
	futexWakeOp        = 5
	futexWaitBitset    = 9
	futexWakeBitset    = 10
	futexCmdMask       = 0x7f
	futexPrivateFlag   = 128
	futexClockRealtime = 256
	futexBitsetAny     = 0xffffffff
)

var futexOpNames = map[uint64]string{2: "FUTEX_FD", 6: "FUTEX_LOCK_PI", 7: "FUTEX_UNLOCK_PI", 8: "FUTEX_TRYLOCK_PI",
	11: "FUTEX_WAIT_REQUEUE_PI", 12: "FUTEX_CMP_REQUEUE_PI", 13: "FUTEX_LOCK_PI2"}

func sysFutex(p *Process, a [6]uint64) (uint64, error) {
	addr, op, val := a[0], a[1], uint32(a[2])
	switch op & futexCmdMask {
	case futexWait:
		return p.futexWait(addr, val, a[3], false, op, futexBitsetAny)
	case futexWaitBitset:
		if uint32(a[5]) == 0 {
			return 0, unix.EINVAL
		}
		return p.futexWait(addr, val, a[3], true, op, uint32(a[5]))
	case futexWake:
		return p.futexWake(addr, int(val), futexBitsetAny), nil
	case futexWakeBitset:
		if uint32(a[5]) == 0 {
			return 0, unix.EINVAL
		}
		return p.futexWake(addr, int(val), uint32(a[5])), nil
	case futexRequeue, futexCmpRequeue:
		if op&futexCmdMask == futexCmpRequeue {
			cur, err := p.readU32(addr)
			if err != nil {
				return 0, err
			}
			if cur != uint32(a[5]) {
				return 0, unix.EAGAIN
			}
		}
		return p.futexRequeue(addr, a[4], int(val), int(uint32(a[3]))), nil
	case futexWakeOp:
		return p.futexWakeOp(addr, a[4], int(val), int(uint32(a[3])), uint32(a[5]))
	}
	name := futexOpNames[op&futexCmdMask]
	if name == "" {
		name = fmt.Sprintf("futex operation %d", op&futexCmdMask)
	}
	return 0, errUnsupported(name + " (priority-inheritance futexes are not emulated)")
}

// futexWait blocks the thread while *addr holds val, until a wake or the
// timeout: a duration, or with abs a time of CLOCK_MONOTONIC (of
// CLOCK_REALTIME with FUTEX_CLOCK_REALTIME).
func (p *Process) futexWait(addr uint64, val uint32, timeout uint64, abs bool, op uint64, bitset uint32) (uint64, error) {
	cur, err := p.readU32(addr)
	if err != nil {
		return 0, err
	}
	if cur != val {
		return 0, unix.EAGAIN
	}
	deadline := int64(noDeadline)
	if timeout != 0 {
		t, err := p.readTimespec(timeout)
		if err != nil {
			return 0, err
		}
		switch {
		case !abs:
			deadline = p.deadlineAfter(t)
		case op&futexClockRealtime != 0 && p.clk.fixed == nil:
			var ts unix.Timespec
			if err := unix.ClockGettime(unix.CLOCK_REALTIME, &ts); err != nil {
				return 0, errnoOf(err)
			}
			deadline = p.deadlineAfter(t - ts.Nano())
		default:
			deadline = t
		}
	}
	p.waitSeq++
	return p.block(&wait{what: fmt.Sprintf("futex %#x", addr), deadline: deadline, restartable: deadline == noDeadline,
		futex: addr, bitset: bitset, seq: p.waitSeq})
}

// futexWaiters returns the threads waiting on addr whose bitset meets
// bitset, first come first.
func (p *Process) futexWaiters(addr uint64, bitset uint32) []*thread {
	var out []*thread
	for _, t := range p.threads {
		if t.state == blocked && t.wait.futex == addr && t.wait.bitset&bitset != 0 && t.wait.seq != 0 {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].wait.seq < out[j].wait.seq })
	return out
}

// futexWake wakes up to n waiters on addr; it returns how many.
func (p *Process) futexWake(addr uint64, n int, bitset uint32) uint64 {
	woken := 0
	for _, t := range p.futexWaiters(addr, bitset) {
		if woken == n {
			break
		}
		p.wake(t, 0, nil)
		woken++
	}
	return uint64(woken)
}

// futexRequeue wakes up to n waiters on addr and moves up to m others to
// wait on addr2; it returns how many it woke and moved.
func (p *Process) futexRequeue(addr, addr2 uint64, n, m int) uint64 {
	woken := p.futexWake(addr, n, futexBitsetAny)
	moved := 0
	for _, t := range p.futexWaiters(addr, futexBitsetAny) {
		if moved == m {
			break
		}
		t.wait.futex, t.wait.what = addr2, fmt.Sprintf("futex %#x", addr2)
		moved++
	}
	return woken + uint64(moved)
}

// futexWakeOp changes *addr2 by the operation encoded in code, wakes up to
// n waiters on addr and, if the old value of *addr2 passes the encoded
// comparison, up to m waiters on addr2.
func (p *Process) futexWakeOp(addr, addr2 uint64, n, m int, code uint32) (uint64, error) {
	op, cmp := (code>>28)&7, (code>>24)&15
	oparg, cmparg := (code>>12)&0xfff, code&0xfff
	if code&(8<<28) != 0 { // FUTEX_OP_OPARG_SHIFT
		oparg = 1 << (oparg & 31)
	}
	old, err := p.readU32(addr2)
	if err != nil {
		return 0, err
	}
	var v uint32
	switch op {
	case 0:
		v = oparg
	case 1:
		v = old + oparg
	case 2:
		v = old | oparg
	case 3:
		v = old &^ oparg
	case 4:
		v = old ^ oparg
	default:
		return 0, unix.ENOSYS
	}
	if err := p.writeU32(addr2, v); err != nil {
		return 0, err
	}
	woken := p.futexWake(addr, n, futexBitsetAny)
	var pass bool
	switch o, c := int32(old), int32(signExtend12(cmparg)); cmp {
	case 0:
		pass = o == c
	case 1:
		pass = o != c
	case 2:
		pass = o < c
	case 3:
		pass = o <= c
	case 4:
		pass = o > c
	case 5:
		pass = o >= c
	default:
		return 0, unix.ENOSYS
	}
	if pass {
		woken += p.futexWake(addr2, m, futexBitsetAny)
	}
	return woken, nil
}

// signExtend12 widens the 12-bit field of a FUTEX_WAKE_OP code.
func signExtend12(v uint32) uint32 { return uint32(int32(v<<20) >> 20) }
