package kernel

import (
	"golang.org/x/sys/unix"
)

// splice and tee: moving (or copying) bytes between a pipe and another
// file, or two pipes, inside the host's kernel, whose pipes are icount's.
// A call that would block on a pipe icount made (non-blocking on the
// host) blocks the guest thread instead, as read and write on it do
// (transfer), unless SPLICE_F_NONBLOCK or the pipe's O_NONBLOCK says
// not to wait, as Linux reckons it. vmsplice is sys_vmsplice.go's.

// splice flags.
const (
	spliceFNonblock = 2
	spliceFAll      = 0xf // MOVE, NONBLOCK, MORE, GIFT
)

// isPipe reports whether f is a pipe (or FIFO) on the host.
func isPipe(f *file) bool {
	var st unix.Stat_t
	return unix.Fstat(f.host, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO
}

// spliceOffset reads the offset at addr (none for 0) for a side of a
// splice: ESPIPE for a pipe's, as Linux checks it before reading.
func (p *Process) spliceOffset(f *file, addr uint64) (*int64, error) {
	if addr == 0 {
		return nil, nil
	}
	if isPipe(f) {
		return nil, unix.ESPIPE
	}
	v, err := p.readU64(addr)
	if err != nil {
		return nil, err
	}
	off := int64(v)
	return &off, nil
}

// spliceWaits says whether a splice or tee with flags may wait on the
// pipes among in and out: not with SPLICE_F_NONBLOCK, nor when one of
// them is O_NONBLOCK; only icount's own pipes wait in icount (others, a
// standard descriptor's, wait in the host's kernel).
func spliceWaits(flags uint64, pipes ...*file) bool {
	if flags&spliceFNonblock != 0 {
		return false
	}
	waits := false
	for _, f := range pipes {
		if f.nonblock {
			return false
		}
		waits = waits || f.pipe
	}
	return waits
}

// hostStreamFlags is a splice's or tee's flags, without SPLICE_F_NONBLOCK
// when one side is a host stream (hoststream.go): the host side's pace
// must not give the guest EAGAIN, so the call waits on the host.
func (k *Kernel) hostStreamFlags(flags uint64, files ...*file) uint64 {
	for _, f := range files {
		if f.stream != 0 && !k.runPipe(f) {
			return flags &^ spliceFNonblock
		}
	}
	return flags
}

func sysSplice(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	length, flags := a[4], a[5]
	if length == 0 {
		return 0, nil
	}
	if flags&^spliceFAll != 0 {
		return 0, unix.EINVAL
	}
	in, out, err := p.fds.get2(a[0], a[2])
	if err != nil {
		return 0, err
	}
	offIn, err := p.spliceOffset(in, a[1])
	if err != nil {
		return 0, err
	}
	offOut, err := p.spliceOffset(out, a[3])
	if err != nil {
		return 0, err
	}
	var pipes []*file
	for _, f := range []*file{in, out} {
		if isPipe(f) {
			pipes = append(pipes, f)
		}
	}
	what := "splice from " + in.path + " (fd " + itoa(uint64(uint32(a[0]))) + ") to " + out.path
	n := int(min(length, maxIO))
	flags = p.k.hostStreamFlags(flags, in, out)
	return p.transfer([]*file{in, out}, ioWait{what: what, blocking: spliceWaits(flags, pipes...), sigpipe: true},
		func(int) (int, error) {
			m, err := unix.Splice(in.host, offIn, out.host, offOut, n, int(flags))
			return int(m), err
		},
		func(moved int) (uint64, error) {
			for _, o := range []struct {
				addr uint64
				off  *int64
			}{{a[1], offIn}, {a[3], offOut}} {
				if o.off != nil {
					if err := p.writeU64(o.addr, uint64(*o.off)); err != nil {
						return 0, err
					}
				}
			}
			if moved > 0 && !out.pipe && !out.stdio {
				p.stamp(out.host, false, true)
			}
			return uint64(moved), nil
		})
}

func sysTee(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	length, flags := a[2], a[3]
	if flags&^spliceFAll != 0 {
		return 0, unix.EINVAL
	}
	if length == 0 {
		return 0, nil
	}
	in, out, err := p.fds.get2(a[0], a[1])
	if err != nil {
		return 0, err
	}
	waits := isPipe(in) && isPipe(out) && spliceWaits(flags, in, out)
	what := "tee from " + in.path + " (fd " + itoa(uint64(uint32(a[0]))) + ")"
	n := int(min(length, maxIO))
	flags = p.k.hostStreamFlags(flags, in, out)
	return p.transfer([]*file{in, out}, ioWait{what: what, blocking: waits, sigpipe: true},
		func(int) (int, error) {
			m, err := unix.Tee(in.host, out.host, n, int(flags))
			return int(m), err
		},
		func(moved int) (uint64, error) { return uint64(moved), nil })
}
