package count

import (
	"fmt"
	"slices"
	"sort"

	"github.com/icount-dev/icount/profile"
)

// describe adds to the Profile what the decoded blocks, the modules'
// symbols and DWARF say about the counts: the mappings and what ran in
// each, the instruction mix, each function's address, block executions, mix
// and source position and, when asked (lines), the self cost of every
// source line and every block that ran. Without lines, only DWARF's
// declarations are read, so a function without one (assembly) has no
// position.
func describe(prof *profile.Profile, blocks []ranBlock, mods *modules, lines bool) {
	prof.Mappings = mods.profileMappings(blocks)
	total, mixes := instructionMix(blocks)
	prof.Mix = &total
	execs := map[uint64]uint64{}
	for _, b := range blocks {
		execs[b.fn] += b.Executions
	}
	defer func() { prof.Warnings = append(prof.Warnings, mods.readProblems()...) }()
	for i := range prof.Functions {
		f := &prof.Functions[i]
		f.Blocks = execs[f.Addr]
		f.Mix = mixes[f.Addr]
		if m := mods.moduleAt(f.Addr); f.Addr >= m.bias {
			pos := m.debug(lines).funcPos(f.Addr - m.bias)
			f.File, f.Line = pos.file, pos.line
		}
	}
	if !lines {
		return
	}
	prof.Lines = lineCosts(blocks, mods)
	prof.Blocks = make([]profile.BlockRuns, 0, len(blocks))
	for _, b := range blocks {
		prof.Blocks = append(prof.Blocks, profile.BlockRuns{BlockCount: profile.BlockCount{Addr: b.Addr, Size: b.Size, Executions: b.Executions,
			Instructions: b.Executions*uint64(b.Instructions) - b.Cut, Function: mods.nameOf(b.fn).name}, Cuts: b.cuts})
	}
}

// readProblems says, for each module (in order of name), what was wrong
// with the symbols or DWARF that icount left out.
func (ms *modules) readProblems() []string {
	var out []string
	for _, m := range ms.mods {
		if m.syms != nil && m.syms.problem != "" {
			out = append(out, fmt.Sprintf("%s: its symbols are corrupt (%s): those icount could not read are left out", m.name, m.syms.problem))
		}
		if m.dbg != nil && m.dbg.problem != "" {
			out = append(out, fmt.Sprintf("%s: its DWARF is corrupt (%s): the lines and declarations icount could not read are left out", m.name, m.dbg.problem))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// lineCosts sums the instructions that completed by function, inlined
// function and source line.
func lineCosts(blocks []ranBlock, mods *modules) []profile.LineCount {
	type key struct {
		fn        uint64
		inl, file string
		line      int
	}
	sums := map[key]uint64{}
	for i := range blocks {
		b := &blocks[i]
		m := mods.moduleOf(b)
		dbg := m.debug(true)
		for j, n := range b.runs() {
			if n == 0 {
				continue
			}
			var pos srcPos
			var inl string
			if a := b.insnAddr(j); a >= m.bias {
				pos, _ = dbg.line(a - m.bias)
				inl = dbg.inlinedAt(a - m.bias)
			}
			sums[key{b.fn, inl, pos.file, pos.line}] += n
		}
	}
	out := make([]profile.LineCount, 0, len(sums))
	for k, n := range sums {
		q := mods.nameOf(k.fn)
		out = append(out, profile.LineCount{Function: q.name, Module: q.module, Inlined: k.inl,
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
