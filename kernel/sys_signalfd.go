package kernel

import (
	"encoding/binary"
	"math/bits"

	"golang.org/x/sys/unix"
)

// signalfd: a descriptor that takes the reading thread's pending signals
// of a set, as Linux's does: a read takes them (the thread's own first,
// then the process's, lowest number first) as struct signalfd_siginfo,
// blocks (or fails with EAGAIN) when there are none, and poll and epoll
// see it readable when there are, for the thread that polls. It is a host
// eventfd that icount makes readable or not before each poll and epoll
// wait (syncSignalfds), so that a host epoll instance can watch it.

// signalfd4 flags, alike on both arches.
const (
	sfdCloexec  = 0x80000 // O_CLOEXEC
	sfdNonblock = 0x800   // O_NONBLOCK
)

// signalfdSiginfoSize is the size of struct signalfd_siginfo.
const signalfdSiginfoSize = 128

// signalFD is the state of one signalfd.
type signalFD struct {
	mask  uint64
	ready bool // its host eventfd reads as readable
}

// sysSignalfd is signalfd (x86-64 only): signalfd4 with no flags.
func sysSignalfd(t *Task, a [6]uint64) (uint64, error) {
	return sysSignalfd4(t, [6]uint64{a[0], a[1], a[2], 0})
}

func sysSignalfd4(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := a[3]
	if flags&^(sfdCloexec|sfdNonblock) != 0 {
		return 0, unix.EINVAL
	}
	mask, err := p.readSigset(a[1], a[2])
	if err != nil {
		return 0, err
	}
	mask &^= unblockable
	if int32(a[0]) != -1 {
		f, err := p.fds.get(a[0])
		if err != nil {
			return 0, err
		}
		if f.sigfd == nil {
			return 0, unix.EINVAL
		}
		f.sigfd.mask = mask
		return a[0], nil
	}
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return 0, errnoOf(err)
	}
	f := &file{host: fd, path: "anon_inode:[signalfd]", pipe: true, nonblock: flags&sfdNonblock != 0,
		sigfd: &signalFD{mask: mask}}
	gfd, err := p.fds.installFlags(f, 0, flags)
	if err != nil {
		unix.Close(fd)
		return 0, err
	}
	return uint64(gfd), nil
}

// readSignalfd takes the pending signals of f's set for the reading
// thread t into buf, whole records only: EINVAL if buf has room for none,
// EAGAIN if none is pending.
func (p *Process) readSignalfd(t *Task, f *file, buf []byte) (int, error) {
	if len(buf) < signalfdSiginfoSize {
		return 0, unix.EINVAL
	}
	n := 0
	for n+signalfdSiginfoSize <= len(buf) {
		ready := t.sig.pending & f.sigfd.mask
		if ready == 0 {
			ready = p.sharedPending & f.sigfd.mask
		}
		if ready == 0 {
			break
		}
		sig := bits.TrailingZeros64(ready) + 1
		if info, ok := p.takePending(t, sig); ok {
			copy(buf[n:], info.signalfdSiginfo())
			n += signalfdSiginfoSize
		}
	}
	if n == 0 {
		return 0, unix.EAGAIN
	}
	return n, nil
}

// signalfdSiginfo lays the siginfo out as struct signalfd_siginfo.
func (i sigInfo) signalfdSiginfo() []byte {
	le := binary.LittleEndian
	si := i.bytes()
	b := make([]byte, signalfdSiginfoSize)
	le.PutUint32(b[0:], uint32(i.signo))
	copy(b[4:8], si[4:8]) // si_errno
	le.PutUint32(b[8:], uint32(i.code))
	switch {
	case i.code == siTimer:
		le.PutUint32(b[24:], le.Uint32(si[16:])) // ssi_tid: the timer's id
		le.PutUint32(b[32:], le.Uint32(si[20:])) // ssi_overrun
		le.PutUint32(b[44:], le.Uint32(si[24:])) // ssi_int
		le.PutUint64(b[48:], le.Uint64(si[24:])) // ssi_ptr
	case i.addr != 0:
		le.PutUint64(b[72:], i.addr)
	default:
		le.PutUint32(b[12:], le.Uint32(si[16:])) // ssi_pid
		le.PutUint32(b[16:], le.Uint32(si[20:])) // ssi_uid
		if i.signo == sigCHLD && i.code > 0 {
			le.PutUint32(b[40:], le.Uint32(si[24:])) // ssi_status
		} else if i.code < 0 {
			le.PutUint32(b[44:], le.Uint32(si[24:])) // ssi_int, of sigqueue's value
			le.PutUint64(b[48:], le.Uint64(si[24:])) // ssi_ptr
		}
	}
	return b
}

// syncSignalfds makes the host eventfd of each of the process's signalfds
// readable when a signal of its set is pending for t, the thread about to
// poll or wait on them, and not otherwise.
func (p *Process) syncSignalfds(t *Task) {
	for _, f := range p.fds.fds {
		sf := f.sigfd
		if sf == nil {
			continue
		}
		ready := p.pending(t)&sf.mask != 0
		switch {
		case ready && !sf.ready:
			unix.Write(f.host, binary.LittleEndian.AppendUint64(nil, 1))
		case !ready && sf.ready:
			unix.Read(f.host, make([]byte, 8))
		}
		sf.ready = ready
	}
}
