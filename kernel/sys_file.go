package kernel

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// File-descriptor system calls: open, read, write, stat and friends, on
// host files with the permissions of the user running icount.

// maxIO bounds one read or write, as a short transfer is legal.
const maxIO = 16 << 20

// guestFDCWD is AT_FDCWD (-100) as the guest passes it.
const guestFDCWD = ^uint64(99)

func sysRead(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	size := p.ioSpan(a[1], min(a[2], maxIO), emu.ProtWrite)
	if size == 0 && a[2] > 0 {
		return emptyIO(f, a[2], func() (int, error) { return unix.Read(f.host, nil) })
	}
	return p.k.withIOBuffer(readRoom(f, size, -1), func(buf []byte) (uint64, error) {
		return p.readFile(f, a[0], buf, func(n int) (uint64, error) {
			return uint64(n), p.writeMem(a[1], buf[:n])
		})
	})
}

func sysWrite(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	size := p.ioSpan(a[1], min(a[2], maxIO), emu.ProtRead)
	if size == 0 && a[2] > 0 {
		return emptyIO(f, a[2], func() (int, error) { return unix.Write(f.host, nil) })
	}
	return p.writeFile(f, a[0], guestSource{p, []iovec{{a[1], size}}, size})
}

func sysPread64(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	size := p.ioSpan(a[1], min(a[2], maxIO), emu.ProtWrite)
	if size == 0 && a[2] > 0 {
		return emptyIO(f, a[2], func() (int, error) { return unix.Pread(f.host, nil, int64(a[3])) })
	}
	return p.k.withIOBuffer(readRoom(f, size, int64(a[3])), func(buf []byte) (uint64, error) {
		n, virt := p.readVirtual(f, buf)
		if !virt {
			var err error
			if n, err = unix.Pread(f.host, buf, int64(a[3])); err != nil {
				return 0, errnoOf(err)
			}
		}
		return uint64(n), p.writeMem(a[1], buf[:n])
	})
}

func sysPwrite64(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	size := p.ioSpan(a[1], min(a[2], maxIO), emu.ProtRead)
	if size == 0 && a[2] > 0 {
		return emptyIO(f, a[2], func() (int, error) { return unix.Pwrite(f.host, nil, int64(a[3])) })
	}
	src := guestSource{p, []iovec{{a[1], size}}, size}
	n, err := src.writePieces(0, ioPiece, func(b []byte, at int) (int, error) { return unix.Pwrite(f.host, b, int64(a[3])+int64(at)) })
	if err != nil {
		return 0, errnoOf(err)
	}
	if n > 0 {
		p.stamp(f.host, false, true)
	}
	return uint64(n), nil
}

func sysReadv(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	iov, err := p.readIovecs(a[1], a[2])
	if err != nil {
		return 0, err
	}
	// One read into one buffer, scattered afterwards: a pipe's bytes are
	// taken in one piece, as the real readv takes them.
	size, want := p.iovSpan(iov, emu.ProtWrite)
	if size == 0 {
		return emptyIO(f, want, func() (int, error) { return unix.Read(f.host, nil) })
	}
	return p.k.withIOBuffer(readRoom(f, size, -1), func(buf []byte) (uint64, error) {
		return p.readFile(f, a[0], buf, func(n int) (uint64, error) { return uint64(n), p.scatter(iov, buf[:n]) })
	})
}

func sysWritev(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	iov, err := p.readIovecs(a[1], a[2])
	if err != nil {
		return 0, err
	}
	// One host write, so that what the guest wrote in one call arrives in
	// one piece, as with the real writev.
	size, want := p.iovSpan(iov, emu.ProtRead)
	if size == 0 {
		return emptyIO(f, want, func() (int, error) { return unix.Write(f.host, nil) })
	}
	return p.writeFile(f, a[0], guestSource{p, iov, size})
}

// writeFile writes the guest's bytes src to f, the guest's descriptor fd:
// a socket's message whole, a host file's a piece at a time (iopieces.go).
func (p *Process) writeFile(f *file, fd uint64, src guestSource) (uint64, error) {
	if f.timer != nil || f.sigfd != nil {
		return 0, unix.EINVAL
	}
	if f.sock != nil {
		return p.k.withIOBuffer(src.size, func(buf []byte) (uint64, error) {
			if err := src.read(buf, 0); err != nil {
				return 0, err
			}
			return p.sockSend(f, fd, buf, 0, nil, nil, sentCount)
		})
	}
	what := "write to " + f.path + " (fd " + itoa(uint64(uint32(fd))) + ")"
	write := func(b []byte, _ int) (int, error) { return unix.Write(f.host, b) }
	if hook := p.k.opts.StreamWrite; hook != nil && f.stream != 0 {
		write = func(b []byte, _ int) (int, error) {
			return hook(f.host, b, func() (int, error) { return unix.Write(f.host, b) })
		}
	}
	return p.hostIO(f, what, int(src.size), func(done int) (int, error) { return src.writePieces(done, writePiece(f.host), write) },
		func(n int) (uint64, error) {
			if n > 0 && !f.pipe && !f.stdio {
				p.stamp(f.host, false, true)
			}
			return uint64(n), nil
		})
}

