package kernel

import (
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
	nonblock bool      // the guest asked for O_NONBLOCK
	// refs counts the guest descriptors open on it and the system calls
	// blocked in it: the host descriptor closes with the last.
	refs int

	// virt says when icount answers the contents itself (virtfiles.go).
	virt virtual
}

// fdTable maps guest descriptors to open files, and says which close on
// exec (FD_CLOEXEC). A fork's child gets a copy: its descriptors share the
// parent's open files (offsets, flags), as Linux's do.
type fdTable struct {
	fds     map[int]*file
	cloexec map[int]bool
}

// oCloexec is O_CLOEXEC as both guest arches number it (also SOCK_CLOEXEC,
// EPOLL_CLOEXEC and EFD_CLOEXEC).
const oCloexec = 0x80000

func newFDTable() *fdTable {
	t := &fdTable{fds: map[int]*file{}, cloexec: map[int]bool{}}
	for fd, name := range []string{"<stdin>", "<stdout>", "<stderr>"} {
		t.fds[fd] = &file{host: fd, path: name, stdio: true, refs: 1}
	}
	return t
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

// install gives f the lowest free descriptor at or above min.
func (t *fdTable) install(f *file, min int) (int, error) {
	for fd := min; fd < maxFDs; fd++ {
		if _, used := t.fds[fd]; !used {
			t.fds[fd] = f
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
	c := &fdTable{fds: make(map[int]*file, len(t.fds)), cloexec: make(map[int]bool, len(t.cloexec))}
	for fd, f := range t.fds {
		c.fds[fd] = f
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

// installAt puts f at fd, closing what was there.
func (t *fdTable) installAt(f *file, fd int) error {
	if fd < 0 || fd >= maxFDs {
		return unix.EBADF
	}
	if old, ok := t.fds[fd]; ok {
		if old == f {
			return nil
		}
		t.close(fd)
	}
	t.fds[fd] = f
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
	return f.release()
}

// hold keeps f open while a system call blocks in it, as the kernel keeps
// a file a blocked call uses: closing its descriptor meanwhile does not
// pull the host descriptor from under the wait. release ends it.
func (f *file) hold() { f.refs++ }

// release drops one reference to f, closing the host descriptor with the
// last.
func (f *file) release() error {
	f.refs--
	if f.refs == 0 && !f.stdio {
		if f.sock != nil {
			f.sock.closed()
		}
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
