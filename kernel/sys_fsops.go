package kernel

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Calls that change the file system's names and the attributes of its
// files: rename, link, symlink, rmdir, mknod, chmod, chown, the
// timestamps; and close_range. They act on the host's files, as open
// does, with the permissions of the user running icount. A path naming a
// file that must exist (what chmod, chown, the timestamps and link's
// source act on) is looked up under the sysroot first, as open's are
// (resolve); a name made or removed (rename's two, link's and symlink's
// new one, rmdir's, mknod's) is only ever the path itself (hostPath).
//
// The guest runs as uid and gid UID and GID without privileges, while
// icount may run as anyone: chown accepts only what an unprivileged owner
// may do (see chownAllowed), and mknod makes no devices but whiteouts.

// Flags of the *at calls (asm-generic values, shared by x86-64 and arm64)
// besides sys_fork.go's AT_EMPTY_PATH and AT_SYMLINK_NOFOLLOW.
const (
	atRemovedir     = 0x200
	atSymlinkFollow = 0x400
)

// renameat2 flags.
const (
	renameNoreplace = 1
	renameExchange  = 2
	renameWhiteout  = 4
)

// close_range flags.
const (
	closeRangeUnshare = 2
	closeRangeCloexec = 4
)

// The special tv_nsec values of utimensat.
const (
	utimeNow  = 1<<30 - 1
	utimeOmit = 1<<30 - 2
)

// pathsAt reads the two paths of a call naming two files (rename, link)
// and the host directories they are relative to.
func (p *Process) pathsAt(olddirfd, oldAddr, newdirfd, newAddr uint64) (olddir int, oldpath string, newdir int, newpath string, err error) {
	if olddir, oldpath, err = p.pathAt(olddirfd, oldAddr); err != nil {
		return
	}
	newdir, newpath, err = p.pathAt(newdirfd, newAddr)
	return
}

func sysRename(t *Task, a [6]uint64) (uint64, error) {
	return sysRenameat2(t, [6]uint64{guestFDCWD, a[0], guestFDCWD, a[1], 0})
}

func sysRenameat(t *Task, a [6]uint64) (uint64, error) {
	return sysRenameat2(t, [6]uint64{a[0], a[1], a[2], a[3], 0})
}

// sysRenameat2 renames on the host, whose kernel checks the flags as the
// guest's would (RENAME_WHITEOUT needs no privilege since Linux 5.8).
func sysRenameat2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := uint(uint32(a[4]))
	if flags&^(renameNoreplace|renameExchange|renameWhiteout) != 0 ||
		flags&renameExchange != 0 && flags&(renameNoreplace|renameWhiteout) != 0 {
		return 0, unix.EINVAL // before the paths are read, as Linux checks
	}
	olddir, oldpath, newdir, newpath, err := p.pathsAt(a[0], a[1], a[2], a[3])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Renameat2(olddir, p.hostPath(oldpath), newdir, p.hostPath(newpath), flags))
}

func sysLink(t *Task, a [6]uint64) (uint64, error) {
	return sysLinkat(t, [6]uint64{guestFDCWD, a[0], guestFDCWD, a[1], 0})
}

// sysLinkat links on the host. AT_EMPTY_PATH links the file the guest's
// descriptor is open on, which Linux 6.10 and later allow its opener.
func sysLinkat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := int(int32(a[4]))
	if flags&^(atSymlinkFollow|atEmptyPath) != 0 {
		return 0, unix.EINVAL
	}
	olddir, oldpath, newdir, newpath, err := p.pathsAt(a[0], a[1], a[2], a[3])
	if err != nil {
		return 0, err
	}
	newhost := p.hostPath(newpath)
	_, err = p.resolve(oldpath, func(host string) error { return unix.Linkat(olddir, host, newdir, newhost, flags) })
	return 0, errnoOrNil(err)
}

func sysSymlink(t *Task, a [6]uint64) (uint64, error) {
	return sysSymlinkat(t, [6]uint64{a[0], guestFDCWD, a[1]})
}

