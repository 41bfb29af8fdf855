package count

import (
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/loader"
)

// describe adds to the Profile what the decoded blocks and the binary's
// symbols and DWARF say about the counts: the mappings, the instruction
// mix, each function's address, block executions, mix and source position
// and, when asked (lines), the self cost of every source line and every
// block that ran. Without lines, only DWARF's declarations are read, so a
// function without one (assembly) has no position.
func describe(prof *Profile, exe *loader.Executable, blocks []ranBlock, syms *symtab, lines bool) {
	bias := exe.Base()
	for _, s := range exe.Segs {
		if s.Prot&emu.ProtExec != 0 {
			prof.Mappings = append(prof.Mappings, Mapping{Start: bias + s.Vaddr, Limit: bias + s.Vaddr + s.Memsz,
				Offset: s.Offset, Bias: bias, File: prof.Meta.Binary.Path, BuildID: exe.BuildID})
		}
	}
	total, mixes := instructionMix(exe.Arch, blocks)
	prof.Mix = &total
	execs := map[uint64]uint64{}
	for _, b := range blocks {
		execs[b.fn] += b.Executions
	}
	dbg := loadDebugInfo(exe.Path, lines)
	for i := range prof.Functions {
		f := &prof.Functions[i]
		f.Blocks = execs[f.Addr]
		f.Mix = mixes[f.Addr]
		if f.Addr >= bias {
			pos := dbg.funcPos(f.Addr - bias)
			f.File, f.Line = pos.file, pos.line
		}
	}
	if !lines {
		return
	}
	prof.Lines = lineCosts(blocks, syms, dbg, bias)
	prof.Blocks = make([]BlockRuns, 0, len(blocks))
	for _, b := range blocks {
		prof.Blocks = append(prof.Blocks, BlockRuns{BlockCount: BlockCount{Addr: b.Addr, Size: b.Size, Executions: b.Executions,
			Instructions: b.Executions*uint64(b.Instructions) - b.Cut, Function: syms.nameOf(b.fn)}, Cuts: b.cuts})
	}
}

// lineCosts sums the instructions that completed by function, inlined
// function and source line.
func lineCosts(blocks []ranBlock, syms *symtab, dbg *debugInfo, bias uint64) []LineCount {
	type key struct {
		fn        uint64
		inl, file string
		line      int
	}
	sums := map[key]uint64{}
	for i := range blocks {
		b := &blocks[i]
		for j, n := range b.runs() {
			if n == 0 {
				continue
			}
			a := b.insnAddr(j) - bias
			pos, _ := dbg.line(a)
			sums[key{b.fn, dbg.inlinedAt(a), pos.file, pos.line}] += n
		}
	}
	out := make([]LineCount, 0, len(sums))
	for k, n := range sums {
		out = append(out, LineCount{Function: syms.nameOf(k.fn), Module: syms.module, Inlined: k.inl,
			File: k.file, Line: k.line, Self: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Self != b.Self:
			return a.Self > b.Self
		case a.Function != b.Function:
			return a.Function < b.Function
		case a.File != b.File:
			return a.File < b.File
		case a.Line != b.Line:
			return a.Line < b.Line
		}
		return a.Inlined < b.Inlined
	})
	return out
}
