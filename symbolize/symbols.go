package symbolize

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/icount-dev/icount/internal/radix"
)

// function is one function's address range, in the object's own
// addresses.
type function struct {
	start, end uint64
	size       uint64 // the symbol's own size in bytes; 0 when it gives none
	name       string
}

// symtab names the functions of one object from its ELF symbols, those of
// its separate debug file, its PLT stubs and its unwind tables, in the
// object's own addresses.
type symtab struct {
	module string     // the object's file name
	funcs  []function // sorted, non-overlapping
	// aliases is every symbol name, aliases too, with its entry: the
	// names byName looks up, indexed on first use (names).
	aliases []alias
	names   map[string]uint64
	index   sync.Once // makes names
	// problem is what was wrong with a symbol table left out, "" if none.
	problem string
}

// alias is a symbol's name and its entry.
type alias struct {
	name  string
	entry uint64
}

// symbolRank orders aliases at one address: the name a report shows is the
// function symbol, global before weak before local, then the shortest.
func symbolRank(s elf.Symbol) int {
	r := 0
	if elf.ST_TYPE(s.Info) != elf.STT_FUNC {
		r += 4
	}
	switch elf.ST_BIND(s.Info) {
	case elf.STB_WEAK:
		r++
	case elf.STB_LOCAL:
		r += 2
	}
	return r
}

// candidate is a symbol that may name code: what symbolsOf sorts. It
// holds no pointer (its name is an index in candidates.names), which
// makes sorting the tens of thousands of a library's debug file cheap.
type candidate struct {
	value, size uint64
	rank        int32
	name        int32
}

// candidates are the symbols that may name code, and their names.
type candidates struct {
	list  []candidate
	names []string
}

// compare is the candidates' total order: by value, rank, the name's
// length, the name, then the size. Equal candidates are the same symbol
// listed twice.
func (c *candidates) compare(a, b candidate) int {
	if d := cmp.Compare(a.value, b.value); d != 0 {
		return d
	}
	if d := cmp.Compare(a.rank, b.rank); d != 0 {
		return d
	}
	an, bn := c.names[a.name], c.names[b.name]
	if d := cmp.Compare(len(an), len(bn)); d != 0 {
		return d
	}
	if d := strings.Compare(an, bn); d != 0 {
		return d
	}
	return cmp.Compare(a.size, b.size)
}

// grow makes room for n more candidates.
func (c *candidates) grow(n int) {
	c.list, c.names = slices.Grow(c.list, n), slices.Grow(c.names, n)
}

// add appends a candidate.
func (c *candidates) add(value, size uint64, rank int, name string) {
	c.list = append(c.list, candidate{value: value, size: size, rank: int32(rank), name: int32(len(c.names))})
	c.names = append(c.names, name)
}

// symbolsOf reads the symbols of f, the object module, and the full
// symbol table of its separate debug file dbg (nil if none), whose
// addresses are f's. Symbol tables debug/elf cannot read (or panics on)
// are left out, the problem noted.
func symbolsOf(f, dbg *elf.File, module string) (t *symtab) {
	t = &symtab{module: module}
	defer func() {
		if p := recover(); p != nil {
			t = &symtab{module: module, problem: fmt.Sprintf("debug/elf failed on it (%v)", p)}
		}
	}()
	syms, err := f.Symbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) {
		t.problem = fmt.Sprintf("its symbol table: %v", err)
	}
	dyn, err := f.DynamicSymbols()
	if err != nil && !errors.Is(err, elf.ErrNoSymbols) && t.problem == "" {
		t.problem = fmt.Sprintf("its dynamic symbol table: %v", err)
	}
	var cands candidates
	ifuncs := syms // the symbols that may name the IFUNCs PLT stubs call
	if dbg != nil {
		dbgIfuncs, err := cands.debugSymbols(dbg)
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) && t.problem == "" {
			t.problem = fmt.Sprintf("its debug file's symbol table: %v", err)
		}
		ifuncs = append(slices.Clip(syms), dbgIfuncs...)
	}
	plt := pltSymbols(f, ifuncs, dyn)
	cands.grow(len(syms) + len(dyn) + len(plt))
	cands.codeSymbols(execSections(f), syms, dyn, plt)
	radix.SortFunc(cands.list, func(c *candidate) uint64 { return c.value }, cands.compare)
	names := cands.names
	t.aliases = make([]alias, 0, len(cands.list))
	t.funcs = make([]function, 0, len(cands.list))
	for i, s := range cands.list {
		name := names[s.name]
		if i > 0 {
			prev := cands.list[i-1]
			if prev.value == s.value && prev.size == s.size && prev.rank == s.rank && names[prev.name] == name {
				continue // the same symbol in the object and its debug file
			}
		}
		t.aliases = append(t.aliases, alias{name, s.value})
		if i > 0 && cands.list[i-1].value == s.value {
			continue // an alias of the one kept
		}
		fn := function{start: s.value, end: s.value + s.size, size: s.size, name: name}
		if s.size == 0 {
			fn.end = 0 // up to the next symbol
		}
		t.funcs = append(t.funcs, fn)
	}
	for i := range t.funcs {
		if next := i + 1; next < len(t.funcs) && (t.funcs[i].end == 0 || t.funcs[i].end > t.funcs[next].start) {
			t.funcs[i].end = t.funcs[next].start
		}
		if t.funcs[i].end == 0 {
			t.funcs[i].end = t.funcs[i].start + 1<<20
		}
	}
	t.addFrames(f, frameStarts(f))
	return t
}

