package kernel

import (
	"github.com/icount-dev/icount/inherited"
	"golang.org/x/sys/unix"
)

// maxFDs bounds the guest's descriptor table, like RLIMIT_NOFILE.
const maxFDs = 1024

// file is an open guest file description backed by a host descriptor.
type file struct {
	host  int
	path  string
	stdio bool // one of icount's own standard streams: never closed on the host
	// pipe marks a pipe or eventfd icount made: non-blocking on the host,
	// so that a transfer that would block blocks only the guest thread.
	pipe     bool
	epoll    bool      // an epoll instance (sys_epoll.go), a host one
	sock     *unixSock // a Unix-domain socket icount made (unixsock.go)
	nonblock bool      // the guest asked for O_NONBLOCK (icount's state: see hoststream.go)
	// stream is the poll events a host stream (hoststream.go) is always
	// ready for; 0 for any other file.
	stream int16
	// fills marks a host stream that is a pipe or FIFO, or /dev/zero or
	// /dev/full, whose reads wait for their whole buffer (readWant).
	fills bool
	// fifo names a FIFO opened by path, whose other end may be the run's
	// (hoststream.go); zero for any other file.
	fifo fifoID
	// transfers counts the transfers on a host stream, each of which
	// makes it ready anew for an edge-triggered epoll watch.
	transfers uint64
	// watches are an epoll instance's watches of host streams, which its
	// host instance does not hold (sys_epoll.go), in the order added.
	watches []*streamWatch
	// counted marks an eventfd, whose reads and writes move one 8-byte
	// count: a transfer of fewer bytes fails EINVAL, so a transfer of
	// none cannot stand for the checks Linux makes first (emptyIO).
	counted bool
	// timer is a timerfd's timer (sys_timerfd.go), whose eventfd f is.
	timer *timerFD
	// sigfd is a signalfd's state (sys_signalfd.go), whose eventfd f is.
	sigfd *signalFD
	// inotify marks an inotify instance (sys_inotify.go), whose events'
	// cookies a read renumbers.
	inotify bool
	// refs counts the guest descriptors open on it and the system calls
	// blocked in it: the host descriptor closes with the last.
	refs int

	// virt says when icount answers the contents itself (virtfiles.go).
	virt virtual
	// fdDir is the listing of a /proc/PID/fd directory (procfd.go).
	fdDir *procFDDir
	// memfd marks a file of memfd_create (sys_memfd.go): its seals are
	// the guest's, where icount's own memfds (generated files) have none.
	memfd bool
	// locks is the lock table holding its OFD or flock locks
	// (sys_lock.go), which end with its last reference; nil for none.
	locks *lockTable
}

// fdTable maps guest descriptors to open files, and says which close on
// exec (FD_CLOEXEC). A fork's child gets a copy: its descriptors share the
// parent's open files (offsets, flags), as Linux's do.
type fdTable struct {
	fds     map[int]*file
	cloexec map[int]bool
	// limit is RLIMIT_NOFILE's soft limit, which new descriptors stay
	// below: maxFDs until the process sets a lower one.
	limit int
	// locks is the Kernel's lock table: the table owns POSIX locks,
	// which end when it closes any descriptor of their file.
	locks *lockTable
	// size is how many descriptors Linux's table would have room for:
	// 64, then the power of two past the highest descriptor it held (it
	// never shrinks; a fork's is sized for the descriptors open). select
	// looks no further.
	size int
}

// minFDTableSize is the room of a new descriptor table (NR_OPEN_DEFAULT).
const minFDTableSize = 64

// growTo grows the table's size to hold fd, as expand_files does.
func (t *fdTable) growTo(fd int) {
	for t.size <= fd {
		t.size *= 2
	}
}

// oCloexec is O_CLOEXEC as both guest arches number it (also SOCK_CLOEXEC,
// EPOLL_CLOEXEC and EFD_CLOEXEC).
const oCloexec = 0x80000

// newFDTable makes the first process's table: the standard descriptors
// icount was started with, and none for one it was started without (the
// guest sees EBADF there, and its next open takes the number).
func newFDTable(locks *lockTable) *fdTable {
	t := &fdTable{fds: map[int]*file{}, cloexec: map[int]bool{}, locks: locks, size: minFDTableSize, limit: maxFDs}
	for fd, name := range []string{"<stdin>", "<stdout>", "<stderr>"} {
		if inherited.Closed(fd) {
			continue
		}
		if f := t.sameDescription(fd); f != nil {
			t.fds[fd] = f // one terminal's: O_NONBLOCK set on one is set on all
			f.refs++
			continue
		}
		_, fills := fifoOf(fd)
		fills = fills || fillingDevice(fd)
		t.fds[fd] = &file{host: fd, path: name, stdio: true, refs: 1, stream: streamEvents(fd), fills: fills, nonblock: hostNonblock(fd)}
	}
	return t
}

