package kernel

import (
	"unsafe"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// vmsplice: between the guest's memory and a pipe, by the host's
// vmsplice on icount's pipe. From a pipe (its read end) the bytes are
// copied into memory, as Linux copies them. Into a pipe, Linux lends the
// pipe the caller's pages: what the reader gets is what they hold when
// it reads. A copy is that only for pages given away (SPLICE_F_GIFT: the
// caller may not change them again), so a copy is made for those: the
// guest's bytes in fresh host pages at the same offsets in their pages,
// so that the pipe's buffers (one per page of each piece) fill as
// Linux's do; without SPLICE_F_GIFT the run stops. Linux waits (for room,
// for bytes) unless SPLICE_F_NONBLOCK, whatever the pipe's O_NONBLOCK.

// spliceFGift is SPLICE_F_GIFT.
const spliceFGift = 8

func sysVmsplice(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	flags := a[3]
	if flags&^spliceFAll != 0 {
		return 0, unix.EINVAL
	}
	f, err := p.fds.get(a[0])
	if err != nil {
		return 0, err
	}
	fl, err := unix.FcntlInt(uintptr(f.host), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_PATH != 0 {
		return 0, unix.EBADF
	}
	iov, err := p.readIovecs(a[1], a[2])
	if err != nil {
		return 0, err
	}
	if iovSize(iov) == 0 {
		return 0, nil
	}
	if !isPipe(f) {
		return 0, unix.EBADF
	}
	w := ioWait{what: "vmsplice on " + f.path + " (fd " + itoa(uint64(uint32(a[0]))) + ")", blocking: flags&spliceFNonblock == 0 && f.pipe}
	hostFlags := int(flags)
	if f.pipe {
		hostFlags |= spliceFNonblock // icount's pipe: the thread waits instead
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		size, _ := p.iovSpan(iov, emu.ProtWrite)
		if size == 0 {
			return 0, unix.EFAULT
		}
		buf := make([]byte, size)
		return p.transfer([]*file{f}, w, func(int) (int, error) {
			return unix.Vmsplice(f.host, []unix.Iovec{{Base: &buf[0], Len: uint64(len(buf))}}, hostFlags)
		}, func(n int) (uint64, error) { return uint64(n), p.scatter(iov, buf[:n]) })
	}
	if flags&spliceFGift == 0 {
		return 0, errUnsupported("vmsplice into a pipe without SPLICE_F_GIFT (Linux lends the pipe the caller's pages, which a copy is not)")
	}
	w.want, w.sigpipe = 1, true // room for some: Linux moves what fits
	return p.transfer([]*file{f}, w, func(int) (int, error) { return p.vmspliceCopy(f, iov, hostFlags) }, sentCount)
}

// vmspliceCopy vmsplices into f's host pipe a copy of the guest's bytes
// iov points at, up to the first that cannot be read, each piece at its
// offset in its page (at most maxIO bytes): EFAULT when the first cannot.
func (p *Process) vmspliceCopy(f *file, iov []iovec, flags int) (int, error) {
	var pages, size uint64
	for i, v := range iov {
		v.len = min(v.len, maxIO-size) // a short transfer is legal
		iov[i] = v
		size += v.len
		pages += (pageUp(v.base+v.len) - pageDown(v.base)) / emu.PageSize
	}
	mem, err := unix.Mmap(-1, 0, int(pages*emu.PageSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, errnoOf(err)
	}
	defer unix.Munmap(mem) // the pipe keeps the pages it was given
	var host []unix.Iovec
	at := uint64(0)
	for _, v := range iov {
		if v.len == 0 {
			continue
		}
		n := p.ioSpan(v.base, v.len, emu.ProtRead)
		if n > 0 {
			b, err := p.readMem(v.base, n)
			if err != nil {
				return 0, err
			}
			off := at + v.base%emu.PageSize
			copy(mem[off:], b)
			host = append(host, unix.Iovec{Base: (*byte)(unsafe.Pointer(&mem[off])), Len: n})
		}
		if n < v.len {
			break
		}
		at += (pageUp(v.base+v.len) - pageDown(v.base))
	}
	if len(host) == 0 {
		return 0, unix.EFAULT
	}
	return unix.Vmsplice(f.host, host, flags)
}