// sysSymlinkat makes a symbolic link holding the guest's target as it
// gave it.
func sysSymlinkat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	target, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	dir, path, err := p.pathAt(a[1], a[2])
	if err != nil {
		return 0, err
	}
	host := p.hostPath(path)
	if err := unix.Symlinkat(target, dir, host); err != nil {
		return 0, errnoOf(err)
	}
	p.made(dir, host)
	return 0, nil
}

func sysRmdir(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(guestFDCWD, a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Unlinkat(dir, p.hostPath(path), atRemovedir))
}

// sysCreat is open with O_CREAT|O_WRONLY|O_TRUNC (x86-64 only).
func sysCreat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.openat(guestFDCWD, a[0], unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, a[1])
}

func sysMknod(t *Task, a [6]uint64) (uint64, error) {
	return sysMknodat(t, [6]uint64{guestFDCWD, a[0], a[1], a[2]})
}

// sysMknodat makes regular files, FIFOs, sockets and whiteouts (a
// character device 0:0), as an unprivileged process may; other devices
// fail with EPERM once the name is known to be free, as Linux checks.
func sysMknodat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	mode := uint32(a[2])
	dev := int(uint32(a[3]))
	switch mode & unix.S_IFMT {
	case 0, unix.S_IFREG, unix.S_IFIFO, unix.S_IFSOCK, unix.S_IFCHR, unix.S_IFBLK:
	case unix.S_IFDIR:
		return 0, unix.EPERM
	default:
		return 0, unix.EINVAL
	}
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	host := p.hostPath(path)
	if kind := mode & unix.S_IFMT; kind == unix.S_IFBLK || kind == unix.S_IFCHR && dev != 0 {
		return 0, nameFree(dir, host)
	}
	if err := unix.Mknodat(dir, host, mode&^p.umask, dev); err != nil {
		return 0, errnoOf(err)
	}
	p.created(dir, host, uint64(mode&0o7777), true)
	return 0, nil
}

// nameFree is the answer of a call that may not make the file host names
// (relative to dir) once the name is found free: EEXIST if it exists,
// the lookup's error if its directory does not, EPERM otherwise.
func nameFree(dir int, host string) error {
	var st unix.Stat_t
	err := unix.Fstatat(dir, host, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil {
		return unix.EEXIST
	}
	if !errors.Is(err, unix.ENOENT) {
		return errnoOf(err)
	}
	if err := unix.Fstatat(dir, filepath.Dir(host), &st, 0); err != nil {
		return errnoOf(err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return unix.ENOTDIR
	}
	return unix.EPERM
}

func sysChmod(t *Task, a [6]uint64) (uint64, error) {
	return sysFchmodat(t, [6]uint64{guestFDCWD, a[0], a[1]})
}

func sysFchmod(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Fchmod(f.host, uint32(a[1])))
}

// sysFchmodat is the system call, which has no flags argument: libc's
// fchmodat implements AT_SYMLINK_NOFOLLOW with fchmodat2 or O_PATH.
func sysFchmodat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	_, err = p.resolve(path, func(host string) error { return unix.Fchmodat(dir, host, uint32(a[2]), 0) })
	return 0, errnoOrNil(err)
}

// sysFchmodat2 is fchmodat with flags, made by the host's kernel
// (AT_SYMLINK_NOFOLLOW on a symbolic link: EOPNOTSUPP).
func sysFchmodat2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	_, err = p.resolve(path, func(host string) error {
		return syscallAt(unix.SYS_FCHMODAT2, dir, host, uintptr(uint32(a[2])), uintptr(uint32(a[3])))
	})
	return 0, errnoOrNil(err)
}

// chownAllowed says whether an unprivileged process running as UID and
// GID may give the file st describes the owner uid and group gid (each
// ^0 to keep it): only the ids it has, or the caller's group for a file
// the caller owns.
func chownAllowed(st *unix.Stat_t, uid, gid uint32) bool {
	const keep = ^uint32(0)
	owner, group := guestUID(st.Uid), guestGID(st.Gid)
	if uid != keep && uid != owner {
		return false
	}
	return gid == keep || gid == group || owner == UID && gid == GID
}

