package kernel

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// inotify: each guest instance is a host inotify instance, non-blocking
// on the host as icount's pipes are (file.pipe): a read that would block
// blocks the guest thread (hostIO), poll and epoll see it on the host. Its
// watches are on the host files the guest's paths name (resolve: the
// run's /tmp, the sysroot), so its events are what the file system
// reports, which is the program's input. Watch descriptors are the
// host's, numbered per instance as Linux numbers them. Rename cookies,
// a counter Linux keeps for the whole system, are renumbered per run in
// the order they appear (inotifyCookies). Argument checks are the host's,
// in Linux's order.

// inotify_init1 flags (IN_NONBLOCK is O_NONBLOCK, IN_CLOEXEC O_CLOEXEC),
// alike on x86-64 and arm64.
const (
	inNonblock = 0x800
	inCloexec  = 0x80000
)

// inotifyEventSize is struct inotify_event's size before its name.
const inotifyEventSize = 16

// inotifyCookies renumbers the host's rename cookies for one run: the
// first cookie the run reads is 1, the next another is 2, and so on, the
// same number in every instance that reports the rename.
type inotifyCookies struct {
	guest map[uint32]uint32
}

// of is the guest's number for the host's cookie c (0 stays 0).
func (c *inotifyCookies) of(host uint32) uint32 {
	if host == 0 {
		return 0
	}
	if c.guest == nil {
		c.guest = map[uint32]uint32{}
	}
	g, ok := c.guest[host]
	if !ok {
		g = uint32(len(c.guest) + 1)
		c.guest[host] = g
	}
	return g
}

// renumber rewrites the cookies of the events in buf, a read of an
// inotify instance.
func (c *inotifyCookies) renumber(buf []byte) {
	le := binary.LittleEndian
	for off := 0; off+inotifyEventSize <= len(buf); {
		le.PutUint32(buf[off+8:], c.of(le.Uint32(buf[off+8:])))
		off += inotifyEventSize + int(le.Uint32(buf[off+12:]))
	}
}

func sysInotifyInit(t *Task, a [6]uint64) (uint64, error) {
	return sysInotifyInit1(t, [6]uint64{0})
}

func sysInotifyInit1(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := a[0]
	if flags&^(inNonblock|inCloexec) != 0 {
		return 0, unix.EINVAL
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return 0, errnoOf(err)
	}
	f := &file{host: fd, path: "anon_inode:inotify", pipe: true, inotify: true, nonblock: flags&inNonblock != 0}
	gfd, err := p.fds.installFlags(f, 0, flags)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	return uint64(gfd), nil
}

// inotifyHost is the host descriptor the guest's fd stands for in an
// inotify call, for the host to check as Linux does: -1 (EBADF) for one
// not open; another kind of file's (EINVAL).
func (p *Process) inotifyHost(fd uint64) int {
	f, err := p.fds.get(fd)
	if err != nil {
		return -1
	}
	return f.host
}

func sysInotifyAddWatch(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	host, mask := p.inotifyHost(a[0]), uint32(a[2])
	path, err := p.readString(a[1])
	if err != nil {
		// The host checks the mask and the descriptor first, then
		// finds no path: EFAULT once they pass.
		_, _, e := unix.Syscall(unix.SYS_INOTIFY_ADD_WATCH, uintptr(host), 0, uintptr(mask))
		return 0, e
	}
	wd := 0
	_, err = p.resolve(path, func(hostPath string) (err error) {
		wd, err = unix.InotifyAddWatch(host, p.cwdRelative(hostPath), mask)
		return err
	})
	if err != nil {
		return 0, errnoOf(err)
	}
	return uint64(wd), nil
}

func sysInotifyRmWatch(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	_, err := unix.InotifyRmWatch(p.inotifyHost(a[0]), uint32(a[1]))
	return 0, errnoOrNil(err)
}

// readInotify reads f's events into buf, their cookies renumbered.
func (p *Process) readInotify(f *file, buf []byte) (int, error) {
	n, err := unix.Read(f.host, buf)
	if n > 0 {
		p.k.cookies.renumber(buf[:n])
	}
	return n, err
}
