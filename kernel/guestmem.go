package kernel

import (
	"bytes"
	"encoding/binary"

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
		if err := p.cpu.InvalidateCode(addr, uint64(len(b))); err != nil {
			return err
		}
		return watchCode(p.cpu, addr, uint64(len(b)))
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
	return v, nil
}

// iovSize is the bytes iov holds, at most maxIO.
func iovSize(iov []iovec) int {
	var size uint64
	for _, v := range iov {
		size += min(v.len, maxIO-size)
	}
	return int(size)
}

// gather reads the guest's buffers iov into one, at most maxIO bytes.
func (p *Process) gather(iov []iovec) ([]byte, error) {
	var buf []byte
	for _, v := range iov {
		b, err := p.readMem(v.base, min(v.len, maxIO-uint64(len(buf))))
		if err != nil {
			return nil, err
		}
		buf = append(buf, b...)
	}
	return buf, nil
}

// scatter writes data into the guest's buffers iov, in order.
func (p *Process) scatter(iov []iovec, data []byte) error {
	for _, v := range iov {
		if len(data) == 0 {
			break
		}
		part := data[:min(v.len, uint64(len(data)))]
		if err := p.writeMem(v.base, part); err != nil {
			return err
		}
		data = data[len(part):]
	}
	return nil
}