// hostIO runs op, a read or write on f's host descriptor starting at byte
// done of the transfer, and gives finish the bytes it moved. A host
// stream (hoststream.go) waits on the host until the transfer is done.
// Pipes and eventfds icount made are non-blocking on the host: when the
// guest did not ask for O_NONBLOCK, a transfer that would block blocks
// the guest thread instead (transfer). A write to a pipe with no reader left sends
// the writing thread SIGPIPE, as Linux does, and fails with EPIPE if the
// signal does not end the process.
func (p *Process) hostIO(f *file, what string, want int, op func(done int) (int, error), finish func(n int) (uint64, error)) (uint64, error) {
	if f.stream != 0 {
		return p.streamIO(f, what, false, want, op, finish) // (readFile reads one itself)
	}
	return p.transfer([]*file{f}, ioWait{what: what, want: want, blocking: f.pipe && !f.nonblock, sigpipe: true}, op, finish)
}

// ioWait says how a transfer on a file icount made waits.
type ioWait struct {
	what     string // for the deadlock report
	want     int    // a write: the bytes it moves before it completes
	blocking bool   // EAGAIN blocks the thread instead of failing
	sigpipe  bool   // EPIPE sends the thread SIGPIPE
	// timeout, if positive, ends a blocked transfer after that many
	// nanoseconds of guest time (SO_RCVTIMEO, SO_SNDTIMEO) with what
	// timedOut gives, or what moved, or EAGAIN.
	timeout  int64
	timedOut func() (uint64, error)
}

// transfer runs op as hostIO describes, on the files of the transfer (two
// for splice and tee), every one of them held while it waits. When
// w.blocking, a transfer that would block is tried again at every
// scheduling point until it moves something (a write: until it moved all
// w.want bytes, as a blocking write to a pipe does). When no thread can
// unblock it the scheduler ends the run as a deadlock, listing the wait as
// w.what.
func (p *Process) transfer(files []*file, w ioWait, op func(done int) (int, error), finish func(n int) (uint64, error)) (uint64, error) {
	moved := 0
	caller := p.k.cur
	try := func() (uint64, error, bool) {
		n, err := op(moved)
		if n > 0 {
			moved += n
		}
		switch {
		case err == nil && (moved >= w.want || !w.blocking):
		case err == nil, errors.Is(err, unix.EAGAIN) && w.blocking:
			if n > 0 {
				p.k.moved = true // a partial write to a pipe now full
			}
			return 0, nil, false // or nothing moved
		case moved == 0:
			if errors.Is(err, unix.EPIPE) && w.sigpipe {
				p.sendSIGPIPE(caller)
			}
			return 0, errnoOf(err), true
		}
		ret, err := finish(moved)
		return ret, err, true
	}
	if ret, err, done := try(); done {
		return ret, err
	}
	for _, f := range files {
		f.hold()
	}
	deadline := int64(noDeadline)
	if w.timeout > 0 {
		deadline = p.deadlineAfter(w.timeout)
	}
	timedOut := w.timedOut
	if timedOut == nil {
		timedOut = func() (uint64, error) {
			if moved > 0 {
				return finish(moved)
			}
			return 0, unix.EAGAIN
		}
	}
	return p.block(&wait{what: w.what, deadline: deadline, restartable: w.timeout <= 0, ready: try, timedOut: timedOut,
		release: func() {
			for _, f := range files {
				f.release()
			}
		}})
}

// hostDir converts a guest directory descriptor for *at calls.
func (p *Process) hostDir(dirfd uint64) (int, error) {
	if dirfd == guestFDCWD || int32(dirfd) == -100 {
		if p.cwd != nil {
			return p.cwd.fd, nil
		}
		return unix.AT_FDCWD, nil
	}
	f, err := p.fds.get(dirfd)
	if err != nil {
		return 0, err
	}
	return f.host, nil
}

// pathAt reads the path argument of an *at call and the host directory it
// is relative to.
func (p *Process) pathAt(dirfd, pathAddr uint64) (int, string, error) {
	path, err := p.readString(pathAddr)
	if err != nil {
		return 0, "", err
	}
	if filepath.IsAbs(path) {
		return unix.AT_FDCWD, path, nil // Linux looks no descriptor up for it
	}
	dir, err := p.hostDir(dirfd)
	return dir, path, err
}

func sysOpen(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.openat(guestFDCWD, a[0], a[1], a[2])
}

func sysOpenat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.openat(a[0], a[1], a[2], a[3])
}