func sysChown(t *Task, a [6]uint64) (uint64, error) {
	return sysFchownat(t, [6]uint64{guestFDCWD, a[0], a[1], a[2], 0})
}

func sysLchown(t *Task, a [6]uint64) (uint64, error) {
	return sysFchownat(t, [6]uint64{guestFDCWD, a[0], a[1], a[2], atSymlinkNofollow})
}

func sysFchown(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, st, err := p.fstatFD(a[0])
	if err != nil {
		return 0, err
	}
	if !chownAllowed(&st, uint32(a[1]), uint32(a[2])) {
		return 0, unix.EPERM
	}
	return 0, errnoOrNil(unix.Fchown(f.host, int(int32(hostUIDOf(uint32(a[1])))), int(int32(hostGIDOf(uint32(a[2]))))))
}

// sysFchownat makes the change on the host once chownAllowed allows it,
// so that the host clears the set-user-ID and set-group-ID bits as the
// guest's kernel would.
func sysFchownat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := int(int32(a[4]))
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return 0, unix.EINVAL
	}
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	uid, gid := uint32(a[2]), uint32(a[3])
	_, err = p.resolve(path, func(host string) error {
		var st unix.Stat_t
		if err := unix.Fstatat(dir, host, &st, flags); err != nil {
			return err
		}
		if !chownAllowed(&st, uid, gid) {
			return unix.EPERM
		}
		return unix.Fchownat(dir, host, int(int32(hostUIDOf(uid))), int(int32(hostGIDOf(gid))), flags)
	})
	return 0, errnoOrNil(err)
}

// sysUtimensat sets a file's timestamps on the host; under --fixed-clock
// the guest sees UTIME_NOW and a NULL times as its own time (stamps.go).
func sysUtimensat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var ts *[2]unix.Timespec
	if a[2] != 0 {
		b, err := p.readMem(a[2], 32)
		if err != nil {
			return 0, err
		}
		var v [2]unix.Timespec
		for i := range v {
			v[i].Sec = int64(binary.LittleEndian.Uint64(b[16*i:]))
			v[i].Nsec = int64(binary.LittleEndian.Uint64(b[16*i+8:]))
		}
		if v[0].Nsec == utimeOmit && v[1].Nsec == utimeOmit {
			return 0, nil // nothing to do: not even the path is looked at
		}
		ts = &v
	}
	return p.utimes(a[0], a[1], ts, int(int32(a[3])))
}

// utimes sets the timestamps of the file at pathAddr relative to dirfd,
// or of dirfd itself when pathAddr is NULL, to ts (nil: now), as Linux's
// do_utimes.
func (p *Process) utimes(dirfd, pathAddr uint64, ts *[2]unix.Timespec, flags int) (uint64, error) {
	var tp uintptr
	if ts != nil {
		tp = uintptr(unsafe.Pointer(ts))
	}
	if pathAddr == 0 && dirfd != guestFDCWD && int32(dirfd) != -100 {
		if flags != 0 {
			return 0, unix.EINVAL
		}
		f, err := p.fds.get(dirfd)
		if err != nil {
			return 0, err
		}
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(f.host), 0, tp, 0, 0, 0)
		if e == 0 {
			var st unix.Stat_t
			if unix.Fstat(f.host, &st) == nil {
				p.k.retimed(idOf(&st), ts)
			}
		}
		return 0, errnoOrNil(errnoIf(e))
	}
	if flags&^(atSymlinkNofollow|atEmptyPath) != 0 {
		return 0, unix.EINVAL
	}
	if pathAddr == 0 {
		return 0, unix.EFAULT
	}
	dir, path, err := p.pathAt(dirfd, pathAddr)
	if err != nil {
		return 0, err
	}
	_, err = p.resolve(path, func(host string) error {
		if err := syscallAt(unix.SYS_UTIMENSAT, dir, host, tp, uintptr(flags)); err != nil {
			return err
		}
		var st unix.Stat_t
		if unix.Fstatat(dir, host, &st, flags&atSymlinkNofollow) == nil {
			p.k.retimed(idOf(&st), ts)
		}
		return nil
	})
	return 0, errnoOrNil(err)
}

