package kernel

import (
	"encoding/binary"
	"math"
	"slices"

	"golang.org/x/sys/unix"
)

// File locks between the processes icount runs, kept as Linux keeps them
// (fs/locks.c): POSIX record locks (fcntl F_SETLK, F_SETLKW, F_GETLK) are
// owned by a process's descriptor table, end when it closes any
// descriptor of the file or exits, and are not inherited by fork;
// open-file-description locks (F_OFD_*) lock byte ranges too, but are
// owned by the open file description (shared by dup and fork) and end
// with its last descriptor; flock(2) locks whole files, owned by the open
// file description, and meets only other flock locks. The Kernel's
// lockTable keys them by the host file's identity (fileID). A request
// that must wait blocks its task until a scheduling point finds it can be
// taken, queued as Linux queues it (behind an earlier waiter on the same
// lock that it conflicts with); a POSIX request whose wait would close a cycle of
// owners waiting on each other fails with EDEADLK, found as Linux finds
// it. Locks held by host processes outside icount are not seen, nor do
// they see these.

// fcntl lock commands (both guest arches number them alike).
const (
	fGetlk     = 5
	fSetlk     = 6
	fSetlkw    = 7
	fOFDGetlk  = 36
	fOFDSetlk  = 37
	fOFDSetlkw = 38
)

// Lock types, struct flock's l_type.
const (
	fRdlck = 0
	fWrlck = 1
	fUnlck = 2
)

// flock(2) operations.
const (
	lockSH   = 1
	lockEX   = 2
	lockNB   = 4
	lockUN   = 8
	lockMand = 32 // LOCK_MAND: ignored by Linux since 5.15
)

// flockSize is the size of struct flock on both guest arches: l_type and
// l_whence (2 bytes each), l_start and l_len (8 bytes each, from offset
// 8), l_pid (4 bytes, at 24) and padding.
const flockSize = 32

// offsetMax is the end of a lock that reaches the end of the file however
// far it grows (l_len 0).
const offsetMax = math.MaxInt64

// maxDeadlockSteps bounds the chain of waits the deadlock search follows,
// as Linux's MAX_DEADLK_ITERATIONS does.
const maxDeadlockSteps = 10

// lockOwner is who holds a lock: a process's descriptor table (POSIX
// locks: Linux's owner is the files_struct) or an open file description
// (OFD and flock locks).
type lockOwner any

// rangeLock is a lock on bytes start to end of a file (end offsetMax: to
// its end), of type fRdlck or fWrlck (fUnlck in a request to unlock).
type rangeLock struct {
	owner      lockOwner
	ofd        bool // owned by an open file description (OFD and flock locks)
	pid        int  // the guest pid that took it, F_GETLK's l_pid
	typ        int16
	start, end int64
}

// conflicts reports whether a and b cannot be held at once: other
// owners, overlapping bytes, and one of them a write lock.
func (a *rangeLock) conflicts(b *rangeLock) bool {
	return a.owner != b.owner && a.start <= b.end && b.start <= a.end && (a.typ == fWrlck || b.typ == fWrlck)
}

// fileLocks are the locks on one file.
type fileLocks struct {
	// ranges are the POSIX and OFD locks in Linux's order (F_GETLK
	// reports the first conflict): each owner's together and by start,
	// owners in the order they came to hold locks there.
	ranges []rangeLock
	flocks []rangeLock // flock(2) locks, whole-file ranges
}

// list is ranges, or flocks for flock(2) locks.
func (fl *fileLocks) list(flock bool) *[]rangeLock {
	if flock {
		return &fl.flocks
	}
	return &fl.ranges
}

// lockRequest is a lock a task waits to take. As in Linux, a waiting
// request waits on a lock held (blocker) or, when it conflicts with an
// earlier request waiting on that lock, behind that request (under): it
// is not tried until that one is served or gives up.
type lockRequest struct {
	id      fileID
	flock   bool // a flock(2) request, else a byte-range one
	lock    rangeLock
	blocker rangeLock
	under   *lockRequest
}

