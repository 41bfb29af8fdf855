package kernel

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Memory locks and msync. icount's guest memory is never paged out, so a
// lock changes nothing but what the calls report: the locked pages are
// counted against RLIMIT_MEMLOCK (8 MiB, Linux's default for an
// unprivileged process) as Linux counts them, and a range with a hole is
// ENOMEM. Locks are the address space's: a fork's child has none, exec
// and munmap drop them (a locked range mremap moves is no longer counted).
// msync has nothing to write (icount has no writable shared file
// mappings): it checks its arguments and the range.

// memlockLimit is RLIMIT_MEMLOCK.
const memlockLimit = 8 << 20

// mlock2 and mlockall flags.
const (
	mlockOnfault = 1
	mclCurrent   = 1
	mclFuture    = 2
	mclOnfault   = 4
)

// msync flags.
const (
	msAsync      = 1
	msInvalidate = 2
	msSync       = 4
)

// lockedRange is a range of locked pages.
type lockedRange struct{ start, end uint64 }

func (r lockedRange) bounds() (uint64, uint64) { return r.start, r.end }

func (r lockedRange) clip(start, end uint64) lockedRange { return lockedRange{start, end} }

// pageRange is the whole pages of [addr, addr+length), as mlock takes
// them: the start and the length, which may wrap past the address space.
func pageRange(addr, length uint64) (uint64, uint64) {
	return pageDown(addr), pageUp(length + addr%emu.PageSize)
}

// lock locks the pages of [start, start+length): within RLIMIT_MEMLOCK
// (ENOMEM past it), then EINVAL if they wrap, up to the first hole
// (ENOMEM, the pages before it locked).
func (m *addressSpace) lock(start, length uint64) error {
	locked := m.locked.bytesIn(0, ^uint64(0))
	end := start + length
	if length > memlockLimit || locked+length-m.locked.bytesIn(start, max(end, start)) > memlockLimit {
		return unix.ENOMEM
	}
	if end < start {
		return unix.EINVAL
	}
	at := m.mappedFrom(start, end)
	if at > start {
		m.locked.cut(start, at)
		m.locked.insert(lockedRange{start, at})
	}
	if at < end {
		return unix.ENOMEM
	}
	return nil
}

// unlock unlocks the pages of [start, start+length): EINVAL if they wrap,
// ENOMEM if they have a hole, the pages before it unlocked.
func (m *addressSpace) unlock(start, length uint64) error {
	end := start + length
	if end < start {
		return unix.EINVAL
	}
	at := m.mappedFrom(start, end)
	m.locked.cut(start, at)
	if at < end {
		return unix.ENOMEM
	}
	return nil
}

// mappedFrom is where the pages mapped from start on stop, at end or at
// the first hole before it.
func (m *addressSpace) mappedFrom(start, end uint64) uint64 {
	at := start
	for v := range m.vmas.overlapping(start, end) {
		if v.start > at {
			break
		}
		at = min(v.end, end)
	}
	return at
}

func sysMlock(t *Task, a [6]uint64) (uint64, error) {
	return mlock(t, a[0], a[1], 0)
}

func sysMlock2(t *Task, a [6]uint64) (uint64, error) {
	return mlock(t, a[0], a[1], a[2])
}

func mlock(t *Task, addr, length, flags uint64) (uint64, error) {
	if flags&^mlockOnfault != 0 {
		return 0, unix.EINVAL
	}
	return 0, t.proc.mm.lock(pageRange(addr, length))
}

func sysMunlock(t *Task, a [6]uint64) (uint64, error) {
	return 0, t.proc.mm.unlock(pageRange(a[0], a[1]))
}

// sysMlockall locks every page mapped (MCL_CURRENT) if they fit in
// RLIMIT_MEMLOCK; MCL_FUTURE, which would lock every later mapping and
// count it against the limit, stops the run.
func sysMlockall(t *Task, a [6]uint64) (uint64, error) {
	m := t.proc.mm
	flags := a[0]
	if flags == 0 || flags&^(mclCurrent|mclFuture|mclOnfault) != 0 || flags == mclOnfault {
		return 0, unix.EINVAL
	}
	if flags&mclFuture != 0 {
		return 0, errUnsupported("mlockall(MCL_FUTURE)")
	}
	if m.vmas.bytesIn(0, ^uint64(0)) > memlockLimit {
		return 0, unix.ENOMEM
	}
	for v := range m.vmas.all() {
		m.locked.cut(v.start, v.end)
		m.locked.insert(lockedRange{v.start, v.end})
	}
	return 0, nil
}

func sysMunlockall(t *Task, a [6]uint64) (uint64, error) {
	t.proc.mm.locked = spans[lockedRange]{}
	return 0, nil
}

// sysMsync checks msync's flags, alignment and range as Linux does: a hole
// is ENOMEM (at once for MS_ASYNC alone), MS_INVALIDATE of locked pages
// EBUSY.
func sysMsync(t *Task, a [6]uint64) (uint64, error) {
	m := t.proc.mm
	addr, flags := a[0], a[2]
	switch {
	case flags&^(msAsync|msInvalidate|msSync) != 0, addr%emu.PageSize != 0, flags&msAsync != 0 && flags&msSync != 0:
		return 0, unix.EINVAL
	}
	end := pageUp(addr + a[1])
	if addr+a[1] < addr || end < addr {
		return 0, unix.ENOMEM
	}
	var unmapped error
	at := addr
	for v := range m.vmas.overlapping(addr, end) {
		if v.start > at {
			if flags == msAsync {
				return 0, unix.ENOMEM
			}
			unmapped = unix.ENOMEM
		}
		at = max(at, v.start)
		if flags&msInvalidate != 0 && m.locked.overlaps(at, min(v.end, end)) {
			return 0, unix.EBUSY
		}
		at = min(v.end, end)
	}
	if at < end {
		return 0, unix.ENOMEM
	}
	return 0, unmapped
}
