package count

import (
	"fmt"
	"path/filepath"

	"github.com/icount-dev/icount/kernel"
	"github.com/icount-dev/icount/profile"
	"github.com/icount-dev/icount/symbolize"
)

// anonModule names code in memory no file was mapped at (code a program
// generated itself).
const anonModule = "[anonymous]"

// module is one object the guest ran code from, at one load bias: the
// executable, its interpreter, each library ld.so mapped, or anonymous
// memory. What its file says about its code is read when first needed.
type module struct {
	name string // the file's base name: what reports call it
	path string // "" for anonymous memory
	bias uint64
	obj  *symbolize.Object // nil for anonymous memory
	code symbolize.Loaded  // obj at bias; knows no code for anonymous memory
	// resume is the entry of the Go runtime's gogo, whose jump resumes a
	// goroutine (emu.EndResume): 0 in a module that is not a Go program;
	// goexit0 the entry of runtime.goexit0, which a goroutine's end
	// calls; resumeKnown says they were looked up.
	resume, goexit0 uint64
	resumeKnown     bool
}

// qualName is a function's name and the module it lies in.
type qualName struct{ module, name string }

// named is a function as first seen.
type named struct {
	qualName
	mod *module
}

// modules finds the object holding each block the guest runs, when it is
// first seen: the kernel knows which file each executable mapping holds,
// including those ld.so maps while the program runs and those replaced
// later. Names are fixed at that time, so a module unmapped before the end
// of the run is still named.
type modules struct {
	maps    mappings
	main    *module          // the executable
	objects *symbolize.Cache // the object files read, shared by every image's modules
	mods    map[modKey]*module
	byLog   map[int]*module  // index of the kernel's executable mapping to its module
	names   map[uint64]named // function entries (and blocks with none) as first named
	anon    *module
}

// mappings is what modules needs of the kernel (kernel.Process).
type mappings interface {
	ExecMappings() []kernel.ExecMapping
	ExecMappingAt(addr uint64) (int, bool)
}

type modKey struct {
	path string
	bias uint64
}

func newModules(exePath string, exeBias uint64, objects *symbolize.Cache) *modules {
	ms := &modules{objects: objects, mods: map[modKey]*module{}, byLog: map[int]*module{},
		names: map[uint64]named{}, anon: &module{name: anonModule}}
	ms.main = ms.module(exePath, exeBias)
	return ms
}

// module returns the module of path loaded at bias, creating it.
func (ms *modules) module(path string, bias uint64) *module {
	k := modKey{path, bias}
	if m := ms.mods[k]; m != nil {
		return m
	}
	obj := ms.objects.Open(path)
	m := &module{name: filepath.Base(path), path: path, bias: bias, obj: obj, code: obj.At(bias)}
	ms.mods[k] = m
	return m
}

// biasOf is the load bias of the object mapped by m: what its addresses
// (symbols, DWARF) gain in memory, found from the PT_LOAD holding the
// mapped file offset. A file that is not ELF is taken as code at its
// offsets.
func (ms *modules) biasOf(m kernel.ExecMapping) uint64 {
	for _, p := range ms.objects.Open(m.Path).Loads {
		lo := p.Off &^ (pageSize - 1)
		if m.Offset >= lo && m.Offset < p.Off+p.Filesz {
			return m.Start - (m.Offset - p.Off + p.Vaddr)
		}
	}
	return m.Start - m.Offset
}

const pageSize = 4096

// at returns the module holding addr now, and the index of the kernel's
// executable mapping holding it (-1 if none).
func (ms *modules) at(addr uint64) (*module, int) {
	if ms.maps == nil {
		return ms.main, -1
	}
	i, ok := ms.maps.ExecMappingAt(addr)
	if !ok {
		return ms.anon, -1
	}
	if m := ms.byLog[i]; m != nil {
		return m, i
	}
	em := ms.maps.ExecMappings()[i]
	m := ms.anon
	if em.Path != "" {
		m = ms.module(em.Path, ms.biasOf(em))
	}
	ms.byLog[i] = m
	return m, i
}

// entry returns the entry of the function holding addr, 0 when no symbol
// covers it; either way the name is kept for the end of the run.
func (ms *modules) entry(addr uint64) uint64 {
	fn, _ := ms.place(addr)
	return fn
}

// place returns the entry of the function holding addr, as entry does,
// and the index of the kernel's executable mapping holding it (-1 if
// none).
func (ms *modules) place(addr uint64) (uint64, int) {
	m, i := ms.at(addr)
	return ms.entryIn(m, addr), i
}

// entryIn is entry, for addr in module m.
func (ms *modules) entryIn(m *module, addr uint64) uint64 {
	if f, ok := m.code.Function(addr); ok {
		if _, seen := ms.names[f.Start]; !seen {
			ms.names[f.Start] = named{qualName{m.name, f.Name}, m}
			m.code.ReadDeclaration(f.Start) // for the Profile (describe)
		}
		return f.Start
	}
	if _, seen := ms.names[addr]; !seen {
		ms.names[addr] = named{qualName{m.name, m.offsetName(addr)}, m}
	}
	return 0
}

