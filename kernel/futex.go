package kernel

import (
	"fmt"
	"sort"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// futex: waits block the calling task until a wake, a requeue's wake or
// the deadline, in guest time; waiters are woken first come, first served.
// The Kernel keeps the waiters of each futex in a queue keyed by address
// space and address, so that a wake costs what it wakes, not a walk of
// every task.

// futexKey names a futex: an address in one address space.
type futexKey struct {
	mm   *addressSpace
	addr uint64
}

// futexQueue is the tasks waiting on one futex, first come first.
type futexQueue struct {
	waiters []*Task
}

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

func sysFutex(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	addr, op, val := a[0], a[1], uint32(a[2])
	if err := p.futexAddr(addr, op); err != nil {
		return 0, err
	}
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
		if err := p.futexAddr(a[4], op); err != nil {
			return 0, err
		}
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
		if err := p.futexAddr(a[4], op); err != nil {
			return 0, err
		}
		return p.futexWakeOp(addr, a[4], int(val), int(uint32(a[3])), uint32(a[5]))
	}
	name := futexOpNames[op&futexCmdMask]
	if name == "" {
		name = fmt.Sprintf("futex operation %d", op&futexCmdMask)
	}
	return 0, errUnsupported(name + " (priority-inheritance futexes are not emulated)")
}

// futexAddr checks a futex's address as Linux's get_futex_key does: EINVAL
// unless aligned, EFAULT past user space, and for a shared futex (no
// FUTEX_PRIVATE_FLAG), whose key is its page, EFAULT unless the page is
// mapped readable. A private futex's key is its address alone.
func (p *Process) futexAddr(addr, op uint64) error {
	switch {
	case addr%4 != 0:
		return unix.EINVAL
	case addr > p.abi.userTop-4:
		return unix.EFAULT
	case op&futexPrivateFlag == 0 && p.ioSpan(addr, 4, emu.ProtRead) < 4:
		return unix.EFAULT
	}
	return nil
}

// futexWait blocks the thread while *addr holds val, until a wake or the
// timeout: a duration, or with abs a time of CLOCK_MONOTONIC (of
// CLOCK_REALTIME with FUTEX_CLOCK_REALTIME).
func (p *Process) futexWait(addr uint64, val uint32, timeout uint64, abs bool, op uint64, bitset uint32) (uint64, error) {
	// The timeout is read first, as Linux reads it before the futex.
	var t int64
	if timeout != 0 {
		var err error
		if t, err = p.readTimespec(timeout); err != nil {
			return 0, err
		}
	}
	cur, err := p.readU32(addr)
	if err != nil {
		return 0, err
	}
	if cur != val {
		return 0, unix.EAGAIN
	}
	deadline := int64(noDeadline)
	if timeout != 0 {
		switch {
		case !abs:
			deadline = p.deadlineAfter(t)
		case op&futexClockRealtime != 0 && p.k.clk.fixed == nil:
			var ts unix.Timespec
			if err := unix.ClockGettime(unix.CLOCK_REALTIME, &ts); err != nil {
				return 0, errnoOf(err)
			}
			deadline = p.deadlineAfter(t - ts.Nano())
		default:
			deadline = t
		}
	}
	p.k.waitSeq++
	r, err := p.block(&wait{what: fmt.Sprintf("futex %#x", addr), deadline: deadline, restartable: deadline == noDeadline,
		futex: addr, bitset: bitset, seq: p.k.waitSeq})
	p.k.futexQueue(p.mm, addr).waiters = append(p.k.futexQueue(p.mm, addr).waiters, p.k.cur)
	return r, err
}

// futexQueue returns the queue of the futex at addr in mm, made if needed.
func (k *Kernel) futexQueue(mm *addressSpace, addr uint64) *futexQueue {
	key := futexKey{mm, addr}
	q := k.futexes[key]
	if q == nil {
		q = &futexQueue{}
		k.futexes[key] = q
	}
	return q
}

// futexUnqueue takes t, whose futex wait ends, off its futex's queue.
func (k *Kernel) futexUnqueue(t *Task) {
	key := futexKey{t.proc.mm, t.wait.futex}
	q := k.futexes[key]
	if q == nil {
		return
	}
	for i, w := range q.waiters {
		if w == t {
			q.waiters = append(q.waiters[:i], q.waiters[i+1:]...)
			break
		}
	}
	if len(q.waiters) == 0 {
		delete(k.futexes, key)
	}
}

// futexWaiters returns the tasks waiting on addr whose bitset meets
// bitset, first come first.
func (p *Process) futexWaiters(addr uint64, bitset uint32) []*Task {
	q := p.k.futexes[futexKey{p.mm, addr}]
	if q == nil {
		return nil
	}
	var out []*Task
	for _, t := range q.waiters {
		if t.wait.bitset&bitset != 0 {
			out = append(out, t)
		}
	}
	return out
}

// futexWake wakes up to n waiters on addr; it returns how many.
func (p *Process) futexWake(addr uint64, n int, bitset uint32) uint64 {
	woken := 0
	for _, t := range p.futexWaiters(addr, bitset) {
		if woken == n {
			break
		}
		p.k.wake(t, 0, nil)
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
		p.k.futexUnqueue(t)
		t.wait.futex, t.wait.what = addr2, fmt.Sprintf("futex %#x", addr2)
		q := p.k.futexQueue(p.mm, addr2)
		q.waiters = append(q.waiters, t)
		sort.SliceStable(q.waiters, func(i, j int) bool { return q.waiters[i].wait.seq < q.waiters[j].wait.seq })
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
