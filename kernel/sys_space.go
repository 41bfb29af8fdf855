package kernel

import (
	"golang.org/x/sys/unix"
)

// A file's size and its way to the disk: truncate, fallocate, and the
// calls that flush (sync, syncfs, sync_file_range) or prefetch
// (readahead), made by the host's kernel on the host's files. A flush
// changes nothing the guest can see, so its timing does not enter.

// sysTruncate is ftruncate of the file at a path.
func sysTruncate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	path, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	host, err := p.resolve(path, func(host string) error { return unix.Truncate(p.cwdRelative(host), int64(a[1])) })
	if err != nil {
		return 0, errnoOf(err)
	}
	p.stampPath(unix.AT_FDCWD, p.cwdRelative(host), false, true)
	return 0, p.k.cutFiles(-1, unix.AT_FDCWD, p.cwdRelative(host))
}

// sysFallocate reserves, punches or zeroes a range of a file, as the host
// file system can (EOPNOTSUPP where it cannot).
func sysFallocate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if err := unix.Fallocate(f.host, uint32(a[1]), int64(a[2]), int64(a[3])); err != nil {
		return 0, errnoOf(err)
	}
	p.stamp(f.host, false, true)
	return 0, p.k.cutFiles(f.host, 0, "") // FALLOC_FL_COLLAPSE_RANGE shortens it
}

// sysSync flushes every file system, which the guest cannot tell from
// doing nothing but for the time it takes; it always succeeds.
func sysSync(t *Task, a [6]uint64) (uint64, error) {
	unix.Sync()
	return 0, nil
}

func sysSyncfs(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Syncfs(f.host))
}

func sysSyncFileRange(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.SyncFileRange(f.host, int64(a[1]), int64(a[2]), int(uint32(a[3]))))
}

// sysReadahead asks the host to cache a range of a file: the guest sees
// only whether the descriptor allows it (EBADF, EINVAL).
func sysReadahead(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if f.virt != virtNone {
		return 0, unix.EINVAL // a character device
	}
	_, _, e := unix.Syscall(unix.SYS_READAHEAD, uintptr(f.host), uintptr(a[1]), uintptr(a[2]))
	return 0, errnoIf(e)
}