func (p *Process) openat(dirfd, pathAddr, flags, mode uint64) (uint64, error) {
	dir, path, err := p.pathAt(dirfd, pathAddr)
	if err != nil {
		return 0, err
	}
	return p.openPath(dir, dirfd, path, flags, mode, unix.Openat)
}

// openPath opens the guest's path relative to the host directory dir (the
// guest's dirfd) with open on the host, after icount's own mapping: the
// files it answers itself (openVirtual), and the host file of path
// (resolve).
func (p *Process) openPath(dir int, dirfd uint64, path string, flags, mode uint64,
	open func(dir int, host string, flags int, mode uint32) (int, error)) (uint64, error) {
	if f, ok, err := p.openVirtual(path, flags); ok {
		if err != nil {
			return 0, err
		}
		p.k.noteOpen(path, -1, 0, false)
		gfd, err := p.fds.installFlags(f, 0, flags)
		if err != nil {
			unix.Close(f.host)
		}
		return uint64(gfd), err
	}
	return p.openHost(dir, dirfd, path, flags, mode, p.resolve, open)
}

// openHost opens path, relative to the host directory dir (the guest's
// dirfd), on the host: the host path lookup gives (resolve, or the path as
// it is), opened with open (openat, or openat2 with its resolve flags).
// A file it makes has the guest's umask, not icount's.
func (p *Process) openHost(dir int, dirfd uint64, path string, flags, mode uint64,
	lookup func(path string, op func(host string) error) (string, error),
	open func(dir int, host string, flags int, mode uint32) (int, error)) (uint64, error) {
	hostFlags := p.abi.openFlags(flags)
	fd := -1
	made := false
	// A FIFO opened to wait for its other end opens without waiting
	// (fifo.go): for a writer, ENXIO while no one reads.
	var fifo fifoID
	waitsFor := hostFlags&unix.O_NONBLOCK == 0 && hostFlags&unix.O_ACCMODE != unix.O_RDWR
	host, err := lookup(path, func(host string) (err error) {
		var st unix.Stat_t
		exists := (hostFlags&unix.O_CREAT != 0 || waitsFor) && unix.Fstatat(dir, host, &st, 0) == nil
		made = hostFlags&unix.O_CREAT != 0 && !exists || hostFlags&unix.O_TMPFILE == unix.O_TMPFILE
		opening := hostFlags
		if waitsFor = waitsFor && exists && st.Mode&unix.S_IFMT == unix.S_IFIFO; waitsFor {
			fifo, opening = fifoID{st.Dev, st.Ino}, opening|unix.O_NONBLOCK
		}
		fd, err = open(dir, host, opening|unix.O_CLOEXEC, uint32(mode))
		if waitsFor && errors.Is(err, unix.ENXIO) {
			fd, err = -1, nil
		}
		return err
	})
	if err != nil {
		return 0, errnoOf(err)
	}
	if waitsFor {
		events := int16(unix.POLLIN)
		if hostFlags&unix.O_ACCMODE == unix.O_WRONLY {
			events = unix.POLLOUT
		}
		return p.openFIFO(fifo, events, dir, host, hostFlags, fd, func(fd int) (uint64, error) {
			return p.installOpened(dirfd, host, fd, hostFlags, flags, false)
		})
	}
	if made {
		// Only when icount's umask gave another mode: a chmod shows as
		// an event to an inotify watch, where Linux's open makes none.
		var st unix.Stat_t
		if want := uint32(mode) & 0o7777 &^ p.umask; unix.Fstat(fd, &st) != nil || st.Mode&0o7777 != want {
			unix.Fchmod(fd, want)
		}
	}
	if made {
		p.madeFD(fd)
	} else if hostFlags&unix.O_TRUNC != 0 {
		p.stamp(fd, false, true)
		if err := p.k.cutFiles(fd, 0, ""); err != nil {
			unix.Close(fd)
			return 0, err
		}
	}
	return p.installOpened(dirfd, host, fd, hostFlags, flags, made)
}

// installOpened gives the guest a descriptor (the lowest free, with
// O_CLOEXEC as flags say) of fd, which open gave for host relative to
// the guest's dirfd with the host's hostFlags (made: creating it), and
// notes the file as opened.
func (p *Process) installOpened(dirfd uint64, host string, fd, hostFlags int, flags uint64, made bool) (uint64, error) {
	if d := p.dirPath(dirfd); d != "" && !filepath.IsAbs(host) {
		host = filepath.Join(d, host)
	}
	noted := host
	if !filepath.IsAbs(noted) {
		noted = filepath.Join(p.cwdPath(), noted) // the Profile names inputs by absolute paths
	}
	p.k.noteOpen(noted, fd, hostFlags, made)
	// O_NONBLOCK made the open itself not wait (a FIFO's for its other
	// end); the transfers are icount's to make wait or not.
	f := &file{host: fd, path: host, nonblock: hostFlags&unix.O_NONBLOCK != 0, stream: streamEvents(fd)}
	if id, ok := fifoOf(fd); ok {
		f.fifo, f.fills = id, true // non-blocking on the host (hoststream.go)
		setHostNonblock(fd, true)
	} else if f.nonblock {
		setHostNonblock(fd, false)
	}
	f.fills = f.fills || fillingDevice(fd)
	gfd, err := p.fds.installFlags(f, 0, flags)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	if f.fifo != (fifoID{}) {
		p.k.endFIFOOpens(f.fifo) // opens that waited for this end
	}
	return uint64(gfd), nil
}

