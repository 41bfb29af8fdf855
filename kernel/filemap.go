package kernel

import (
	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// File mappings. A regular file's pages are the host's: the emulator's
// memory there is a private host mapping of the file (emu.CPU.MapFile),
// so that mapping a file costs no copy of it, and the guest sees what
// Linux shows a private mapping: the file's bytes, its own writes kept to
// itself, the file's later changes in the pages it has not written, and
// SIGBUS for a page wholly past the end of the file, when mapped or after
// a truncation (fileCut). A file the host cannot map (a device, most of
// /proc) is copied as it reads, its pages past what it gave reading zeros.

// mapFile fills the new mapping [addr, addr+size) of length bytes of f
// from offset off.
func (p *Process) mapFile(f *file, addr, size, length, off uint64) error {
	var st unix.Stat_t
	if err := unix.Fstat(f.host, &st); err != nil {
		return errnoOf(err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.ENODEV
	case unix.S_IFREG:
	default:
		return p.copyForMap(f, addr, length, off)
	}
	shown := uint64(0)
	if off < uint64(st.Size) {
		shown = min(length, uint64(st.Size)-off)
	}
	if shown > 0 {
		mapped, err := p.cpu.MapFile(addr, pageUp(shown), f.host, off)
		if err != nil {
			return err
		}
		if !mapped {
			return p.copyForMap(f, addr, shown, off)
		}
	} else if !hostMaps(f.host) {
		return nil // nothing to show: zeros, as copyForMap gives
	}
	p.k.showsFile(p.mm, addr, addr+size, idOf(&st), off)
	if beyond := addr + pageUp(shown); beyond < addr+size {
		if err := p.cpu.PastEOF(beyond, addr+size-beyond); err != nil {
			return err
		}
	}
	return nil
}

// showsFile records that [start, end), mapped in m, shows the file id from
// offset off, for a truncation of it to find (fileCut).
func (k *Kernel) showsFile(m *addressSpace, start, end uint64, id fileID, off uint64) {
	m.setFile(start, end, id, off)
	k.mappedFiles[id] = true
}

// programMemory is the address space a program and its interpreter are
// loaded into at exec, as the loader sees it: their segments show their
// files' pages where the host maps them, as mapFile's mappings do.
type programMemory struct {
	*addressSpace
	k *Kernel
}

// MapFile implements loader.FileMemory.
func (m programMemory) MapFile(addr, size uint64, fd int, off uint64) (bool, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return false, nil // the loader copies the bytes it holds
	}
	mapped, err := m.cpu.MapFile(addr, size, fd, off)
	if mapped && err == nil {
		m.k.showsFile(m.addressSpace, addr, addr+size, idOf(&st), off)
	}
	return mapped, err
}

// hostMaps reports whether the host can map the file open at fd.
func hostMaps(fd int) bool {
	b, err := unix.Mmap(fd, 0, int(emu.PageSize), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return false
	}
	unix.Munmap(b)
	return true
}

// copyForMap copies what a mapping at addr of length bytes of a file the
// host does not map from off shows: the bytes a read gives, at most
// maxIO at a time, up to the first short read.
func (p *Process) copyForMap(f *file, addr, length, off uint64) error {
	_, err := p.k.withIOBuffer(min(length, maxIO), func(buf []byte) (uint64, error) {
		done := uint64(0)
		for done < length {
			piece := buf[:min(uint64(len(buf)), length-done)]
			n, err := unix.Pread(f.host, piece, int64(off+done))
			if err != nil {
				return 0, errnoOf(err)
			}
			if err := p.cpu.Write(addr+done, piece[:n]); err != nil {
				return 0, err
			}
			done += uint64(n)
			if n < len(piece) {
				break
			}
		}
		return done, nil
	})
	return err
}

// setFile records that [start, end), mapped, shows the file id from
// offset off. A mapping reaching past either end (the loader's, with a
// segment's zero part) is split there: the rest is not the file's.
func (m *addressSpace) setFile(start, end uint64, id fileID, off uint64) {
	m.vmas.splitAt(start)
	m.vmas.splitAt(end)
	for v := range m.vmas.overlapping(start, end) {
		v.file, v.off = id, off+(v.start-start)
	}
}

// cutFiles is fileCut of the file open at the host descriptor fd, or of
// the file at path (relative to dir) when fd is -1, at its size now: call
// it after a call that may have made the file shorter.
func (k *Kernel) cutFiles(fd, dir int, path string) error {
	var st unix.Stat_t
	var err error
	if fd >= 0 {
		err = unix.Fstat(fd, &st)
	} else {
		err = unix.Fstatat(dir, path, &st, 0)
	}
	if err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil // no file, or none a mapping shows
	}
	return k.fileCut(idOf(&st), st.Size)
}

// fileCut makes the pages of every mapping of the file id that lie wholly
// past size, its new end, fault as Linux's do after a truncation
// (SIGBUS), in every address space of the run. Call it once the file is
// cut: its pages past the end would stop icount, on the host, at the next
// access. (A file made longer again leaves them so, where Linux would
// show the new bytes: a limit.)
func (k *Kernel) fileCut(id fileID, size int64) error {
	if !k.mappedFiles[id] {
		return nil
	}
	end := pageUp(uint64(max(size, 0)))
	done := map[*addressSpace]bool{}
	for _, p := range k.procs {
		m := p.mm
		if m == nil || done[m] {
			continue
		}
		done[m] = true
		for v := range m.vmas.all() {
			if v.file != id || v.off+(v.end-v.start) <= end {
				continue
			}
			start := v.start
			if end > v.off {
				start += end - v.off
			}
			if err := m.cpu.PastEOF(start, v.end-start); err != nil {
				return err
			}
		}
	}
	return nil
}
