package count

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"sort"
)

// symtab names the function holding an address, from an ELF's symbols.
type symtab struct {
	module string // the object's file name
	base   uint64
	syms   []elf.Symbol // functions, sorted by address
}

func loadSymbols(path string, base uint64) *symtab {
	t := &symtab{module: filepath.Base(path), base: base}
	f, err := elf.Open(path)
	if err != nil {
		return t
	}
	defer f.Close()
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 || elf.ST_TYPE(s.Info) == elf.STT_NOTYPE && s.Section != elf.SHN_UNDEF && s.Name != "" && s.Value != 0 {
			t.syms = append(t.syms, s)
		}
	}
	sort.SliceStable(t.syms, func(i, j int) bool { return t.syms[i].Value < t.syms[j].Value })
	return t
}

// name returns "func+0xoff" for addr, or "" when no symbol covers it.
func (t *symtab) name(addr uint64) string {
	a := addr - t.base
	i := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].Value > a }) - 1
	if i < 0 {
		return ""
	}
	s := t.syms[i]
	if s.Size != 0 && a >= s.Value+s.Size {
		return ""
	}
	if a == s.Value {
		return s.Name
	}
	return fmt.Sprintf("%s+%#x", s.Name, a-s.Value)
}

// function returns the name of the function holding addr, without offset.
func (t *symtab) function(addr uint64) string {
	a := addr - t.base
	i := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].Value > a }) - 1
	if i < 0 || t.syms[i].Size != 0 && a >= t.syms[i].Value+t.syms[i].Size {
		return ""
	}
	return t.syms[i].Name
}