func sysClose(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return 0, p.fds.close(int(int32(a[0])))
}

func sysLseek(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if f.fdDir != nil {
		return f.fdDir.seek(int64(a[1]), int(a[2]))
	}
	off, err := unix.Seek(f.host, int64(a[1]), int(a[2]))
	if err != nil {
		return 0, errnoOf(err)
	}
	return uint64(off), nil
}

// fstatFD is the host's stat of the file behind the guest descriptor fd.
func (p *Process) fstatFD(fd uint64) (*file, unix.Stat_t, error) {
	var st unix.Stat_t
	f, err := p.fds.get(fd)
	if err != nil {
		return nil, st, err
	}
	if err := unix.Fstat(f.host, &st); err != nil {
		return nil, st, errnoOf(err)
	}
	return f, st, nil
}

func (p *Process) putStat(addr uint64, st *unix.Stat_t) error {
	g := *st
	g.Uid, g.Gid = guestUID(st.Uid), guestGID(st.Gid)
	p.k.stamped(&g)
	g.Dev, g.Ino = p.k.guestDev(st.Dev), p.k.guestIno(st.Dev, st.Ino)
	return p.writeMem(addr, p.abi.stat(&g))
}

func sysFstat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	_, st, err := p.fstatFD(a[0])
	if err != nil {
		return 0, err
	}
	return 0, p.putStat(a[1], &st)
}

func sysStat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.fstatat(guestFDCWD, a[0], a[1], 0)
}

func sysLstat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.fstatat(guestFDCWD, a[0], a[1], unix.AT_SYMLINK_NOFOLLOW)
}

func sysNewfstatat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.fstatat(a[0], a[1], a[2], a[3])
}

func (p *Process) fstatat(dirfd, pathAddr, statAddr, flags uint64) (uint64, error) {
	dir, path, err := p.pathAt(dirfd, pathAddr)
	if err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if _, err := p.resolve(path, func(host string) error { return unix.Fstatat(dir, host, &st, int(flags)) }); err != nil {
		return 0, errnoOf(err)
	}
	return 0, p.putStat(statAddr, &st)
}

func sysStatx(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	var stx unix.Statx_t
	if _, err := p.resolve(path, func(host string) error { return unix.Statx(dir, host, int(a[2]), int(a[3]), &stx) }); err != nil {
		return 0, errnoOf(err)
	}
	stx.Uid, stx.Gid = guestUID(stx.Uid), guestGID(stx.Gid)
	p.k.stampedx(&stx)
	dev := unix.Mkdev(stx.Dev_major, stx.Dev_minor)
	stx.Ino = p.k.guestIno(dev, stx.Ino)
	gdev := p.k.guestDev(dev)
	stx.Dev_major, stx.Dev_minor = unix.Major(gdev), unix.Minor(gdev)
	// struct statx has one layout on every arch.
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&stx)), unsafe.Sizeof(stx))
	return 0, p.writeMem(a[4], raw)
}

// ioctl requests answered: for terminals, and O_NONBLOCK and the bytes
// waiting for any file (asm-generic numbering, shared by x86-64 and
// arm64).
const (
	tcgets     = 0x5401
	tiocgwinsz = 0x5413
	fionread   = 0x541b // the bytes a read would find
	fionbio    = 0x5421 // O_NONBLOCK on or off, as fcntl F_SETFL sets it
)

func sysIoctl(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	switch a[1] {
	case tcgets:
		t, err := unix.IoctlGetTermios(f.host, unix.TCGETS)
		if err != nil {
			return 0, errnoOf(err)
		}
		// The kernel's struct termios: four flags, c_line, c_cc[19].
		raw := unsafe.Slice((*byte)(unsafe.Pointer(t)), 36)
		return 0, p.writeMem(a[2], raw)
	case tiocgwinsz:
		w, err := unix.IoctlGetWinsize(f.host, unix.TIOCGWINSZ)
		if err != nil {
			return 0, errnoOf(err)
		}
		return 0, p.writeMem(a[2], unsafe.Slice((*byte)(unsafe.Pointer(w)), unsafe.Sizeof(*w)))
	case fionbio:
		on, err := p.readU32(a[2])
		if err != nil {
			return 0, err
		}
		f.nonblock = on != 0 // icount's state alone, as F_SETFL's
		return 0, nil
	case fionread:
		if !f.pipe && !p.k.runPipe(f) {
			break // a host stream's would tell the host side's pace
		}
		n, err := unix.IoctlGetInt(f.host, fionread)
		if err != nil {
			return 0, errnoOf(err)
		}
		return 0, p.writeU32(a[2], uint32(n))
	}
	// Other requests are terminal or device controls a regular program's
	// output does not depend on; a kernel answers them so for non-devices.
	return 0, unix.ENOTTY
}

