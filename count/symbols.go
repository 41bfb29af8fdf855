package count

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// function is one function's address range, relocated.
type function struct {
	start, end uint64
	size       uint64 // the symbol's own size in bytes; 0 when it gives none
	name       string
}

// symtab names the functions of one mapped object from its ELF symbols.
type symtab struct {
	module string // the object's file name
	base   uint64
	funcs  []function // sorted, non-overlapping
	// aliases is every symbol name, aliases too, with its entry: the
	// names byName looks up, indexed on first use (names).
	aliases []alias
	names   map[string]uint64
	// problem is what was wrong with a symbol table left out, "" if none.
	problem string
}

// alias is a symbol's name and its relocated entry.
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

// loadSymbols reads the symbols of the ELF file at path, loaded at base;
// a file icount cannot read has none.
func loadSymbols(path string, base uint64) *symtab {
	f, _, err := openELF(path)
	if err != nil {
		return &symtab{module: filepath.Base(path), base: base}
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

// candidate is a symbol that may name code: what symbolsOf sorts.
type candidate struct {
	value, size uint64
	rank        int
	name        string
}

// symbolsOf reads the symbols of f, the object module, loaded at base.
// Symbol tables debug/elf cannot read (or panics on) are left out, the
// problem noted.
func symbolsOf(f *elf.File, module string, base uint64) (t *symtab) {
	t = &symtab{module: module, base: base}
	defer func() {
		if p := recover(); p != nil {
			t = &symtab{module: module, base: base, problem: fmt.Sprintf("debug/elf failed on it (%v)", p)}
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
	exec := execSections(f)
	var cands []candidate
	for _, list := range [][]elf.Symbol{syms, dyn, pltSymbols(f, syms, dyn)} {
		for _, s := range list {
			typ := elf.ST_TYPE(s.Info)
			code := typ == elf.STT_FUNC || typ == elf.STT_NOTYPE && s.Name != "" && s.Section != elf.SHN_ABS
			if code && s.Value != 0 && s.Section != elf.SHN_UNDEF && int(s.Section) < len(exec) && exec[s.Section] {
				cands = append(cands, candidate{value: s.Value, size: s.Size, rank: symbolRank(s), name: s.Name})
			}
		}
	}
	// A total order: equal candidates are the same symbol listed twice.
	slices.SortFunc(cands, func(a, b candidate) int {
		if c := cmp.Compare(a.value, b.value); c != 0 {
			return c
		}
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.name), len(b.name)); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	t.aliases = make([]alias, 0, len(cands))
	for i, s := range cands {
		t.aliases = append(t.aliases, alias{s.name, base + s.value})
		if i > 0 && cands[i-1].value == s.value {
			continue // an alias of the one kept
		}
		fn := function{start: base + s.value, end: base + s.value + s.size, size: s.size, name: s.name}
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
	if t.names == nil {
		t.names = make(map[string]uint64, len(t.aliases))
		for _, a := range t.aliases {
			t.names[a.name] = a.entry // the last of a name repeated
		}
	}
	a, ok := t.names[name]
	return a, ok
}