// retimed keeps the guest's view of a file's times after utimensat set
// them to ts (nil: both now): under --fixed-clock "now" is the guest's
// time, an explicit time the host's file holds.
func (k *Kernel) retimed(id fileID, ts *[2]unix.Timespec) {
	if k.clk.fixed == nil {
		return
	}
	now := [2]bool{true, true}
	set := [2]bool{true, true}
	if ts != nil {
		for i := range ts {
			now[i] = ts[i].Nsec == utimeNow
			set[i] = ts[i].Nsec != utimeOmit
		}
	}
	k.stampID(id, now[0] && set[0], now[1] && set[1])
	t := k.stamps[id]
	if set[0] && !now[0] {
		t.atime = 0
	}
	if set[1] && !now[1] {
		t.mtime = 0
	}
}

// syscallAt makes the host system call nr on (dir, path) with two more
// arguments, for the *at calls x/sys/unix lacks or wraps too narrowly.
func syscallAt(nr uintptr, dir int, path string, a, b uintptr) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	_, _, e := unix.Syscall6(nr, uintptr(dir), uintptr(unsafe.Pointer(p)), a, b, 0, 0)
	return errnoIf(e)
}

// errnoIf is a raw system call's errno as an error, nil for 0.
func errnoIf(e unix.Errno) error {
	if e != 0 {
		return e
	}
	return nil
}

// timevals reads the two struct timevals of utimes and futimesat at addr
// (NULL: now) as timespecs, EINVAL for a microsecond count out of range.
func (p *Process) timevals(addr uint64) (*[2]unix.Timespec, error) {
	if addr == 0 {
		return nil, nil
	}
	b, err := p.readMem(addr, 32)
	if err != nil {
		return nil, err
	}
	var v [2]unix.Timespec
	for i := range v {
		usec := int64(binary.LittleEndian.Uint64(b[16*i+8:]))
		if usec < 0 || usec >= 1_000_000 {
			return nil, unix.EINVAL
		}
		v[i] = unix.Timespec{Sec: int64(binary.LittleEndian.Uint64(b[16*i:])), Nsec: usec * 1000}
	}
	return &v, nil
}

func sysFutimesat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	ts, err := p.timevals(a[2])
	if err != nil {
		return 0, err
	}
	return p.utimes(a[0], a[1], ts, 0)
}

func sysUtimes(t *Task, a [6]uint64) (uint64, error) {
	return sysFutimesat(t, [6]uint64{guestFDCWD, a[0], a[1]})
}

// sysUtime reads struct utimbuf (access and modification times in
// seconds; NULL: now).
func sysUtime(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var ts *[2]unix.Timespec
	if a[1] != 0 {
		b, err := p.readMem(a[1], 16)
		if err != nil {
			return 0, err
		}
		ts = &[2]unix.Timespec{{Sec: int64(binary.LittleEndian.Uint64(b))}, {Sec: int64(binary.LittleEndian.Uint64(b[8:]))}}
	}
	return p.utimes(guestFDCWD, a[0], ts, 0)
}

// sysCloseRange closes, or marks close-on-exec, the open descriptors from
// a[0] to a[1]. CLOSE_RANGE_UNSHARE has nothing to do in a process of
// one thread, whose table no one shares; a process of several threads
// shares its table among them, which icount cannot then split.
func sysCloseRange(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	first, last, flags := uint32(a[0]), uint32(a[1]), uint32(a[2])
	if flags&^(closeRangeUnshare|closeRangeCloexec) != 0 || first > last {
		return 0, unix.EINVAL
	}
	if flags&closeRangeUnshare != 0 && len(p.tasks) > 1 {
		return 0, errUnsupported("CLOSE_RANGE_UNSHARE in a process of several threads")
	}
	var fds []int
	for fd := range p.fds.fds {
		if uint32(fd) >= first && uint32(fd) <= last {
			fds = append(fds, fd)
		}
	}
	slices.Sort(fds)
	for _, fd := range fds {
		if flags&closeRangeCloexec != 0 {
			p.fds.cloexec[fd] = true
		} else {
			p.fds.close(fd)
		}
	}
	return 0, nil
}