// fcntl commands.
const (
	fDupfd        = 0
	fGetfd        = 1
	fSetfd        = 2
	fGetfl        = 3
	fSetfl        = 4
	fDupfdCloexec = 1030
	fSetpipeSz    = 1031
	fGetpipeSz    = 1032
)

// pipeMaxSize is the largest pipe an unprivileged process may ask for,
// Linux's default /proc/sys/fs/pipe-max-size (the guest's answer does not
// follow the host's setting, and icount run by root may pass it).
const pipeMaxSize = 1 << 20

// fcntlPipeSize answers F_GETPIPE_SZ and F_SETPIPE_SZ from the host
// descriptor, which is the pipe itself (icount's pipes are host pipes; for
// a host file or socket the host answers EBADF), and EBADF for what icount
// makes that is no pipe (a Unix socket, an eventfd, a timerfd or
// signalfd, an epoll, a generated file, whatever its host descriptor). A
// size is rounded as Linux's round_pipe_size does (the argument is an
// unsigned int): up to a page, up to a power of two, none past 2^31
// (EINVAL); past pipeMaxSize an unprivileged process gets EPERM.
func fcntlPipeSize(f *file, cmd, arg uint64) (uint64, error) {
	if f.sock != nil || f.counted || f.timer != nil || f.sigfd != nil || f.epoll || f.virt != virtNone || f.fdDir != nil {
		return 0, unix.EBADF
	}
	n, err := unix.FcntlInt(uintptr(f.host), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		return 0, errnoOf(err)
	}
	if cmd == fGetpipeSz {
		return uint64(n), nil
	}
	size := uint64(uint32(arg))
	if size > 1<<31 {
		return 0, unix.EINVAL
	}
	rounded := uint64(emu.PageSize)
	for rounded < size {
		rounded <<= 1
	}
	if rounded > pipeMaxSize {
		return 0, unix.EPERM
	}
	n, err = unix.FcntlInt(uintptr(f.host), unix.F_SETPIPE_SZ, int(rounded))
	if err != nil {
		return 0, errnoOf(err)
	}
	return uint64(n), nil
}

// portableStatusFlags are the file status flags F_GETFL reports.
const portableStatusFlags = unix.O_ACCMODE | unix.O_PATH | unix.O_APPEND | unix.O_NONBLOCK | unix.O_DSYNC | unix.O_SYNC | unix.O_ASYNC | unix.O_NOATIME

func sysFcntl(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	switch a[1] {
	case fDupfd, fDupfdCloexec:
		if uint64(uint32(a[2])) >= uint64(p.fds.max()) {
			return 0, unix.EINVAL // at or past RLIMIT_NOFILE, negative too
		}
		flags := uint64(0)
		if a[1] == fDupfdCloexec {
			flags = oCloexec
		}
		fd, err := p.fds.installFlags(f, int(uint32(a[2])), flags)
		return uint64(fd), err
	case fGetfd:
		if p.fds.cloexec[int(int32(a[0]))] {
			return 1, nil // FD_CLOEXEC
		}
		return 0, nil
	case fSetfd:
		if a[2]&1 != 0 {
			p.fds.cloexec[int(int32(a[0]))] = true
		} else {
			delete(p.fds.cloexec, int(int32(a[0])))
		}
		return 0, nil
	case fGetfl:
		fl, err := unix.FcntlInt(uintptr(f.host), unix.F_GETFL, 0)
		if err != nil {
			return 0, errnoOf(err)
		}
		// O_NONBLOCK is the guest's: the host's is icount's choice
		// (set on its pipes, clear on others unless the host side set it).
		fl = fl&^unix.O_NONBLOCK | boolInt(f.nonblock)*unix.O_NONBLOCK
		// Only the flags numbered alike on every guest arch: the host's
		// O_LARGEFILE and O_DIRECT bits mean other flags on arm64.
		return uint64(fl & portableStatusFlags), nil
	case fSetfl:
		// The guest's O_NONBLOCK is icount's state (hostIO); the host
		// descriptor's stays as it is.
		fl := int(a[2])&unix.O_APPEND | boolInt(f.pipe || hostNonblock(f.host))*unix.O_NONBLOCK
		if _, err := unix.FcntlInt(uintptr(f.host), unix.F_SETFL, fl); err != nil {
			return 0, errnoOf(err)
		}
		f.nonblock = a[2]&unix.O_NONBLOCK != 0
		return 0, nil
	case fGetlk, fSetlk, fSetlkw, fOFDGetlk, fOFDSetlk, fOFDSetlkw:
		return p.fcntlLock(f, a[0], a[1], a[2])
	case fAddSeals, fGetSeals:
		return fcntlSeals(f, a[1], a[2])
	case fGetpipeSz, fSetpipeSz:
		return fcntlPipeSize(f, a[1], a[2])
	}
	return 0, errUnsupported("fcntl command " + itoa(a[1]))
}

