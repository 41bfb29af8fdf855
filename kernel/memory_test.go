package kernel

import (
	"math/rand/v2"
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
	if vmas := collect(&m.vmas); len(vmas) != 4 || cpu.pages[0x10000+2*pg] != emu.ProtRead || cpu.pages[0x10000+4*pg] != rw {
		t.Errorf("after protect: vmas %+v", vmas)
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

// TestAddressSpaceAgreesWithPages maps, unmaps and protects ranges at
// random among hundreds of mappings, and checks every answer of the
// address space (which searches its sorted mappings) against the pages the
// CPU was told of.
func TestAddressSpaceAgreesWithPages(t *testing.T) {
	cpu := &pageCPU{pages: map[uint64]emu.Prot{}}
	m := newAddressSpace(cpu)
	rng := rand.New(rand.NewPCG(1, 2))
	const base, npages = 0x100000, 2048
	prots := []emu.Prot{emu.ProtRead, emu.ProtRead | emu.ProtWrite, emu.ProtRead | emu.ProtExec}
	mappedPages := func(start, end uint64) (all, any bool) {
		all = true
		for p := start; p < end; p += pg {
			_, ok := cpu.pages[p]
			all, any = all && ok, any || ok
		}
		return all, any
	}
	for i := 0; i < 5000; i++ {
		start := base + uint64(rng.IntN(npages))*pg
		end := start + uint64(1+rng.IntN(8))*pg
		prot := prots[rng.IntN(len(prots))]
		all, any := mappedPages(start, end)
		if m.overlaps(start, end) != any || m.mapped(start, end) != all {
			t.Fatalf("op %d: [%#x, %#x): overlaps %v mapped %v, pages say %v %v", i, start, end, m.overlaps(start, end), m.mapped(start, end), any, all)
		}
		switch rng.IntN(3) {
		case 0:
			if !any {
				if err := m.Map(start, end-start, prot, ""); err != nil {
					t.Fatal(err)
				}
			}
		case 1:
			if err := m.unmap(start, end); err != nil {
				t.Fatal(err)
			}
		case 2:
			if err := m.protect(start, end, prot); (err == nil) != all {
				t.Fatalf("op %d: protect [%#x, %#x) over mapped %v: %v", i, start, end, all, err)
			}
		}
		if i%100 != 0 {
			continue
		}
		vmas := collect(&m.vmas)
		for j := 1; j < len(vmas); j++ {
			if a, b := vmas[j-1], vmas[j]; a.start >= a.end || a.end > b.start {
				t.Fatalf("op %d: vmas out of order: %+v, %+v", i, a, b)
			}
		}
		for p := uint64(base); p < base+(npages+8)*pg; p += pg {
			want, ok := cpu.pages[p]
			if got := m.protAt(p); got != want || m.mapped(p, p+pg) != ok || m.executable(p, p+pg) != (want&emu.ProtExec != 0) {
				t.Fatalf("op %d: page %#x: prot %v mapped %v, want %v %v", i, p, got, m.mapped(p, p+pg), want, ok)
			}
		}
	}
}
