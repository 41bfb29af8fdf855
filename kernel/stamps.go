package kernel

import (
	"golang.org/x/sys/unix"
)

// File times under --fixed-clock. The host stamps a file the guest writes
// with host time, which a program then reads back (make compares them,
// git's index trusts a file whose time is older than its own), so its
// work would depend on when it ran. Under a fixed clock the kernel keeps
// the times of every file the guest changes in guest time instead, and
// stat shows them: a write, a truncation, a file or directory made, a
// utimensat to "now". The host's files keep the host's times; files the
// guest did not change show theirs, as any input does.

// fileID names a file on the host: its device and inode (also the key of
// the guest's inode numbers, ids.go).
type fileID struct{ dev, ino uint64 }

func idOf(st *unix.Stat_t) fileID { return fileID{st.Dev, st.Ino} }

// fileTimes are the times stat shows of a file the guest changed, in
// nanoseconds of guest CLOCK_REALTIME; 0 keeps the host's.
type fileTimes struct{ atime, mtime, ctime int64 }

// stamp records that the guest changed the file open on the host at fd:
// its data (modified, also its mtime), its access time (accessed), and
// always its ctime. It does nothing under the host's clock.
func (p *Process) stamp(fd int, accessed, modified bool) {
	k := p.k
	if k.clk.fixed == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	k.stampID(idOf(&st), accessed, modified)
}

// stampPath is stamp for the file at host (relative to dir), not
// following a final symbolic link.
func (p *Process) stampPath(dir int, host string, accessed, modified bool) {
	k := p.k
	if k.clk.fixed == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(dir, host, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	k.stampID(idOf(&st), accessed, modified)
}

// made records that the guest just made the file at host (relative to
// dir; a final symbolic link is not followed): a new file (forgetFile),
// accessed and modified now.
func (p *Process) made(dir int, host string) {
	var st unix.Stat_t
	if unix.Fstatat(dir, host, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		p.k.madeID(idOf(&st))
	}
}

// madeFD is made for the file open on the host at fd.
func (p *Process) madeFD(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		p.k.madeID(idOf(&st))
	}
}

func (k *Kernel) madeID(id fileID) {
	k.forgetFile(id)
	if k.clk.fixed != nil {
		k.stampID(id, true, true)
	}
}

func (k *Kernel) stampID(id fileID, accessed, modified bool) {
	if k.stamps == nil {
		k.stamps = map[fileID]*fileTimes{}
	}
	t := k.stamps[id]
	if t == nil {
		t = &fileTimes{}
		k.stamps[id] = t
	}
	now := k.clk.fixed.Now()
	t.ctime = now
	if accessed {
		t.atime = now
	}
	if modified {
		t.mtime = now
	}
}

// stamped puts the guest's times of the file st describes into st.
func (k *Kernel) stamped(st *unix.Stat_t) {
	t := k.stamps[idOf(st)]
	if t == nil {
		return
	}
	put := func(ts *unix.Timespec, ns int64) {
		if ns != 0 {
			*ts = unix.NsecToTimespec(ns)
		}
	}
	put(&st.Atim, t.atime)
	put(&st.Mtim, t.mtime)
	put(&st.Ctim, t.ctime)
}

// stampedx is stamped for a struct statx.
func (k *Kernel) stampedx(stx *unix.Statx_t) {
	t := k.stamps[fileID{unix.Mkdev(stx.Dev_major, stx.Dev_minor), stx.Ino}]
	if t == nil {
		return
	}
	put := func(ts *unix.StatxTimestamp, ns int64) {
		if ns != 0 {
			ts.Sec, ts.Nsec = ns/1e9, uint32(ns%1e9)
		}
	}
	put(&stx.Atime, t.atime)
	put(&stx.Mtime, t.mtime)
	put(&stx.Ctime, t.ctime)
}