func sysDup(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	fd, err := p.fds.install(f, 0)
	return uint64(fd), err
}

func sysDup2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil || a[0] == a[1] {
		return a[1], err // dup2 of a descriptor onto itself closes nothing
	}
	return a[1], p.fds.installAt(f, int(int32(a[1])))
}

func sysDup3(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	if a[0] == a[1] || a[2]&^oCloexec != 0 {
		return 0, unix.EINVAL
	}
	if _, err := sysDup2(t, a); err != nil {
		return 0, err
	}
	if a[2]&oCloexec != 0 {
		p.fds.cloexec[int(int32(a[1]))] = true
	}
	return a[1], nil
}

func sysPipe(t *Task, a [6]uint64) (uint64, error) {
	return sysPipe2(t, [6]uint64{a[0], 0})
}

func sysPipe2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	var host [2]int
	if err := unix.Pipe2(host[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return 0, errnoOf(err)
	}
	nonblock := a[1]&unix.O_NONBLOCK != 0
	var ends [2]*file
	for i := range ends {
		ends[i] = &file{host: host[i], path: "pipe", pipe: true, nonblock: nonblock}
	}
	fds, err := p.installPair(ends, a[1])
	if err != nil {
		return 0, err
	}
	return 0, p.putFDPair(a[0], fds)
}

func sysReadlink(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.readlinkat(guestFDCWD, a[0], a[1], a[2])
}

func sysReadlinkat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.readlinkat(a[0], a[1], a[2], a[3])
}

func (p *Process) readlinkat(dirfd, pathAddr, buf, size uint64) (uint64, error) {
	dir, path, err := p.pathAt(dirfd, pathAddr)
	if err != nil {
		return 0, err
	}
	var target string
	// /proc/self/exe is the link, /icount/exe/NAME the binary's own path
	// (a link only where the host's is one: Debian's python3 to python3.11).
	q, file := p.procFile(path)
	if q != nil && file == "exe" {
		target = q.exePath()
	} else if q != nil && file == "" && (path == "/proc/self" || path == "/proc/thread-self") {
		target = itoa(uint64(q.pid)) // the guest's pid, not icount's
		if path == "/proc/thread-self" {
			target += "/task/" + itoa(uint64(p.k.cur.tid))
		}
	} else if q != nil && file == "cwd" {
		target = p.k.tmpGuest(q.cwdPath()) // the guest's, not icount's
		p.k.in.cwdRead = true
	} else if d := q.procFDDirAt(file); d != nil {
		target = "/proc/" + itoa(uint64(d.proc.pid)) + "/fd" // the guest's pid, not icount's
		if d.tasks {
			target = "/proc/" + itoa(uint64(d.proc.pid)) + "/task"
		}
	} else {
		b := make([]byte, maxPath)
		n := 0
		host, err := p.resolve(path, func(host string) (err error) { n, err = unix.Readlinkat(dir, host, b); return err })
		if err != nil {
			return 0, errnoOf(err)
		}
		// /proc/PID/fd/N names a file in the private /tmp by its host path,
		// and a pipe or socket by its inode, the guest's number of it.
		target = p.k.tmpGuest(string(b[:n]))
		if kind, ino, ok := anonInode(target); ok {
			var st unix.Stat_t
			if unix.Fstatat(dir, host, &st, 0) == nil && st.Ino == ino {
				target = kind + ":[" + itoa(p.k.guestIno(st.Dev, st.Ino)) + "]"
			}
		}
	}
	out := []byte(target)[:min(uint64(len(target)), size)]
	return uint64(len(out)), p.writeMem(buf, out)
}

// anonInode parses the link of a descriptor on a pipe or socket,
// "pipe:[INODE]" or "socket:[INODE]".
func anonInode(link string) (kind string, ino uint64, ok bool) {
	kind, rest, found := strings.Cut(link, ":[")
	if !found || (kind != "pipe" && kind != "socket") || !strings.HasSuffix(rest, "]") {
		return "", 0, false
	}
	ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64)
	return kind, ino, err == nil
}

// The guest sees its executable at a fixed path, so that a binary run from
// another directory does the same work: libc reads /proc/self/exe.
const exeDir = "/icount/exe/"

