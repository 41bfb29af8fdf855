package kernel

import (
	"fmt"
	"slices"
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

// The vmas are sorted and disjoint, so lookups search them: a program may
// keep thousands of mappings.

// from returns the index of the first vma that ends after addr.
func (m *addressSpace) from(addr uint64) int {
	return sort.Search(len(m.vmas), func(i int) bool { return m.vmas[i].end > addr })
}

func (m *addressSpace) insert(v vma) {
	m.vmas = slices.Insert(m.vmas, m.from(v.start), v)
}

func (m *addressSpace) overlaps(start, end uint64) bool {
	i := m.from(start)
	return i < len(m.vmas) && m.vmas[i].start < end
}

// mapped reports whether every page of [start, end) is mapped.
func (m *addressSpace) mapped(start, end uint64) bool {
	at := start
	for i := m.from(start); i < len(m.vmas) && at < end; i++ {
		if m.vmas[i].start > at {
			return false
		}
		at = m.vmas[i].end
	}
	return at >= end
}

// span splits the vmas at start and end and returns the index range of
// those in [start, end).
func (m *addressSpace) span(start, end uint64) (int, int) {
	m.split(start)
	m.split(end)
	i := m.from(start)
	j := i
	for j < len(m.vmas) && m.vmas[j].start < end {
		j++
	}
	return i, j
}

// pieces calls f for each mapped piece of [start, end), splitting vmas at
// the bounds first.
func (m *addressSpace) pieces(start, end uint64, f func(v *vma) error) error {
	i, j := m.span(start, end)
	for ; i < j; i++ {
		if err := f(&m.vmas[i]); err != nil {
			return err
		}
	}
	return nil
}

// split splits the vma holding at, if at is inside it.
func (m *addressSpace) split(at uint64) {
	i := m.from(at)
	if i == len(m.vmas) || m.vmas[i].start >= at {
		return
	}
	hi := m.vmas[i]
	hi.start = at
	m.vmas[i].end = at
	m.vmas = slices.Insert(m.vmas, i+1, hi)
}

// unmap removes every mapping in [start, end); unmapped parts are skipped,
// as munmap does. Translated code of removed executable pages is dropped.
func (m *addressSpace) unmap(start, end uint64) error {
	i, j := m.span(start, end)
	for n := i; n < j; n++ {
		v := m.vmas[n]
		err := m.cpu.Unmap(v.start, v.end-v.start)
		if err == nil && v.prot&emu.ProtExec != 0 {
			err = m.cpu.InvalidateCode(v.start, v.end-v.start)
		}
		if err != nil {
			m.vmas = slices.Delete(m.vmas, i, n)
			return err
		}
	}
	m.vmas = slices.Delete(m.vmas, i, j)
	return nil
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
	for i := m.from(start); i < len(m.vmas) && m.vmas[i].start < end; i++ {
		if m.vmas[i].prot&emu.ProtExec != 0 {
			return true
		}
	}
	return false
}

// at returns the vma holding addr.
func (m *addressSpace) at(addr uint64) (vma, bool) {
	if i := m.from(addr); i < len(m.vmas) && m.vmas[i].start <= addr {
		return m.vmas[i], true
	}
	return vma{}, false
}

// protAt and nameAt describe the mapping holding addr.
func (m *addressSpace) protAt(addr uint64) emu.Prot {
	v, _ := m.at(addr)
	return v.prot
}

func (m *addressSpace) nameAt(addr uint64) string {
	v, _ := m.at(addr)
	return v.name
}
