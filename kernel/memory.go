package kernel

import (
	"fmt"
	"sort"

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
}

// addressSpace tracks the guest's mappings and keeps the CPU's in step.
type addressSpace struct {
	cpu      CPU
	vmas     []vma // sorted, non-overlapping
	brkStart uint64
	brk      uint64
	mmapTop  uint64
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
	m.insert(vma{addr, addr + size, prot, name})
	if name == "[stack]" && m.mmapTop == 0 {
		m.mmapTop = addr + size - mmapGap
	}
	return nil
}

// Write implements loader.Memory.
func (m *addressSpace) Write(addr uint64, b []byte) error { return m.cpu.Write(addr, b) }

func (m *addressSpace) setBrk(end uint64) { m.brkStart, m.brk = end, end }

func (m *addressSpace) insert(v vma) {
	i := sort.Search(len(m.vmas), func(i int) bool { return m.vmas[i].start >= v.start })
	m.vmas = append(m.vmas, vma{})
	copy(m.vmas[i+1:], m.vmas[i:])
	m.vmas[i] = v
}

func (m *addressSpace) overlaps(start, end uint64) bool {
	for _, v := range m.vmas {
		if v.start < end && start < v.end {
			return true
		}
	}
	return false
}

// mapped reports whether every page of [start, end) is mapped.
func (m *addressSpace) mapped(start, end uint64) bool {
	at := start
	for _, v := range m.vmas {
		if v.end <= at || v.start >= end {
			continue
		}
		if v.start > at {
			return false
		}
		at = v.end
		if at >= end {
			return true
		}
	}
	return at >= end
}

// pieces calls f for each mapped piece of [start, end), splitting vmas at
// the bounds first.
func (m *addressSpace) pieces(start, end uint64, f func(v *vma) error) error {
	m.split(start)
	m.split(end)
	for i := range m.vmas {
		v := &m.vmas[i]
		if v.start >= start && v.end <= end {
			if err := f(v); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *addressSpace) split(at uint64) {
	for i, v := range m.vmas {
		if v.start < at && at < v.end {
			lo, hi := v, v
			lo.end, hi.start = at, at
			m.vmas[i] = lo
			m.vmas = append(m.vmas, vma{})
			copy(m.vmas[i+2:], m.vmas[i+1:])
			m.vmas[i+1] = hi
			return
		}
	}
}

// unmap removes every mapping in [start, end); unmapped parts are skipped,
// as munmap does. Translated code of removed executable pages is dropped.
func (m *addressSpace) unmap(start, end uint64) error {
	var keep []vma
	err := m.pieces(start, end, func(v *vma) error {
		if err := m.cpu.Unmap(v.start, v.end-v.start); err != nil {
			return err
		}
		if v.prot&emu.ProtExec != 0 {
			if err := m.cpu.InvalidateCode(v.start, v.end-v.start); err != nil {
				return err
			}
		}
		v.end = v.start // mark removed
		return nil
	})
	for _, v := range m.vmas {
		if v.end > v.start {
			keep = append(keep, v)
		}
	}
	m.vmas = keep
	return err
}

// protect changes the permissions of [start, end), which must be mapped.
func (m *addressSpace) protect(start, end uint64, prot emu.Prot) error {
	if !m.mapped(start, end) {
		return unix.ENOMEM
	}
	return m.pieces(start, end, func(v *vma) error {
		if err := m.cpu.Protect(v.start, v.end-v.start, prot); err != nil {
			return err
		}
		if (v.prot^prot)&emu.ProtExec != 0 {
			if err := m.cpu.InvalidateCode(v.start, v.end-v.start); err != nil {
				return err
			}
		}
		if v.prot&emu.ProtExec == 0 && prot&emu.ProtExec != 0 {
			if err := watchCode(m.cpu, v.start, v.end-v.start); err != nil {
				return err
			}
		}
		v.prot = prot
		return nil
	})
}

// findFree returns the highest free range of size bytes below mmapTop.
func (m *addressSpace) findFree(size uint64) (uint64, bool) {
	end := m.mmapTop
	for i := len(m.vmas) - 1; i >= 0; i-- {
		v := m.vmas[i]
		if v.start >= end {
			continue
		}
		if v.end <= end && end-v.end >= size {
			return end - size, true
		}
		end = min(end, v.start)
	}
	if end >= size+emu.PageSize*16 && end-size >= m.brk+mmapGap/4 {
		return end - size, true
	}
	return 0, false
}

// executable reports whether any page of [start, end) is mapped executable.
func (m *addressSpace) executable(start, end uint64) bool {
	for _, v := range m.vmas {
		if v.start < end && start < v.end && v.prot&emu.ProtExec != 0 {
			return true
		}
	}
	return false
}

// protAt and nameAt describe the mapping holding addr.
func (m *addressSpace) protAt(addr uint64) emu.Prot {
	for _, v := range m.vmas {
		if v.start <= addr && addr < v.end {
			return v.prot
		}
	}
	return 0
}

func (m *addressSpace) nameAt(addr uint64) string {
	for _, v := range m.vmas {
		if v.start <= addr && addr < v.end {
			return v.name
		}
	}
	return ""
}
