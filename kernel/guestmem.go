package kernel

import (
	"bytes"
	"encoding/binary"
	"errors"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// maxPath bounds a path string read from the guest, like PATH_MAX.
const maxPath = 4096

// readMem copies n bytes of guest memory at addr; EFAULT unless the guest
// may read them.
func (p *Process) readMem(addr, n uint64) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b := make([]byte, n)
	if err := p.cpu.ReadAsGuest(addr, b); err != nil {
		return nil, unix.EFAULT
	}
	return b, nil
}

// writeMem copies b into guest memory at addr; EFAULT unless the guest may
// write it. A write into executable memory discards its translated code.
func (p *Process) writeMem(addr uint64, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := p.cpu.WriteAsGuest(addr, b); err != nil {
		return unix.EFAULT
	}
	if p.mm.executable(addr, addr+uint64(len(b))) {
		return p.cpu.InvalidateCode(addr, uint64(len(b)))
	}
	return nil
}

func (p *Process) readU64(addr uint64) (uint64, error) {
	b, err := p.readMem(addr, 8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

func (p *Process) writeU64(addr, v uint64) error {
	return p.writeMem(addr, binary.LittleEndian.AppendUint64(nil, v))
}

func (p *Process) readU32(addr uint64) (uint32, error) {
	b, err := p.readMem(addr, 4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (p *Process) writeU32(addr uint64, v uint32) error {
	return p.writeMem(addr, binary.LittleEndian.AppendUint32(nil, v))
}

// readString reads a NUL-terminated string of at most maxPath bytes.
func (p *Process) readString(addr uint64) (string, error) {
	var out []byte
	chunk := make([]byte, 256)
	for len(out) < maxPath {
		// Read up to the end of the page, so a string at the end of a
		// mapping does not fault on the page after it.
		n := min(uint64(len(chunk)), emu.PageSize-addr%emu.PageSize)
		if err := p.cpu.ReadAsGuest(addr, chunk[:n]); err != nil {
			return "", unix.EFAULT
		}
		if i := bytes.IndexByte(chunk[:n], 0); i >= 0 {
			return string(append(out, chunk[:i]...)), nil
		}
		out = append(out, chunk[:n]...)
		addr += n
	}
	return "", unix.ENAMETOOLONG
}

// iovec is one element of a readv/writev vector.
type iovec struct{ base, len uint64 }

func (p *Process) readIovecs(addr, count uint64) ([]iovec, error) {
	if count > 1024 {
		return nil, unix.EINVAL
	}
	b, err := p.readMem(addr, 16*count)
	if err != nil {
		return nil, err
	}
	v := make([]iovec, count)
	for i := range v {
		v[i] = iovec{binary.LittleEndian.Uint64(b[16*i:]), binary.LittleEndian.Uint64(b[16*i+8:])}
	}
	// Linux checks every element before it moves a byte: EINVAL for a
	// negative length, then EFAULT for one reaching past user space.
	for _, e := range v {
		if int64(e.len) < 0 {
			return nil, unix.EINVAL
		}
	}
	for _, e := range v {
		if e.base > p.abi.userTop || e.len > p.abi.userTop-e.base {
			return nil, unix.EFAULT
		}
	}
	return v, nil
}

// ioSpan is how many of the n bytes at addr a transfer moves: those the
// guest may access as need (emu.ProtWrite for a read into them,
// emu.ProtRead for a write from them) up to the first it may not, as
// Linux's copies stop at a fault and the call returns the bytes done.
func (p *Process) ioSpan(addr, n uint64, need emu.Prot) uint64 {
	return p.cpu.Accessible(addr, n, need)
}

// iovSpan is ioSpan for a vector: the bytes a transfer moves (at most
// maxIO), through each element in turn up to the first fault, and the
// bytes the guest asked for.
func (p *Process) iovSpan(iov []iovec, need emu.Prot) (size, want uint64) {
	for _, v := range iov {
		n := min(v.len, maxIO-size)
		want += v.len
		got := p.ioSpan(v.base, n, need)
		size += got
		if got < n || size == maxIO {
			break
		}
	}
	return size, want
}

// emptyIO answers a transfer on f none of whose want bytes the guest may
// access (or of none, want 0). Linux checks the descriptor first (EBADF
// for one not open for the transfer, EISDIR, ESPIPE for pread on a pipe),
// which op, the transfer of no bytes on the host, checks too; then it
// fails a transfer whose first byte faults with EFAULT.
func emptyIO(f *file, want uint64, op func() (int, error)) (uint64, error) {
	if !f.counted {
		if _, err := op(); err != nil && !errors.Is(err, unix.EAGAIN) {
			return 0, errnoOf(err)
		}
	}
	if want > 0 {
		return 0, unix.EFAULT
	}
	return 0, nil
}