// lockTable is every lock of a run, shared by its processes.
type lockTable struct {
	files map[fileID]*fileLocks
	// posixHeld counts the POSIX locks each descriptor table holds, so
	// that a close looks for its file's locks only when there are some.
	posixHeld map[*fdTable]int
	// descs names the file of each open file description that has held
	// OFD or flock locks, whose locks end with it.
	descs map[*file]fileID
	// waiting are the requests tasks wait for, oldest first.
	waiting []*lockRequest
}

// locksOf returns the locks on id, made if need be.
func (lt *lockTable) locksOf(id fileID) *fileLocks {
	if lt.files == nil {
		lt.files = map[fileID]*fileLocks{}
		lt.posixHeld = map[*fdTable]int{}
		lt.descs = map[*file]fileID{}
	}
	fl := lt.files[id]
	if fl == nil {
		fl = &fileLocks{}
		lt.files[id] = fl
	}
	return fl
}

// firstConflict is the first lock of the list that conflicts with req,
// or nil.
func firstConflict(list []rangeLock, req *rangeLock) *rangeLock {
	for i := range list {
		if req.conflicts(&list[i]) {
			return &list[i]
		}
	}
	return nil
}

// set gives req's owner the lock req on id's bytes req.start..req.end
// (takes them away for fUnlck), without looking for conflicts: the
// owner's locks there are split, replaced and merged so that each run of
// bytes of one type is one lock, as Linux keeps them.
func (lt *lockTable) set(id fileID, flock bool, req rangeLock) {
	fl := lt.locksOf(id)
	list := fl.list(flock)
	at, mine, others := -1, []rangeLock(nil), []rangeLock(nil)
	for _, l := range *list {
		if l.owner != req.owner {
			others = append(others, l)
			continue
		}
		if at < 0 {
			at = len(others)
		}
		mine = append(mine, l)
	}
	var kept []rangeLock
	for _, l := range mine {
		if l.end < req.start || l.start > req.end {
			kept = append(kept, l)
			continue
		}
		if l.start < req.start {
			left := l
			left.end = req.start - 1
			kept = append(kept, left)
		}
		if l.end > req.end {
			right := l
			right.start = req.end + 1
			kept = append(kept, right)
		}
	}
	if req.typ != fUnlck {
		kept = append(kept, req)
	}
	slices.SortFunc(kept, func(a, b rangeLock) int { return cmpInt64(a.start, b.start) })
	var merged []rangeLock
	for _, l := range kept {
		if n := len(merged); n > 0 && merged[n-1].typ == l.typ && merged[n-1].end >= l.start-1 {
			merged[n-1].end = max(merged[n-1].end, l.end)
			continue
		}
		merged = append(merged, l)
	}
	if at < 0 {
		at = len(others)
	}
	*list = slices.Concat(others[:at], merged, others[at:])
	if t, ok := req.owner.(*fdTable); ok {
		if lt.posixHeld[t] += len(merged) - len(mine); lt.posixHeld[t] == 0 {
			delete(lt.posixHeld, t)
		}
	} else if len(merged) > 0 {
		f := req.owner.(*file)
		lt.descs[f], f.locks = id, lt
	}
	if len(fl.ranges) == 0 && len(fl.flocks) == 0 {
		delete(lt.files, id)
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// closed ends the POSIX locks t holds on f's file: t closed a descriptor
// of it.
func (lt *lockTable) closed(t *fdTable, f *file) {
	if lt.posixHeld[t] == 0 {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(f.host, &st) != nil {
		return
	}
	lt.set(idOf(&st), false, rangeLock{owner: t, typ: fUnlck, start: 0, end: offsetMax})
}

// dropDesc ends the OFD and flock locks of f, whose last descriptor
// closed.
func (lt *lockTable) dropDesc(f *file) {
	id, ok := lt.descs[f]
	if !ok {
		return
	}
	delete(lt.descs, f)
	all := rangeLock{owner: f, ofd: true, typ: fUnlck, start: 0, end: offsetMax}
	lt.set(id, false, all)
	lt.set(id, true, all)
}

// queue places w, blocked by the held lock blocker, as Linux's
// __locks_insert_block does: behind the first request waiting on the
// same blocker that conflicts with it, and so on down; directly on the
// blocker if none does. The requests queued behind w are let go (Linux
// wakes them when w blocks anew).
func (lt *lockTable) queue(w *lockRequest, blocker *rangeLock) {
	w.blocker, w.under = *blocker, nil
	for _, e := range lt.waiting {
		if e.under == w {
			e.under = nil
		}
	}
	for {
		var next *lockRequest
		for _, e := range lt.waiting {
			if e != w && e.id == w.id && e.flock == w.flock && e.under == w.under &&
				(w.under != nil || e.blocker == w.blocker) && e.lock.conflicts(&w.lock) {
				next = e
				break
			}
		}
		if next == nil {
			return
		}
		w.under = next
	}
}

// retry tries again to give the waiting request w its lock, at a
// scheduling point: not while the request it waits behind waits; when a
// held lock still conflicts, w waits on, queued anew if that lock is not
// the one it waited on (Linux wakes it when its blocker goes, and it
// blocks again). It reports whether w has its lock.
func (lt *lockTable) retry(w *lockRequest) bool {
	if w.under != nil && slices.Contains(lt.waiting, w.under) {
		return false
	}
	w.under = nil
	if fl := lt.files[w.id]; fl != nil {
		if c := firstConflict(*fl.list(w.flock), &w.lock); c != nil {
			if *c != w.blocker {
				lt.queue(w, c)
			}
			return false
		}
	}
	lt.set(w.id, w.flock, w.lock)
	return true
}

// deadlocks reports whether owner, about to wait for held, would wait in
// a cycle. As Linux does, it follows from held's owner to the lock that
// owner's latest waiting request waits for (one held by a POSIX owner:
// OFD locks are not followed), a bounded number of steps, looking for
// owner.
func (lt *lockTable) deadlocks(owner lockOwner, held *rangeLock) bool {
	for step := 0; step <= maxDeadlockSteps; step++ {
		held = lt.waitedFor(held.owner)
		if held == nil {
			return false
		}
		if held.owner == owner {
			return true
		}
	}
	return false
}

// waitedFor is the lock that blocks owner's latest waiting byte-range
// request, when a POSIX owner holds it; nil if there is none.
func (lt *lockTable) waitedFor(owner lockOwner) *rangeLock {
	for _, w := range slices.Backward(lt.waiting) {
		if w.flock || w.lock.owner != owner {
			continue
		}
		fl := lt.files[w.id]
		if fl == nil {
			continue
		}
		if c := firstConflict(fl.ranges, &w.lock); c != nil && !c.ofd {
			return c
		}
	}
	return nil
}

// take tries to give req its lock on id, at its first attempt: the held
// lock that conflicts with it (nil when it has its lock).
func (lt *lockTable) take(req *lockRequest) *rangeLock {
	if fl := lt.files[req.id]; fl != nil {
		if c := firstConflict(*fl.list(req.flock), &req.lock); c != nil {
			return c
		}
	}
	lt.set(req.id, req.flock, req.lock)
	return nil
}

// lockWait blocks the calling task until req, which blocker blocks, can
// be taken (done then says what the call returns); its file f is held
// meanwhile.
func (p *Process) lockWait(f *file, fd uint64, req *lockRequest, blocker *rangeLock, done func() (uint64, error)) (uint64, error) {
	lt := &p.k.locks
	lt.queue(req, blocker)
	lt.waiting = append(lt.waiting, req)
	f.hold()
	what := "lock on " + f.path + " (fd " + itoa(uint64(uint32(fd))) + ")"
	return p.block(&wait{what: what, deadline: noDeadline, restartable: true,
		ready: func() (uint64, error, bool) {
			if !lt.retry(req) {
				return 0, nil, false
			}
			ret, err := done()
			return ret, err, true
		},
		release: func() {
			lt.waiting = slices.DeleteFunc(lt.waiting, func(w *lockRequest) bool { return w == req })
			f.release()
		}})
}

// lockFileID is the identity of f's file, the key of its locks.
func lockFileID(f *file) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(f.host, &st); err != nil {
		return fileID{}, errnoOf(err)
	}
	return idOf(&st), nil
}

// lockMode is f's access mode (O_RDONLY, O_WRONLY, O_RDWR); EBADF for an
// O_PATH descriptor, which takes no locks.
func lockMode(f *file) (int, error) {
	fl, err := unix.FcntlInt(uintptr(f.host), unix.F_GETFL, 0)
	if err != nil {
		return 0, errnoOf(err)
	}
	if fl&unix.O_PATH != 0 {
		return 0, unix.EBADF
	}
	return fl & unix.O_ACCMODE, nil
}

// fcntlLock runs the lock command cmd of fcntl on f, the guest's
// descriptor fd, with the struct flock at arg.
func (p *Process) fcntlLock(f *file, fd, cmd, arg uint64) (uint64, error) {
	mode, err := lockMode(f)
	if err != nil {
		return 0, err
	}
	raw, err := p.readMem(arg, flockSize)
	if err != nil {
		return 0, err
	}
	le := binary.LittleEndian
	typ, lpid := int16(le.Uint16(raw)), int32(le.Uint32(raw[24:]))
	getlk := cmd == fGetlk || cmd == fOFDGetlk
	ofd := cmd == fOFDGetlk || cmd == fOFDSetlk || cmd == fOFDSetlkw
	if getlk && typ != fRdlck && typ != fWrlck {
		return 0, unix.EINVAL
	}
	lock, err := lockRange(f, int16(le.Uint16(raw[2:])), int64(le.Uint64(raw[8:])), int64(le.Uint64(raw[16:])))
	if err != nil {
		return 0, err
	}
	if typ != fRdlck && typ != fWrlck && typ != fUnlck {
		return 0, unix.EINVAL
	}
	if !getlk && (typ == fRdlck && mode == unix.O_WRONLY || typ == fWrlck && mode == unix.O_RDONLY) {
		return 0, unix.EBADF
	}
	if ofd && lpid != 0 {
		return 0, unix.EINVAL
	}
	lock.typ, lock.pid, lock.owner = typ, p.pid, p.fds
	if ofd {
		lock.ofd, lock.owner = true, f
	}
	id, err := lockFileID(f)
	if err != nil {
		return 0, err
	}
	lt := &p.k.locks
	if getlk {
		return 0, p.writeMem(arg, getlkAnswer(raw, lt.files[id], &lock))
	}
	req := &lockRequest{id: id, lock: lock}
	// As Linux does, a POSIX lock taken while the descriptor was closed
	// (by another thread, during a wait) is let go again: EBADF.
	taken := func() (uint64, error) {
		if !ofd && p.fds.fds[int(int32(fd))] != f {
			lt.set(id, false, rangeLock{owner: lock.owner, typ: fUnlck, start: lock.start, end: lock.end})
			return 0, unix.EBADF
		}
		return 0, nil
	}
	if typ == fUnlck {
		lt.set(id, false, lock)
		return 0, nil
	}
	blocker := lt.take(req)
	if blocker == nil {
		return taken()
	}
	if cmd != fSetlkw && cmd != fOFDSetlkw {
		return 0, unix.EAGAIN
	}
	if !ofd && lt.deadlocks(lock.owner, blocker) {
		return 0, unix.EDEADLK
	}
	return p.lockWait(f, fd, req, blocker, taken)
}

// lockRange is the byte range struct flock's l_whence, l_start and l_len
// name in f, as Linux reckons it: from the start, the file offset or the
// end; a negative length reaches back from l_start, 0 to the end however
// far.
func lockRange(f *file, whence int16, start, length int64) (rangeLock, error) {
	var base int64
	switch whence {
	case unix.SEEK_SET:
	case unix.SEEK_CUR:
		base, _ = unix.Seek(f.host, 0, unix.SEEK_CUR) // 0 where there is no offset (a pipe)
		base = max(base, 0)
	case unix.SEEK_END:
		var st unix.Stat_t
		if err := unix.Fstat(f.host, &st); err != nil {
			return rangeLock{}, errnoOf(err)
		}
		base = st.Size
	default:
		return rangeLock{}, unix.EINVAL
	}
	if start > offsetMax-base {
		return rangeLock{}, unix.EOVERFLOW
	}
	l := rangeLock{start: base + start}
	switch {
	case l.start < 0:
		return rangeLock{}, unix.EINVAL
	case length > 0:
		if length-1 > offsetMax-l.start {
			return rangeLock{}, unix.EOVERFLOW
		}
		l.end = l.start + length - 1
	case length < 0:
		if l.start+length < 0 {
			return rangeLock{}, unix.EINVAL
		}
		l.end = l.start - 1
		l.start += length
	default:
		l.end = offsetMax
	}
	return l, nil
}

// getlkAnswer is the struct flock F_GETLK writes back over raw, what the
// guest passed: l_type F_UNLCK alone when no lock conflicts with req, else
// the first conflicting lock (l_pid -1 for an OFD lock).
func getlkAnswer(raw []byte, fl *fileLocks, req *rangeLock) []byte {
	le := binary.LittleEndian
	var c *rangeLock
	if fl != nil {
		c = firstConflict(fl.ranges, req)
	}
	if c == nil {
		le.PutUint16(raw, fUnlck)
		return raw
	}
	length, pid := int64(0), int32(c.pid)
	if c.end != offsetMax {
		length = c.end - c.start + 1
	}
	if c.ofd {
		pid = -1
	}
	le.PutUint16(raw, uint16(c.typ))
	le.PutUint16(raw[2:], unix.SEEK_SET)
	le.PutUint64(raw[8:], uint64(c.start))
	le.PutUint64(raw[16:], uint64(length))
	le.PutUint32(raw[24:], uint32(pid))
	return raw
}

// sysFlock takes, converts or drops the whole-file lock of a[0]'s open
// file description. A conversion lets the old lock go first, so that a
// conflict leaves none, as Linux's does.
func sysFlock(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	cmd := uint32(a[1])
	if cmd&lockMand != 0 {
		return 0, nil
	}
	var typ int16
	switch cmd &^ lockNB {
	case lockSH:
		typ = fRdlck
	case lockEX:
		typ = fWrlck
	case lockUN:
		typ = fUnlck
	default:
		return 0, unix.EINVAL
	}
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if _, err := lockMode(f); err != nil {
		return 0, err
	}
	id, err := lockFileID(f)
	if err != nil {
		return 0, err
	}
	lt := &p.k.locks
	req := &lockRequest{id: id, flock: true, lock: rangeLock{owner: f, ofd: true, pid: p.pid, typ: typ, end: offsetMax}}
	if fl := lt.files[id]; fl != nil {
		for _, l := range fl.flocks {
			if l.owner == f && l.typ == typ {
				return 0, nil
			}
		}
	}
	lt.set(id, true, rangeLock{owner: f, ofd: true, typ: fUnlck, end: offsetMax})
	if typ == fUnlck {
		return 0, nil
	}
	blocker := lt.take(req)
	if blocker == nil {
		return 0, nil
	}
	if cmd&lockNB != 0 {
		return 0, unix.EAGAIN
	}
	return p.lockWait(f, a[0], req, blocker, func() (uint64, error) { return 0, nil })
}
