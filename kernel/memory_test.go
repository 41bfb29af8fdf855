package kernel

import (
	"testing"

	"github.com/icount-dev/icount/emu"
)

// pageCPU is a CPU whose memory is a page map, for address-space tests.
type pageCPU struct {
	CPU
	pages       map[uint64]emu.Prot
	invalidated []uint64
}

func (c *pageCPU) Map(addr, size uint64, prot emu.Prot) error {
	for p := addr; p < addr+size; p += emu.PageSize {
		if _, ok := c.pages[p]; ok {
			panic("page mapped twice")
		}
		c.pages[p] = prot
	}
	return nil
}

func (c *pageCPU) Unmap(addr, size uint64) error {
	for p := addr; p < addr+size; p += emu.PageSize {
		if _, ok := c.pages[p]; !ok {
			panic("unmapping an unmapped page")
		}
		delete(c.pages, p)
	}
	return nil
}

func (c *pageCPU) Protect(addr, size uint64, prot emu.Prot) error {
	for p := addr; p < addr+size; p += emu.PageSize {
		c.pages[p] = prot
	}
	return nil
}

func (c *pageCPU) InvalidateCode(addr, size uint64) error {
	c.invalidated = append(c.invalidated, addr)
	return nil
}

const pg = emu.PageSize

func TestAddressSpaceSplitsAndKeepsCPUInStep(t *testing.T) {
	cpu := &pageCPU{pages: map[uint64]emu.Prot{}}
	m := newAddressSpace(cpu)
	rw, rx := emu.ProtRead|emu.ProtWrite, emu.ProtRead|emu.ProtExec
	if err := m.Map(0x10000, 8*pg, rw, "a"); err != nil {
		t.Fatal(err)
	}
	if err := m.Map(0x20000, 4*pg, rx, "code"); err != nil {
		t.Fatal(err)
	}
	if err := m.Map(0x10000+4*pg, pg, rw, "overlap"); err == nil {
		t.Error("an overlapping fixed mapping was accepted")
	}
	// Protect the middle of "a": three pieces.
	if err := m.protect(0x10000+2*pg, 0x10000+4*pg, emu.ProtRead); err != nil {
		t.Fatal(err)
	}
	if len(m.vmas) != 4 || cpu.pages[0x10000+2*pg] != emu.ProtRead || cpu.pages[0x10000+4*pg] != rw {
		t.Errorf("after protect: vmas %+v", m.vmas)
	}
	// Unmap across a hole and into the code: unmapped parts are skipped.
	if err := m.unmap(0x10000+6*pg, 0x20000+pg); err != nil {
		t.Fatal(err)
	}
	if _, ok := cpu.pages[0x20000]; ok || len(cpu.pages) != 6+3 {
		t.Errorf("after unmap: %d pages mapped", len(cpu.pages))
	}
	if len(cpu.invalidated) != 1 || cpu.invalidated[0] != 0x20000 {
		t.Errorf("translated code of unmapped executable pages not dropped: %v", cpu.invalidated)
	}
	if !m.mapped(0x10000, 0x10000+6*pg) || m.mapped(0x10000, 0x10000+7*pg) {
		t.Error("mapped() disagrees with the map")
	}
	if err := m.protect(0x10000+5*pg, 0x10000+7*pg, rw); err == nil {
		t.Error("protect over a hole must fail with ENOMEM")
	}
}

func TestFindFreeIsTopDownAndDeterministic(t *testing.T) {
	cpu := &pageCPU{pages: map[uint64]emu.Prot{}}
	m := newAddressSpace(cpu)
	top := uint64(0x7ffffffff000)
	if err := m.Map(top-(8<<20), 8<<20, emu.ProtRead|emu.ProtWrite, "[stack]"); err != nil {
		t.Fatal(err)
	}
	m.setBrk(0x500000)
	a, ok := m.findFree(4 * pg)
	if !ok || a != m.mmapTop-4*pg {
		t.Fatalf("first mmap at %#x", a)
	}
	m.Map(a, 4*pg, emu.ProtRead, "")
	b, _ := m.findFree(pg)
	if b != a-pg {
		t.Errorf("second mmap at %#x, want %#x", b, a-pg)
	}
}
