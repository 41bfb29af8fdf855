package loader

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sort"

	"github.com/icount-dev/icount/emu"
)

// Memory is the guest address space the loader maps into.
type Memory interface {
	// Map creates a fixed mapping of whole pages, zero filled; name says
	// what it holds (the file path, "[stack]").
	Map(addr, size uint64, prot emu.Prot, name string) error
	Write(addr uint64, b []byte) error
}

// FileMemory is a Memory that can show a file's pages in place of copies
// of its bytes, as Linux maps a program: host memory is then used only for
// the pages the guest touches, and shared with the host's page cache.
type FileMemory interface {
	Memory
	// MapFile makes [addr, addr+size) (whole pages, newly mapped by Map)
	// a private mapping of the file open at fd from offset off. It
	// reports false when the host cannot map it there: the pages then
	// read zeros, as before.
	MapFile(addr, size uint64, fd int, off uint64) (bool, error)
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
// Base() for the executable, InterpBase() for its interpreter. A segment's
// pages show the file's (mapFilePages) where mem and the layout allow,
// else its file bytes are written; the zero part of a segment (its .bss)
// is the fresh mapping's, so host memory is used when the guest touches
// it, but for what shares a page with the file bytes.
func (e *Executable) LoadAt(mem Memory, base uint64) (*Image, error) {
	img := &Image{Base: base, Entry: base + e.Entry, Phnum: e.Phnum, Phent: e.Phent, Start: ^uint64(0)}
	for _, r := range e.pageRuns(base) {
		if err := mem.Map(r.start, r.end-r.start, r.prot, e.Path); err != nil {
			return nil, fmt.Errorf("mapping %s at %#x: %w", e.Path, r.start, err)
		}
		if r.prot&emu.ProtExec != 0 {
			img.ExecSize += r.end - r.start
		}
		img.Start = min(img.Start, r.start)
		img.End = max(img.End, r.end)
	}
	mapped, all, err := e.mapFilePages(mem, base)
	if err != nil {
		return nil, err
	}
	for i, s := range e.Segs {
		addr := base + s.Vaddr
		if !all {
			if err := mem.Write(addr, e.data[s.Offset:s.Offset+s.Filesz]); err != nil {
				return nil, fmt.Errorf("loading %s at %#x: %w", e.Path, addr, err)
			}
		}
		// A page of the file holding the end of the file bytes shows the
		// file past them. Where a zero part follows, the rest of that
		// page is zeroed up to the next segment, as Linux's loader clears
		// it: ld.so's first allocations take that memory as zeros.
		if lo, hi := addr+s.Filesz, min(pageUp(addr+s.Filesz), e.nextStart(s, base)); mapped && s.Filesz > 0 && s.Memsz > s.Filesz && lo < hi {
			if err := mem.Write(lo, make([]byte, hi-lo)); err != nil {
				return nil, fmt.Errorf("zeroing bss of %s at %#x: %w", e.Path, lo, err)
			}
		}
		// Where an earlier segment's file bytes lie in this one's zero
		// part (segments sharing a page), they are zeroed.
		zlo, zhi := addr+s.Filesz, addr+s.Memsz
		for _, o := range e.Segs[:i] {
			lo, hi := max(zlo, base+o.Vaddr), min(zhi, base+o.Vaddr+o.Filesz)
			if lo < hi {
				if err := mem.Write(lo, make([]byte, hi-lo)); err != nil {
					return nil, fmt.Errorf("zeroing bss of %s at %#x: %w", e.Path, lo, err)
				}
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

// mapFilePages makes the pages of every segment's file bytes at base show
// the file (FileMemory.MapFile), if mem can and the file is open, and
// reports whether it mapped any and all. It maps none when two segments
// overlap in memory or share a page that would show different pages of
// the file. When the host refuses one, the rest are not asked: the file
// bytes are then written over every segment, mapped or not.
func (e *Executable) mapFilePages(mem Memory, base uint64) (mapped, all bool, err error) {
	fm, ok := mem.(FileMemory)
	if !ok || e.file == nil {
		return false, false, nil
	}
	type filePages struct{ lo, hi, off uint64 }
	var runs []filePages
	segs := slices.Clone(e.Segs)
	slices.SortFunc(segs, func(a, b Segment) int { return cmp.Compare(a.Vaddr, b.Vaddr) })
	for i, s := range segs {
		if i > 0 && segs[i-1].Vaddr+segs[i-1].Memsz > s.Vaddr {
			return false, false, nil
		}
		if s.Filesz == 0 {
			continue
		}
		addr := base + s.Vaddr
		r := filePages{pageDown(addr), pageUp(addr + s.Filesz), pageDown(s.Offset)}
		if k := len(runs) - 1; k >= 0 && runs[k].hi > r.lo && runs[k].lo-runs[k].off != r.lo-r.off {
			return false, false, nil
		}
		runs = append(runs, r)
	}
	defer runtime.KeepAlive(e) // its cleanup closes the file
	fd := int(e.file.Fd())
	for _, r := range runs {
		ok, err := fm.MapFile(r.lo, r.hi-r.lo, fd, r.off)
		if err != nil {
			return mapped, false, fmt.Errorf("mapping %s at %#x: %w", e.Path, r.lo, err)
		}
		if !ok {
			return mapped, false, nil
		}
		mapped = true
	}
	return mapped, true, nil
}

// nextStart is where the segment after s in memory starts at base (the
// end of the address space after the last).
func (e *Executable) nextStart(s Segment, base uint64) uint64 {
	next := ^uint64(0)
	for _, o := range e.Segs {
		if o.Vaddr > s.Vaddr {
			next = min(next, base+o.Vaddr)
		}
	}
	return next
}

// pageRun is a range of whole pages mapped with one protection.
type pageRun struct {
	start, end uint64
	prot       emu.Prot
}

// pageRuns are the pages the segments cover at base, in address order:
// runs of contiguous pages with equal permissions, a page shared by two
// segments getting the union of theirs. They are found from the
// segments' bounds, not page by page, so that a segment's size costs
// nothing.
func (e *Executable) pageRuns(base uint64) []pageRun {
	type edge struct {
		at    uint64
		prot  emu.Prot
		delta int // +1 where a segment's pages start, -1 where they end
	}
	var edges []edge
	for _, s := range e.Segs {
		edges = append(edges, edge{pageDown(base + s.Vaddr), s.Prot, 1}, edge{pageUp(base + s.Vaddr + s.Memsz), s.Prot, -1})
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].at < edges[j].at })
	var runs []pageRun
	var open [3]int // segments open with each of read, write and exec
	segs := 0       // segments open
	for i := 0; i < len(edges); {
		at := edges[i].at
		for ; i < len(edges) && edges[i].at == at; i++ {
			segs += edges[i].delta
			for b := range open {
				if edges[i].prot&(1<<b) != 0 {
					open[b] += edges[i].delta
				}
			}
		}
		if i == len(edges) {
			break
		}
		if segs == 0 {
			continue // a gap between segments
		}
		var prot emu.Prot
		for b, n := range open {
			if n > 0 {
				prot |= 1 << b
			}
		}
		next := edges[i].at
		if k := len(runs) - 1; k >= 0 && runs[k].end == at && runs[k].prot == prot {
			runs[k].end = next
		} else {
			runs = append(runs, pageRun{at, next, prot})
		}
	}
	return runs
}

// MappedSize is how many bytes of guest memory the segments map: what
// loading the executable counts against a bound on the address space.
func (e *Executable) MappedSize() uint64 {
	var n uint64
	for _, r := range e.pageRuns(e.Base()) {
		n += r.end - r.start
	}
	return n
}
