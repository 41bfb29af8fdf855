package loader

import (
	"fmt"

	"github.com/icount-dev/icount/emu"
)

// Memory is the guest address space the loader maps into.
type Memory interface {
	// Map creates a fixed mapping of whole pages, zero filled; name says
	// what it holds (the file path, "[stack]").
	Map(addr, size uint64, prot emu.Prot, name string) error
	Write(addr uint64, b []byte) error
}

// Image is an executable mapped into guest memory.
type Image struct {
	Base     uint64 // load bias
	Entry    uint64 // relocated entry point
	Phdr     uint64 // guest address of the program headers
	Phnum    int
	Phent    int
	Start    uint64 // lowest mapped address
	End      uint64 // end of the highest segment, page aligned: the brk start
	ExecSize uint64 // bytes mapped executable
}

func pageDown(a uint64) uint64 { return a &^ (emu.PageSize - 1) }
func pageUp(a uint64) uint64   { return (a + emu.PageSize - 1) &^ (emu.PageSize - 1) }

// interpBase is the fixed load base of a position-independent interpreter
// (PT_INTERP) per guest arch: above the range mmap places mappings in and
// below the stack, so that the libraries ld.so maps go where they would
// without it.
var interpBase = map[emu.Arch]uint64{
	emu.X86_64: 0x7ffff8000000,
	emu.ARM64:  0xfffff8000000,
}

// InterpBase is the load bias an interpreter gets on arch: the fixed base
// for ET_DYN (every ld.so), 0 for a fixed-address ET_EXEC one.
func (e *Executable) InterpBase() uint64 {
	if e.PIE {
		return interpBase[e.Arch]
	}
	return 0
}

// Load maps the executable's segments into mem at its base.
func (e *Executable) Load(mem Memory) (*Image, error) {
	return e.LoadAt(mem, e.Base())
}

// LoadAt maps the segments into mem with base added to their addresses:
// Base() for the executable, InterpBase() for its interpreter.
func (e *Executable) LoadAt(mem Memory, base uint64) (*Image, error) {
	img := &Image{Base: base, Entry: base + e.Entry, Phnum: e.Phnum, Phent: e.Phent, Start: ^uint64(0)}
	// Pages shared by two segments get the union of their permissions.
	prot := map[uint64]emu.Prot{}
	var pages []uint64
	for _, s := range e.Segs {
		for p := pageDown(base + s.Vaddr); p < pageUp(base+s.Vaddr+s.Memsz); p += emu.PageSize {
			if _, ok := prot[p]; !ok {
				pages = append(pages, p)
			}
			prot[p] |= s.Prot
		}
	}
	// Map runs of contiguous pages with equal permissions.
	for i := 0; i < len(pages); {
		j := i + 1
		for j < len(pages) && pages[j] == pages[j-1]+emu.PageSize && prot[pages[j]] == prot[pages[i]] {
			j++
		}
		size := uint64(j-i) * emu.PageSize
		if err := mem.Map(pages[i], size, prot[pages[i]], e.Path); err != nil {
			return nil, fmt.Errorf("mapping %s at %#x: %w", e.Path, pages[i], err)
		}
		if prot[pages[i]]&emu.ProtExec != 0 {
			img.ExecSize += size
		}
		img.Start = min(img.Start, pages[i])
		img.End = max(img.End, pages[i]+size)
		i = j
	}
	for _, s := range e.Segs {
		addr := base + s.Vaddr
		if err := mem.Write(addr, e.data[s.Offset:s.Offset+s.Filesz]); err != nil {
			return nil, fmt.Errorf("loading %s at %#x: %w", e.Path, addr, err)
		}
		if s.Memsz > s.Filesz {
			if err := mem.Write(addr+s.Filesz, make([]byte, s.Memsz-s.Filesz)); err != nil {
				return nil, fmt.Errorf("zeroing bss of %s at %#x: %w", e.Path, addr+s.Filesz, err)
			}
		}
		// The program headers are visible to the guest through AT_PHDR
		// when a segment's file range covers them.
		if e.Phoff >= s.Offset && e.Phoff+uint64(e.Phnum*e.Phent) <= s.Offset+s.Filesz {
			img.Phdr = addr + e.Phoff - s.Offset
		}
	}
	return img, nil
}