// exeParent is the parent of exeDir, which the guest sees as the parent of
// its binary's directory: an interpreter that walks up from its
// executable's directory by name, as Python's getpath does from
// /icount/exe/python3 to /icount and /icount/lib/python3.11, finds its
// prefix there, by a name that does not depend on where the binary lies.
const exeParent = "/icount"

// exePath is the path the guest knows its executable by: /icount/exe/NAME,
// for the first program and for every program exec'd, so that nothing a
// program does depends on its binary's directory (and a program exec'd
// does the work it does run alone).
func (p *Process) exePath() string { return exeDir + filepath.Base(p.exe.Path) }

// isExe reports whether path names the guest's own executable.
func (p *Process) isExe(path string) bool {
	q, file := p.procFile(path)
	return q == p && file == "exe" || path == p.exePath()
}

func sysAccess(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.faccessat(guestFDCWD, a[0], a[1], 0)
}

func sysFaccessat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.faccessat(a[0], a[1], a[2], 0)
}

func sysFaccessat2(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.faccessat(a[0], a[1], a[2], a[3])
}

func (p *Process) faccessat(dirfd, pathAddr, mode, flags uint64) (uint64, error) {
	dir, path, err := p.pathAt(dirfd, pathAddr)
	if err != nil {
		return 0, err
	}
	_, err = p.resolve(path, func(host string) error { return unix.Faccessat(dir, host, uint32(mode), int(flags)) })
	return 0, errnoOrNil(err)
}

func sysUnlinkat(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	dir, path, err := p.pathAt(a[0], a[1])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Unlinkat(dir, p.hostPath(path), int(a[2])))
}

func sysUnlink(t *Task, a [6]uint64) (uint64, error) {
	return sysUnlinkat(t, [6]uint64{guestFDCWD, a[0], 0})
}

func sysFtruncate(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if err := unix.Ftruncate(f.host, int64(a[1])); err != nil {
		return 0, errnoOf(err)
	}
	p.stamp(f.host, false, true)
	return 0, p.k.cutFiles(f.host, 0, "")
}

func sysFsync(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return 0, errnoOrNil(unix.Fsync(f.host))
}

func errnoOrNil(err error) error {
	if err == nil {
		return nil
	}
	return errnoOf(err)
}

// sysGetdents64 reads directory entries; struct linux_dirent64 has one
// layout on every arch, so the host's records pass through.
func sysGetdents64(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	buf, err := p.dirents(a[0], a[2])
	if err != nil {
		return 0, err
	}
	return uint64(len(buf)), p.writeMem(a[1], buf)
}

// dirents reads up to size bytes of the directory fd's linux_dirent64
// records, numbered with the guest's inode numbers.
func (p *Process) dirents(fd, size uint64) ([]byte, error) {
	f, err := p.fds.get(fd)
	if err != nil {
		return nil, err
	}
	if f.fdDir != nil {
		return f.fdDir.dirents(min(size, maxIO))
	}
	buf := make([]byte, min(size, maxIO))
	n, err := unix.Getdents(f.host, buf)
	if err != nil {
		return nil, errnoOf(err)
	}
	// Each linux_dirent64 starts with d_ino (8 bytes), d_off (8) and
	// d_reclen (2): its inode number is the guest's (ids.go).
	var st unix.Stat_t
	if unix.Fstat(f.host, &st) == nil {
		le := binary.LittleEndian
		for off := 0; off+18 <= n; {
			reclen := int(le.Uint16(buf[off+16:]))
			if reclen == 0 {
				break
			}
			le.PutUint64(buf[off:], p.k.guestIno(st.Dev, le.Uint64(buf[off:])))
			off += reclen
		}
	}
	return buf[:n], nil
}

// sysSendfile copies between two host descriptors, as the kernel does.
func sysSendfile(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	out, in, err := p.fds.get2(a[0], a[1])
	if err != nil {
		return 0, err
	}
	count := int(min(a[3], maxIO))
	if a[2] == 0 {
		n, err := unix.Sendfile(out.host, in.host, nil, count)
		if err != nil {
			return 0, errnoOf(err)
		}
		return uint64(n), nil
	}
	off, err := p.readU64(a[2])
	if err != nil {
		return 0, err
	}
	o := int64(off)
	n, err := unix.Sendfile(out.host, in.host, &o, count)
	if err != nil {
		return 0, errnoOf(err)
	}
	return uint64(n), p.writeU64(a[2], uint64(o))
}

// sysFadvise64 passes advice about a file's access pattern, which changes
// only the host's caching, to the host's file, whose kernel checks the
// descriptor (an O_PATH one is EBADF), the range and the advice; a pipe
// or socket icount made is ESPIPE, as Linux's.
func sysFadvise64(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	if f.pipe || f.sock != nil {
		return 0, unix.ESPIPE
	}
	if err := unix.Fadvise(f.host, int64(a[1]), int64(a[2]), int(int32(a[3]))); err != nil {
		return 0, errnoOf(err)
	}
	return 0, nil
}