// codeSymbols adds the symbols of lists that may name code (mayNameCode).
func (c *candidates) codeSymbols(exec []bool, lists ...[]elf.Symbol) {
	for _, list := range lists {
		for _, s := range list {
			if mayNameCode(s, exec) {
				c.add(s.Value, s.Size, symbolRank(s), s.Name)
			}
		}
	}
}

// mayNameCode says whether s may name code: a function, or a named symbol
// of no type, in a section exec says holds code. Its Name need only say
// whether it has one.
func mayNameCode(s elf.Symbol, exec []bool) bool {
	typ := elf.ST_TYPE(s.Info)
	code := typ == elf.STT_FUNC || typ == elf.STT_NOTYPE && s.Name != "" && s.Section != elf.SHN_ABS
	return code && s.Value != 0 && s.Section != elf.SHN_UNDEF && int(s.Section) < len(exec) && exec[s.Section]
}

// elf64SymSize is the size of an ELFCLASS64 symbol table entry.
const elf64SymSize = 24

// debugSymbols adds the symbols of the full symbol table (.symtab) of a
// separate debug file that may name code, and returns its IFUNC symbols
// (which name the PLT stubs of a static program's IRELATIVE slots). A library's holds tens of
// thousands, most of them not code, and every run of a program linked
// with it reads them: a 64-bit table is read in place, its string table
// made one string the names kept are parts of (a name is "" when its
// offset is out of the string table or it is not terminated, as
// debug/elf reads them).
func (c *candidates) debugSymbols(dbg *elf.File) (ifuncs []elf.Symbol, err error) {
	if dbg.Class != elf.ELFCLASS64 {
		full, err := dbg.Symbols()
		c.codeSymbols(execSections(dbg), full)
		return ifuncsOf(full), err
	}
	symtab := dbg.SectionByType(elf.SHT_SYMTAB)
	if symtab == nil {
		return nil, elf.ErrNoSymbols
	}
	data, err := symtab.Data()
	if err != nil {
		return nil, fmt.Errorf("cannot load symbol section: %w", err)
	}
	if len(data)%elf64SymSize != 0 {
		return nil, errors.New("length of symbol section is not a multiple of its entries' size")
	}
	if symtab.Link <= 0 || int(symtab.Link) >= len(dbg.Sections) {
		return nil, errors.New("section has invalid string table link")
	}
	strData, err := dbg.Sections[symtab.Link].Data()
	if err != nil {
		return nil, fmt.Errorf("cannot load string table section: %w", err)
	}
	strs := string(strData)
	exec := execSections(dbg)
	bo := dbg.ByteOrder
	c.grow(len(data) / elf64SymSize)
	for off := elf64SymSize; off+elf64SymSize <= len(data); off += elf64SymSize { // the first is the null symbol
		e := data[off : off+elf64SymSize]
		sym := elf.Symbol{Info: e[4], Other: e[5], Section: elf.SectionIndex(bo.Uint16(e[6:])),
			Value: bo.Uint64(e[8:]), Size: bo.Uint64(e[16:])}
		name := symbolName(strs, bo.Uint32(e))
		if name != "" {
			sym.Name = " " // mayNameCode asks only whether it has one
		}
		if mayNameCode(sym, exec) {
			c.add(sym.Value, sym.Size, symbolRank(sym), name)
		}
		if elf.ST_TYPE(sym.Info) == elf.STT_GNU_IFUNC {
			sym.Name = name
			ifuncs = append(ifuncs, sym)
		}
	}
	return ifuncs, nil
}

// ifuncsOf returns the IFUNC symbols of syms.
func ifuncsOf(syms []elf.Symbol) []elf.Symbol {
	var out []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC {
			out = append(out, s)
		}
	}
	return out
}

// symbolName returns the NUL-terminated name at off in strs; "" when off
// is out of strs or the name is not terminated.
func symbolName(strs string, off uint32) string {
	if uint64(off) >= uint64(len(strs)) {
		return ""
	}
	n := strings.IndexByte(strs[off:], 0)
	if n < 0 {
		return ""
	}
	return strs[off : off+uint32(n)]
}

// execSections says, by section index, which sections hold code.
func execSections(f *elf.File) []bool {
	exec := make([]bool, len(f.Sections))
	for i, s := range f.Sections {
		exec[i] = s.Flags&elf.SHF_EXECINSTR != 0
	}
	return exec
}

// lookup returns the function holding addr.
func (t *symtab) lookup(addr uint64) (function, bool) {
	i := sort.Search(len(t.funcs), func(i int) bool { return t.funcs[i].start > addr }) - 1
	if i < 0 || addr >= t.funcs[i].end {
		return function{}, false
	}
	return t.funcs[i], true
}

// byName returns the entry of the named function.
func (t *symtab) byName(name string) (uint64, bool) {
	t.index.Do(func() {
		t.names = make(map[string]uint64, len(t.aliases))
		for _, a := range t.aliases {
			t.names[a.name] = a.entry // the last of a name repeated
		}
	})
	a, ok := t.names[name]
	return a, ok
}
