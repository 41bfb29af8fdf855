package count

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// function is one function's address range, relocated.
type function struct {
	start, end uint64
	name       string
}

// symtab names the functions of one mapped object from its ELF symbols.
type symtab struct {
	module string // the object's file name
	base   uint64
	funcs  []function        // sorted, non-overlapping
	names  map[string]uint64 // every symbol name, aliases too, to its entry
	// problem is what was wrong with a symbol table left out, "" if none.
	problem string
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

// loadSymbols reads the symbols of the ELF file at path, loaded at base;
// a file icount cannot read has none.
func loadSymbols(path string, base uint64) *symtab {
	f, _, err := openELF(path)
	if err != nil {
		return &symtab{module: filepath.Base(path), base: base, names: map[string]uint64{}}
	}
	defer f.Close()
	return symbolsOf(f, filepath.Base(path), base)
}

// openELF opens the ELF file at path, and says how big it is.
func openELF(path string) (*elf.File, uint64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	f, err := elf.Open(path)
	return f, uint64(st.Size()), err
}

// symbolsOf reads the symbols of f, the object module, loaded at base.
// Symbol tables debug/elf cannot read (or panics on) are left out, the
// problem noted.
func symbolsOf(f *elf.File, module string, base uint64) (t *symtab) {
	t = &symtab{module: module, base: base, names: map[string]uint64{}}
	defer func() {
		if p := recover(); p != nil {
			t = &symtab{module: module, base: base, names: map[string]uint64{}, problem: fmt.Sprintf("debug/elf failed on it (%v)", p)}
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
	var cands []elf.Symbol
	for _, s := range append(append(syms, dyn...), pltSymbols(f)...) {
		typ := elf.ST_TYPE(s.Info)
		code := typ == elf.STT_FUNC || typ == elf.STT_NOTYPE && s.Name != "" && s.Section != elf.SHN_ABS
		if code && s.Value != 0 && s.Section != elf.SHN_UNDEF && isExec(f, s.Section) {
			cands = append(cands, s)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.Value != b.Value {
			return a.Value < b.Value
		}
		if ra, rb := symbolRank(a), symbolRank(b); ra != rb {
			return ra < rb
		}
		if len(a.Name) != len(b.Name) {
			return len(a.Name) < len(b.Name)
		}
		return a.Name < b.Name
	})
	for i, s := range cands {
		t.names[s.Name] = base + s.Value
		if i > 0 && cands[i-1].Value == s.Value {
			continue // an alias of the one kept
		}
		fn := function{start: base + s.Value, end: base + s.Value + s.Size, name: s.Name}
		if s.Size == 0 {
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

func isExec(f *elf.File, idx elf.SectionIndex) bool {
	if int(idx) >= len(f.Sections) {
		return false
	}
	return f.Sections[idx].Flags&elf.SHF_EXECINSTR != 0
}

// lookup returns the function holding addr.
func (t *symtab) lookup(addr uint64) (function, bool) {
	i := sort.Search(len(t.funcs), func(i int) bool { return t.funcs[i].start > addr }) - 1
	if i < 0 || addr >= t.funcs[i].end {
		return function{}, false
	}
	return t.funcs[i], true
}

// entry returns the entry address of the function holding addr, 0 if no
// symbol covers it.
func (t *symtab) entry(addr uint64) uint64 {
	f, _ := t.lookup(addr)
	return f.start
}

// nameOf names the function entered at entry: its symbol, or module+0xoff.
func (t *symtab) nameOf(entry uint64) string {
	if f, ok := t.lookup(entry); ok && f.start == entry {
		return f.name
	}
	return fmt.Sprintf("%s+%#x", t.module, entry-t.base)
}

// name returns the function holding addr and the offset into it; ok is
// false when no symbol covers it.
func (t *symtab) name(addr uint64) (fn string, off uint64, ok bool) {
	f, ok := t.lookup(addr)
	if !ok {
		return "", 0, false
	}
	return f.name, addr - f.start, true
}

// function returns the name of the function holding addr, without offset.
func (t *symtab) function(addr uint64) string {
	f, _ := t.lookup(addr)
	return f.name
}

// byName returns the entry address of the named function.
func (t *symtab) byName(name string) (uint64, bool) {
	a, ok := t.names[name]
	return a, ok
}