// sameDescription is the file of a lower standard descriptor that shares
// one open file description with fd (as a terminal's three usually do),
// as the host's kcmp says; nil for none, or without kcmp.
func (t *fdTable) sameDescription(fd int) *file {
	const kcmpFile = 0
	pid := uintptr(unix.Getpid())
	for lower := range fd {
		f := t.fds[lower]
		if f == nil {
			continue
		}
		if r, _, errno := unix.Syscall6(unix.SYS_KCMP, pid, pid, kcmpFile, uintptr(fd), uintptr(lower), 0); errno == 0 && r == 0 {
			return f
		}
	}
	return nil
}

func (t *fdTable) get(fd uint64) (*file, error) {
	if f, ok := t.fds[int(int32(fd))]; ok && int32(fd) >= 0 {
		return f, nil
	}
	return nil, unix.EBADF
}

// get2 looks up two descriptors, as a call taking two does (sendfile,
// copy_file_range, epoll_ctl): EBADF if either is not open.
func (t *fdTable) get2(a, b uint64) (*file, *file, error) {
	fa, err := t.get(a)
	if err != nil {
		return nil, nil, err
	}
	fb, err := t.get(b)
	if err != nil {
		return nil, nil, err
	}
	return fa, fb, nil
}

// max is the number the table's descriptors stay below: RLIMIT_NOFILE's
// soft limit.
func (t *fdTable) max() int { return t.limit }

// install gives f the lowest free descriptor at or above min.
func (t *fdTable) install(f *file, min int) (int, error) {
	for fd := min; fd < t.max(); fd++ {
		if _, used := t.fds[fd]; !used {
			t.fds[fd] = f
			t.growTo(fd)
			f.refs++
			return fd, nil
		}
	}
	return 0, unix.EMFILE
}

// installFlags is install with O_CLOEXEC (oCloexec) taken from flags.
func (t *fdTable) installFlags(f *file, min int, flags uint64) (int, error) {
	fd, err := t.install(f, min)
	if err == nil && flags&oCloexec != 0 {
		t.cloexec[fd] = true
	}
	return fd, err
}

// fork copies the table for a child process.
func (t *fdTable) fork() *fdTable {
	c := &fdTable{fds: make(map[int]*file, len(t.fds)), cloexec: make(map[int]bool, len(t.cloexec)), locks: t.locks,
		size: minFDTableSize, limit: t.limit}
	for fd, f := range t.fds {
		c.fds[fd] = f
		c.growTo(fd)
		f.refs++
	}
	for fd := range t.cloexec {
		c.cloexec[fd] = true
	}
	return c
}

// closeOnExec closes the descriptors marked FD_CLOEXEC, at exec.
func (t *fdTable) closeOnExec() {
	for fd := range t.cloexec {
		t.close(fd)
	}
}

// installAt puts f at fd, closing what was there: also f itself (fd a
// dup of it), which, as in Linux, ends the table's POSIX locks on its file.
func (t *fdTable) installAt(f *file, fd int) error {
	if fd < 0 || fd >= t.max() {
		return unix.EBADF
	}
	if old, ok := t.fds[fd]; ok {
		if old == f {
			t.locks.closed(t, f)
			return nil
		}
		t.close(fd)
	}
	t.fds[fd] = f
	t.growTo(fd)
	f.refs++
	return nil
}

func (t *fdTable) close(fd int) error {
	f, ok := t.fds[fd]
	if !ok {
		return unix.EBADF
	}
	delete(t.fds, fd)
	delete(t.cloexec, fd)
	t.locks.closed(t, f)
	return f.release()
}

// hold keeps f open while a system call blocks in it, as the kernel keeps
// a file a blocked call uses: closing its descriptor meanwhile does not
// pull the host descriptor from under the wait. release ends it.
func (f *file) hold() { f.refs++ }

// release drops one reference to f, ending its OFD and flock locks and
// closing the host descriptor with the last.
func (f *file) release() error {
	f.refs--
	if f.refs > 0 {
		return nil
	}
	if f.locks != nil {
		f.locks.dropDesc(f)
	}
	if f.sock != nil {
		f.sock.closed()
	}
	if !f.stdio {
		return unix.Close(f.host)
	}
	return nil
}

// closeAll closes every guest descriptor, at exit.
func (t *fdTable) closeAll() {
	for fd := range t.fds {
		t.close(fd)
	}
}
