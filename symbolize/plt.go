package symbolize

import (
	"debug/elf"
	"encoding/binary"
	"slices"
	"sort"
	"strconv"
)

// Names for code a symbol table does not name: the PLT stubs through
// which a module calls into another (name@plt, from the relocation that
// fills the GOT slot each stub jumps through), and functions a stripped
// library keeps only in its unwind tables (.eh_frame_hdr lists every
// function with a frame description), named module+0xoffset.

// Relocation types naming the symbol a GOT slot is filled with.
var gotRelocs = map[elf.Machine]map[uint32]bool{
	elf.EM_X86_64:  {uint32(elf.R_X86_64_JMP_SLOT): true, uint32(elf.R_X86_64_GLOB_DAT): true},
	elf.EM_AARCH64: {uint32(elf.R_AARCH64_JUMP_SLOT): true, uint32(elf.R_AARCH64_GLOB_DAT): true},
}

// irelative is each arch's R_*_IRELATIVE: a slot filled by calling the
// resolver at the addend (an IFUNC, in static executables).
var irelative = map[elf.Machine]uint32{
	elf.EM_X86_64:  uint32(elf.R_X86_64_IRELATIVE),
	elf.EM_AARCH64: uint32(elf.R_AARCH64_IRELATIVE),
}

// slotNames maps GOT slot addresses to the symbol each is filled with, and
// lists the .rela.plt slots in order (the x86-64 lazy stubs push an index
// into it).
func slotNames(f *elf.File, syms, dyn []elf.Symbol) (map[uint64]string, []uint64) {
	ifuncs := map[uint64]string{} // resolver address to the IFUNC's name
	for _, list := range [][]elf.Symbol{syms, dyn} {
		for _, s := range list {
			if elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC && s.Value != 0 {
				ifuncs[s.Value] = s.Name
			}
		}
	}
	names := map[uint64]string{}
	var pltSlots []uint64
	for _, sec := range f.Sections {
		if sec.Type != elf.SHT_RELA || sec.Entsize != 24 {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		isPLT := sec.Name == ".rela.plt" || sec.Name == ".rela.iplt"
		for off := 0; off+24 <= len(data); off += 24 {
			slot := binary.LittleEndian.Uint64(data[off:])
			info := binary.LittleEndian.Uint64(data[off+8:])
			addend := binary.LittleEndian.Uint64(data[off+16:])
			typ, sym := uint32(info), info>>32
			if isPLT {
				pltSlots = append(pltSlots, slot)
			}
			switch {
			case gotRelocs[f.Machine][typ] && sym > 0 && int(sym) <= len(dyn):
				names[slot] = dyn[sym-1].Name
			case typ == irelative[f.Machine] && ifuncs[addend] != "":
				names[slot] = ifuncs[addend]
			}
		}
	}
	return names, pltSlots
}

// pltSymbols returns a symbol for each PLT stub of f whose GOT slot is
// named: name@plt, at the stub's address in the file, sized to the stub.
// syms and dyn are f's symbol tables, as debug/elf read them; syms also
// holds the IFUNC symbols of f's debug file when it has one.
func pltSymbols(f *elf.File, syms, dyn []elf.Symbol) []elf.Symbol {
	names, pltSlots := slotNames(f, syms, dyn)
	if len(names) == 0 {
		return nil
	}
	var out []elf.Symbol
	for i, sec := range f.Sections {
		if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_EXECINSTR == 0 {
			continue
		}
		switch sec.Name {
		case ".plt", ".plt.sec", ".plt.got", ".iplt":
		default:
			continue
		}
		code, err := sec.Data()
		if err != nil {
			continue
		}
		for _, st := range pltStubs(f.Machine, sec.Name, sec.Addr, code, sec.Entsize) {
			name := names[st.slot]
			if name == "" && st.index >= 0 && st.index < len(pltSlots) {
				name = names[pltSlots[st.index]]
			}
			if name == "" {
				continue
			}
			out = append(out, elf.Symbol{Name: name + "@plt", Value: st.addr, Size: st.size,
				Info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC), Section: elf.SectionIndex(i)})
		}
	}
	return out
}

// stub is one PLT entry: where it is, and the GOT slot it jumps through
// or, for a lazy x86-64 stub without one, the relocation index it pushes.
type stub struct {
	addr, size, slot uint64
	index            int // -1 if none
}

