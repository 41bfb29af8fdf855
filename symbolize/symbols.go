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

// candidate is a symbol that may name code: what symbolsOf sorts.
type candidate struct {
	value, size uint64
	rank        int
	name        string
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
	cands := codeSymbols(nil, execSections(f), syms, dyn, pltSymbols(f, syms, dyn))
	if dbg != nil {
		full, err := dbg.Symbols()
		if err != nil && !errors.Is(err, elf.ErrNoSymbols) && t.problem == "" {
			t.problem = fmt.Sprintf("its debug file's symbol table: %v", err)
		}
		cands = codeSymbols(cands, execSections(dbg), full)
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
		if i > 0 && cands[i-1] == s {
			continue // the same symbol in the object and its debug file
		}
		t.aliases = append(t.aliases, alias{s.name, s.value})
		if i > 0 && cands[i-1].value == s.value {
			continue // an alias of the one kept
		}
		fn := function{start: s.value, end: s.value + s.size, size: s.size, name: s.name}
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

// codeSymbols appends to cands the symbols of lists that may name code:
// functions, and named symbols of no type, in a section exec says holds
// code.
func codeSymbols(cands []candidate, exec []bool, lists ...[]elf.Symbol) []candidate {
	for _, list := range lists {
		for _, s := range list {
			typ := elf.ST_TYPE(s.Info)
			code := typ == elf.STT_FUNC || typ == elf.STT_NOTYPE && s.Name != "" && s.Section != elf.SHN_ABS
			if code && s.Value != 0 && s.Section != elf.SHN_UNDEF && int(s.Section) < len(exec) && exec[s.Section] {
				cands = append(cands, candidate{value: s.Value, size: s.Size, rank: symbolRank(s), name: s.Name})
			}
		}
	}
	return cands
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