// resumes says whether a block of the function entered at fn that ends in
// an indirect jump resumes a goroutine: whether fn is the Go runtime's
// gogo (the assembly function runtime.gogo jumps to, in a program that
// has both). When it does, goexit0 is the entry of that runtime's
// runtime.goexit0 (0 if it has none).
func (ms *modules) resumes(fn uint64) (goexit0 uint64, ok bool) {
	if n, ok := ms.names[fn]; !ok || n.name != "gogo" {
		return 0, false // the common case, known without looking further
	}
	m := ms.moduleAt(fn)
	if !m.resumeKnown {
		m.resumeKnown = true
		if _, goRuntime := m.code.Entry("runtime.gogo.abi0"); goRuntime {
			m.resume, _ = m.code.Entry("gogo")
			m.goexit0, _ = m.code.Entry("runtime.goexit0")
		}
	}
	return m.goexit0, fn != 0 && fn == m.resume
}

// nameOf names the function entered at entry (or the block at entry, when
// no symbol covered it): as when it was first seen, else by what holds it
// now.
func (ms *modules) nameOf(entry uint64) qualName {
	if n, ok := ms.names[entry]; ok {
		return n.qualName
	}
	m, _ := ms.at(entry)
	if m.obj == nil {
		return qualName{m.name, fmt.Sprintf("%s+%#x", m.name, entry)}
	}
	return qualName{m.name, m.code.Name(entry)}
}

// sizeOf is the size in bytes its symbol gives the function entered at
// entry; 0 when unknown.
func (ms *modules) sizeOf(entry uint64) uint64 {
	if f, ok := ms.moduleAt(entry).code.Function(entry); ok && f.Start == entry {
		return f.Size
	}
	return 0
}

// moduleAt returns the module the function entered at entry was found in.
func (ms *modules) moduleAt(entry uint64) *module {
	if n, ok := ms.names[entry]; ok {
		return n.mod
	}
	m, _ := ms.at(entry)
	return m
}

// where names the code at addr, for messages and backtraces.
func (ms *modules) where(addr uint64) profile.Location {
	m, _ := ms.at(addr)
	loc := profile.Location{Addr: addr, Module: m.name}
	if f, ok := m.code.Function(addr); ok {
		loc.Function, loc.Offset = f.Name, addr-f.Start
	}
	return loc
}

// offsetName names code no symbol covers: module+0xoffset, the offset in
// the object's own addresses; anonymous code by its address.
func (m *module) offsetName(addr uint64) string {
	if m.path == "" {
		return fmt.Sprintf("%#x", addr)
	}
	return fmt.Sprintf("%s+%#x", m.name, addr-m.bias)
}

// moduleOf returns the module a block was found in when first seen.
func (ms *modules) moduleOf(b *ranBlock) *module {
	if b.dec == nil {
		m, _ := ms.at(b.Addr)
		return m
	}
	if m := ms.byLog[b.dec.mapping]; m != nil {
		return m
	}
	return ms.anon
}

// profileMappings lists every range the guest made executable, as the
// kernel logged them, with the object each holds and what ran in it. Code
// first seen outside any of them (there should be none) is counted in a
// last, anonymous mapping, so that the mappings' instructions sum to the
// total.
func (ms *modules) profileMappings(blocks []ranBlock) []profile.Mapping {
	var log []kernel.ExecMapping
	if ms.maps != nil {
		log = ms.maps.ExecMappings()
	}
	out := make([]profile.Mapping, len(log))
	for i, em := range log {
		m := ms.byLog[i]
		if m == nil {
			m = ms.anon
			if em.Path != "" {
				m = ms.module(em.Path, ms.biasOf(em))
			}
		}
		mp := profile.Mapping{Start: em.Start, Limit: em.End, Offset: em.Offset, Bias: m.bias, File: em.Path, Module: m.name}
		if o := m.obj; o != nil {
			mp.Size, mp.SHA256, mp.BuildID = o.Size, o.SHA256, o.BuildID
		}
		out[i] = mp
	}
	var other *profile.Mapping
	for i := range blocks {
		b := &blocks[i]
		n := b.Executions*uint64(b.Instructions) - b.Cut
		mp := -1
		if b.dec != nil {
			mp = b.dec.mapping
		}
		if mp >= 0 && mp < len(out) {
			out[mp].Instructions += n
			out[mp].Blocks += b.Executions
			continue
		}
		if other == nil {
			other = &profile.Mapping{Start: b.Addr, Limit: b.Addr + uint64(b.Size), Module: anonModule}
		}
		other.Start, other.Limit = min(other.Start, b.Addr), max(other.Limit, b.Addr+uint64(b.Size))
		other.Instructions += n
		other.Blocks += b.Executions
	}
	if other != nil {
		out = append(out, *other)
	}
	return out
}