// pltStubs decodes the entries of a PLT section at addr.
func pltStubs(m elf.Machine, name string, addr uint64, code []byte, entsize uint64) []stub {
	var out []stub
	switch m {
	case elf.EM_X86_64:
		size := uint64(16)
		if name == ".plt.got" {
			size = 8
		}
		if entsize >= 8 && entsize <= 32 {
			size = entsize
		}
		le := binary.LittleEndian
		for off := uint64(0); off+size <= uint64(len(code)); off += size {
			e := code[off : off+size]
			st := stub{addr: addr + off, size: size, index: -1}
			for j := 0; j+6 <= len(e); j++ {
				switch {
				case e[j] == 0xff && e[j+1] == 0x25: // jmp *disp32(%rip)
					st.slot = addr + off + uint64(j) + 6 + uint64(int64(int32(le.Uint32(e[j+2:]))))
				case e[j] == 0x68 && st.slot == 0 && st.index < 0 && j+5 <= len(e): // push $index
					st.index = int(int32(le.Uint32(e[j+1:])))
				default:
					continue
				}
				if st.slot != 0 {
					break
				}
			}
			out = append(out, st)
		}
	case elf.EM_AARCH64:
		// Each 16-byte stub after the 32-byte header: adrp x16, page;
		// ldr x17, [x16, #off]; add x16, x16, #off; br x17.
		le := binary.LittleEndian
		for off := uint64(32); off+16 <= uint64(len(code)); off += 16 {
			adrp, ldr := le.Uint32(code[off:]), le.Uint32(code[off+4:])
			if adrp&0x9f00001f != 0x90000010 || ldr&0xffc003ff != 0xf9400211 {
				continue
			}
			imm := uint64(adrp>>29&3) | uint64(adrp>>5&0x7ffff)<<2
			page := (addr+off)&^0xfff + uint64(int64(imm<<43)>>31) // sign-extend 21 bits, times 4096
			out = append(out, stub{addr: addr + off, size: 16, slot: page + uint64(ldr>>10&0xfff)*8, index: -1})
		}
	}
	return out
}

// frameStarts returns the start of every function .eh_frame_hdr's search
// table lists, in the file's addresses, sorted. Tables in encodings other
// than the one linkers write (4-byte offsets from the header) are skipped.
func frameStarts(f *elf.File) []uint64 {
	sec := f.Section(".eh_frame_hdr")
	if sec == nil {
		return nil
	}
	b, err := sec.Data()
	if err != nil || len(b) < 12 || b[0] != 1 {
		return nil
	}
	const (
		pcrelSdata4   = 0x1b
		udata4        = 0x03
		datarelSdata4 = 0x3b
	)
	if b[1] != pcrelSdata4 || b[2] != udata4 || b[3] != datarelSdata4 {
		return nil
	}
	le := binary.LittleEndian
	n := uint64(le.Uint32(b[8:]))
	if n > uint64(len(b)-12)/8 {
		return nil
	}
	out := make([]uint64, 0, n)
	for i := uint64(0); i < n; i++ {
		out = append(out, sec.Addr+uint64(int64(int32(le.Uint32(b[12+8*i:])))))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// addFrames adds a function for each start in starts (sorted) that no
// symbol covers, named module+0xoffset and reaching to the
// next function.
func (t *symtab) addFrames(f *elf.File, starts []uint64) {
	add := make([]function, 0, len(starts))
	var names []byte // every added name, in one string
	var ends []int
	exec := execRanges(f)
	next := 0 // the first function starting after the frame start
	for _, s := range starts {
		for next < len(t.funcs) && t.funcs[next].start <= s {
			next++
		}
		covered := next > 0 && s < t.funcs[next-1].end
		if covered || !inRanges(exec, s) || len(add) > 0 && add[len(add)-1].start == s {
			continue
		}
		add = append(add, function{start: s})
		names = append(names, t.module...)
		names = append(names, "+0x"...)
		names = strconv.AppendUint(names, s, 16)
		ends = append(ends, len(names))
	}
	if len(add) == 0 {
		return
	}
	all := string(names)
	t.aliases = slices.Grow(t.aliases, len(add))
	for i := range add {
		from := 0
		if i > 0 {
			from = ends[i-1]
		}
		add[i].name = all[from:ends[i]]
		t.aliases = append(t.aliases, alias{add[i].name, add[i].start})
	}
	// Merge the two sorted lists; a frame's end is the next function's start.
	merged := make([]function, 0, len(t.funcs)+len(add))
	i, j := 0, 0
	for i < len(t.funcs) || j < len(add) {
		if j == len(add) || i < len(t.funcs) && t.funcs[i].start <= add[j].start {
			merged = append(merged, t.funcs[i])
			i++
		} else {
			merged = append(merged, add[j])
			j++
		}
	}
	for k := range merged {
		if merged[k].end != 0 {
			continue
		}
		merged[k].end = merged[k].start + 1<<20
		if k+1 < len(merged) {
			merged[k].end = merged[k+1].start
		}
	}
	t.funcs = merged
}

// execRanges lists the file-address ranges of f's executable sections.
func execRanges(f *elf.File) [][2]uint64 {
	var out [][2]uint64
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 {
			out = append(out, [2]uint64{s.Addr, s.Addr + s.Size})
		}
	}
	return out
}

// inRanges reports whether a lies in one of the ranges.
func inRanges(ranges [][2]uint64, a uint64) bool {
	for _, r := range ranges {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}
