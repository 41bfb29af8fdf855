package kernel

import (
	"fmt"

	"github.com/icount-dev/icount/emu"
	"golang.org/x/sys/unix"
)

// Where mmap places mappings without a fixed address: top down from below
// the stack, as Linux does without address randomisation.
const mmapGap = 128 << 20

// vma is one mapped range of whole pages.
type vma struct {
	start, end uint64
	prot       emu.Prot
	name       string
	// file is the host file a file mapping shows (the zero fileID for
	// any other mapping), and off the offset in it of start: what a
	// truncation of the file finds (fileCut).
	file fileID
	off  uint64
}

func (v vma) bounds() (uint64, uint64) { return v.start, v.end }

func (v vma) clip(start, end uint64) vma {
	if v.file != (fileID{}) {
		v.off += start - v.start
	}
	v.start, v.end = start, end
	return v
}

// addressSpace tracks the guest's mappings and keeps the CPU's in step.
type addressSpace struct {
	cpu      CPU
	vmas     spans[vma] // a program may keep thousands (spans.go)
	brkStart uint64
	brk      uint64
	mmapTop  uint64
	// sharedAnon are the ranges mapped MAP_SHARED|MAP_ANONYMOUS: memory a
	// fork's child would share with its parent, which icount copies, so
	// a fork while one is still mapped is refused.
	sharedAnon [][2]uint64
	// sharedFile are the ranges mapped MAP_SHARED from a file (read-only
	// copies: remap_file_pages would remap those, sys_legacy.go).
	sharedFile [][2]uint64
	// locked are the pages mlock locked (sys_mlock.go).
	locked spans[lockedRange]
}

func newAddressSpace(cpu CPU) *addressSpace {
	return &addressSpace{cpu: cpu}
}

func pageUp(a uint64) uint64   { return (a + emu.PageSize - 1) &^ (emu.PageSize - 1) }
func pageDown(a uint64) uint64 { return a &^ (emu.PageSize - 1) }

// Map implements loader.Memory: a fixed mapping over nothing mapped.
func (m *addressSpace) Map(addr, size uint64, prot emu.Prot, name string) error {
	if m.overlaps(addr, addr+size) {
		return fmt.Errorf("mapping %#x-%#x overlaps an existing mapping", addr, addr+size)
	}
	if err := m.cpu.Map(addr, size, prot); err != nil {
		return err
	}
	m.vmas.insert(vma{start: addr, end: addr + size, prot: prot, name: name})
	if name == "[stack]" && m.mmapTop == 0 {
		m.mmapTop = addr + size - mmapGap
	}
	return nil
}

// Write implements loader.Memory.
func (m *addressSpace) Write(addr uint64, b []byte) error { return m.cpu.Write(addr, b) }

func (m *addressSpace) setBrk(end uint64) { m.brkStart, m.brk = end, end }

func (m *addressSpace) overlaps(start, end uint64) bool { return m.vmas.overlaps(start, end) }

// mapped reports whether every page of [start, end) is mapped.
func (m *addressSpace) mapped(start, end uint64) bool {
	at := start
	for v := range m.vmas.overlapping(start, end) {
		if v.start > at {
			return false
		}
		at = v.end
	}
	return at >= end
}

// unmap removes every mapping in [start, end); unmapped parts are skipped,
// as munmap does. Translated code of removed executable pages is dropped.
func (m *addressSpace) unmap(start, end uint64) error {
	m.locked.cut(start, end)
	gone := m.vmas.cut(start, end)
	for i, v := range gone {
		err := m.cpu.Unmap(v.start, v.end-v.start)
		if err == nil && v.prot&emu.ProtExec != 0 {
			err = m.cpu.InvalidateCode(v.start, v.end-v.start)
		}
		if err != nil {
			// The pieces from the one that failed on stay mapped here.
			for _, v := range gone[i:] {
				m.vmas.insert(v)
			}
			return err
		}
	}
	return nil
}

// protect changes the permissions of [start, end), which must be mapped.
func (m *addressSpace) protect(start, end uint64, prot emu.Prot) error {
	if !m.mapped(start, end) {
		return unix.ENOMEM
	}
	m.vmas.splitAt(start)
	m.vmas.splitAt(end)
	for v := range m.vmas.overlapping(start, end) {
		if err := m.cpu.Protect(v.start, v.end-v.start, prot); err != nil {
			return err
		}
		if (v.prot^prot)&emu.ProtExec != 0 {
			if err := m.cpu.InvalidateCode(v.start, v.end-v.start); err != nil {
				return err
			}
		}
		v.prot = prot
	}
	return nil
}

// findFree returns the highest free range of size bytes below mmapTop:
// above the last mapping that starts below mmapTop, if that one ends
// below it, else in the highest gap wide enough between mappings, else
// below the lowest mapping if that leaves room above the heap.
func (m *addressSpace) findFree(size uint64) (uint64, bool) {
	end := m.mmapTop
	if last, ok := m.vmas.lastBelow(end); ok {
		if last.end <= end && end-last.end >= size {
			return end - size, true
		}
		if at, ok := m.vmas.gapBelow(end, size); ok {
			return at - size, true
		}
		first, _ := m.vmas.first()
		end = first.start
	}
	if end >= size+emu.PageSize*16 && end-size >= m.brk+mmapGap/4 {
		return end - size, true
	}
	return 0, false
}

// executable reports whether any page of [start, end) is mapped executable.
func (m *addressSpace) executable(start, end uint64) bool {
	for v := range m.vmas.overlapping(start, end) {
		if v.prot&emu.ProtExec != 0 {
			return true
		}
	}
	return false
}

// at returns the vma holding addr.
func (m *addressSpace) at(addr uint64) (vma, bool) { return m.vmas.at(addr) }

// protAt and nameAt describe the mapping holding addr.
func (m *addressSpace) protAt(addr uint64) emu.Prot {
	v, _ := m.at(addr)
	return v.prot
}

func (m *addressSpace) nameAt(addr uint64) string {
	v, _ := m.at(addr)
	return v.name
}
