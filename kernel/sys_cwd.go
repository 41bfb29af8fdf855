package kernel

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The working directory and the file-mode mask, each process's own. A
// process starts in icount's working directory (the run's input, which
// the Profile records); chdir and fchdir move it, and a fork's child
// starts where its parent is. Relative paths of every call are resolved
// from it (hostDir, dirPath).

// workdir is a working directory: its host path and a host descriptor on
// it (O_PATH), shared by the processes there until they move.
type workdir struct {
	path string
	fd   int
	refs int
}

// release drops one process's use of w.
func (w *workdir) release() {
	if w == nil {
		return
	}
	if w.refs--; w.refs == 0 {
		unix.Close(w.fd)
	}
}

// cwdPath is the host path of p's working directory.
func (p *Process) cwdPath() string {
	if p.cwd != nil {
		return p.cwd.path
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return wd
}

// chdirTo makes the directory open on the host at fd, path, p's working
// directory; fd becomes p's.
func (p *Process) chdirTo(fd int, path string) {
	p.cwd.release()
	p.cwd = &workdir{path: path, fd: fd, refs: 1}
}

func sysChdir(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(guestFDCWD, a[0])
	if err != nil {
		return 0, err
	}
	host := p.hostPath(path)
	fd, err := unix.Openat(dir, host, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, errnoOf(err)
	}
	if !filepath.IsAbs(host) {
		host = filepath.Join(p.cwdPath(), host)
	}
	p.chdirTo(fd, filepath.Clean(host))
	return 0, nil
}

func sysFchdir(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, st, err := p.fstatFD(a[0])
	if err != nil {
		return 0, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return 0, unix.ENOTDIR
	}
	fd, err := unix.FcntlInt(uintptr(f.host), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return 0, errnoOf(err)
	}
	// Where the directory is now: the path it was opened by may be
	// relative to another working directory, or renamed since.
	path, err := os.Readlink("/proc/self/fd/" + itoa(uint64(fd)))
	if err != nil {
		unix.Close(fd)
		return 0, fmt.Errorf("fchdir: the directory of fd %d: %w", a[0], err)
	}
	p.chdirTo(fd, path)
	return 0, nil
}

func sysGetcwd(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	p.k.in.cwdRead = true
	wd := p.k.tmpGuest(p.cwdPath())
	if wd == "" {
		return 0, unix.ENOENT
	}
	b := append([]byte(wd), 0)
	if uint64(len(b)) > a[1] {
		return 0, unix.ERANGE
	}
	return uint64(len(b)), p.writeMem(a[0], b)
}

// defaultUmask is the mask every run's first process starts with, so that
// the modes of the files a program makes do not depend on icount's.
const defaultUmask = 0o022

func sysUmask(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	old := p.umask
	p.umask = uint32(a[0]) & 0o777
	return uint64(old), nil
}

// created gives a file the guest just made at host (relative to dir)
// the mode it asked for less its umask, which icount's own umask would
// have cut otherwise, and records it as made.
func (p *Process) created(dir int, host string, mode uint64, nofollow bool) {
	flags := 0
	if nofollow {
		flags = unix.AT_SYMLINK_NOFOLLOW
	}
	unix.Fchmodat(dir, host, uint32(mode)&0o7777&^p.umask, flags)
	p.made(dir, host)
}

func sysMkdirat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	host := p.hostPath(path)
	if err := unix.Mkdirat(dir, host, uint32(a[2])&0o7777&^p.umask); err != nil {
		return 0, errnoOf(err)
	}
	p.created(dir, host, a[2]&0o7777, true)
	return 0, nil
}

func sysMkdir(t *Task, a [6]uint64) (uint64, error) {
	return sysMkdirat(t, [6]uint64{guestFDCWD, a[0], a[1]})
}
