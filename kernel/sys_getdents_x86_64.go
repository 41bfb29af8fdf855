package kernel

import (
	"bytes"
)

// sysGetdents is the old getdents of x86-64: struct linux_dirent puts
// d_type in the record's last byte, after the name, where linux_dirent64
// has it before the name; the records are the same size, so each of
// getdents64's is rearranged in place.
func sysGetdents(t *Task, a [6]uint64) (uint64, error) {
	p := t.proc
	buf, err := p.dirents(a[0], a[2])
	if err != nil {
		return 0, err
	}
	// linux_dirent64: d_ino, d_off (8 bytes each), d_reclen (2), d_type
	// (1), d_name; linux_dirent: d_ino, d_off, d_reclen, d_name, a NUL,
	// padding, d_type.
	for off := 0; off+19 < len(buf); {
		rec := buf[off : off+int(buf[off+16])|int(buf[off+17])<<8]
		if len(rec) < 20 {
			break
		}
		typ := rec[18]
		name := rec[19:]
		name = name[:max(bytes.IndexByte(name, 0), 0)]
		copy(rec[18:], name)
		clear(rec[18+len(name):])
		rec[len(rec)-1] = typ
		off += len(rec)
	}
	return uint64(len(buf)), p.writeMem(a[1], buf)
}