// sysStatfs and sysFstatfs describe the host file system; struct statfs has
// one 120-byte layout on x86-64 and arm64.
func sysStatfs(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	path, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	return 0, p.putStatfs(a[1], func(st *unix.Statfs_t) error {
		_, err := p.resolve(path, func(host string) error { return unix.Statfs(p.cwdRelative(host), st) })
		return err
	})
}

func sysFstatfs(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return 0, p.putStatfs(a[1], func(st *unix.Statfs_t) error { return unix.Fstatfs(f.host, st) })
}

// putStatfs writes to addr the struct statfs that get fills from the host.
func (p *Process) putStatfs(addr uint64, get func(*unix.Statfs_t) error) error {
	var st unix.Statfs_t
	if err := get(&st); err != nil {
		return errnoOf(err)
	}
	return p.writeMem(addr, unsafe.Slice((*byte)(unsafe.Pointer(&st)), unsafe.Sizeof(st)))
}

// sysCopyFileRange copies between two host descriptors, as the kernel
// does, with the guest's offsets when it gives them.
func sysCopyFileRange(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	in, out, err := p.fds.get2(a[0], a[2])
	if err != nil {
		return 0, err
	}
	if in.virt != virtNone {
		return 0, unix.EINVAL // the guest falls back to read and write
	}
	var offs [2]*int64
	for i, addr := range []uint64{a[1], a[3]} {
		if addr != 0 {
			v, err := p.readU64(addr)
			if err != nil {
				return 0, err
			}
			o := int64(v)
			offs[i] = &o
		}
	}
	n, err := unix.CopyFileRange(in.host, offs[0], out.host, offs[1], int(min(a[4], maxIO)), int(a[5]))
	if err != nil {
		return 0, errnoOf(err)
	}
	for i, addr := range []uint64{a[1], a[3]} {
		if offs[i] != nil {
			if err := p.writeU64(addr, uint64(*offs[i])); err != nil {
				return 0, err
			}
		}
	}
	return uint64(n), nil
}

// Extended attributes are read from the host, as stat is: a listing shows
// the file's security context or ACL mark as natively.

func sysGetxattr(t *Task, a [6]uint64) (uint64, error) { return t.proc.getxattr(a, unix.Getxattr) }
func sysLgetxattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.getxattr(a, unix.Lgetxattr)
}

func sysFgetxattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return p.xattrValue(a[1], a[2], a[3], func(name string, buf []byte) (int, error) { return unix.Fgetxattr(f.host, name, buf) })
}

// getxattr reads the value of attribute a[1] of the file at path a[0]
// into a[2] (a[3] bytes; 0 asks for the size).
func (p *Process) getxattr(a [6]uint64, get func(path, name string, buf []byte) (int, error)) (uint64, error) {
	path, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	return p.xattrValue(a[1], a[2], a[3], func(name string, buf []byte) (n int, err error) {
		_, err = p.resolve(path, func(host string) (err error) { n, err = get(p.cwdRelative(host), name, buf); return err })
		return n, err
	})
}

func (p *Process) xattrValue(nameAddr, buf, size uint64, get func(name string, buf []byte) (int, error)) (uint64, error) {
	name, err := p.readString(nameAddr)
	if err != nil {
		return 0, err
	}
	return p.xattrRead(buf, size, func(b []byte) (int, error) { return unprivilegedGet(name, get, b) })
}

// xattrRead runs read with a buffer of size bytes (none for 0, which asks
// for the size) and copies what it read to the guest's buf.
func (p *Process) xattrRead(buf, size uint64, read func([]byte) (int, error)) (uint64, error) {
	var b []byte
	if size > 0 {
		b = make([]byte, min(size, 1<<16))
	}
	n, err := read(b)
	if err != nil {
		return 0, errnoOf(err)
	}
	if size == 0 {
		return uint64(n), nil
	}
	return uint64(n), p.writeMem(buf, b[:n])
}

func sysListxattr(t *Task, a [6]uint64) (uint64, error) { return t.proc.listxattr(a, unix.Listxattr) }
func sysLlistxattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	return p.listxattr(a, unix.Llistxattr)
}

func sysFlistxattr(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	return p.xattrRead(a[1], a[2], visibleNames(func(b []byte) (int, error) { return unix.Flistxattr(f.host, b) }))
}

// listxattr lists the attribute names of the file at path a[0] into a[1]
// (a[2] bytes; 0 asks for the size).
func (p *Process) listxattr(a [6]uint64, list func(path string, buf []byte) (int, error)) (uint64, error) {
	path, err := p.readString(a[0])
	if err != nil {
		return 0, err
	}
	return p.xattrRead(a[1], a[2], visibleNames(func(b []byte) (n int, err error) {
		_, err = p.resolve(path, func(host string) (err error) { n, err = list(p.cwdRelative(host), b); return err })
		return n, err
	}))
}
