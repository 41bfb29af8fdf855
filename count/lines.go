package count

import (
	"cmp"
	"slices"
	"sort"

	"github.com/icount-dev/icount/profile"
)

// describe adds to the Profile what the decoded blocks, the modules'
// symbols and DWARF say about the counts: the mappings and what ran in
// each, the instruction mix, each function's address, block executions, mix
// and source position and, when asked (lines), the self cost of every
// source line and every block that ran, with its instructions, their
// source positions and its runs in each context. Without lines, only
// DWARF's declarations are read, so a function without one (assembly) has
// no position. It returns the positions of lines, nil without.
func describe(prof *profile.Profile, blocks []ranBlock, mods *modules, lines bool) *positions {
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
		pos := mods.moduleAt(f.Addr).code.Declaration(f.Addr)
		f.File, f.Line = pos.File, pos.Line
	}
	if !lines {
		return nil
	}
	ps := newPositions(mods)
	prof.Blocks = make([]profile.BlockRuns, 0, len(blocks))
	for i := range blocks {
		b := &blocks[i]
		br := profile.BlockRuns{BlockCount: profile.BlockCount{Addr: b.Addr, Size: b.Size, Executions: b.Executions,
			Instructions: b.Executions*uint64(b.Instructions) - b.Cut, Function: mods.nameOf(b.fn).name}, Cuts: b.cuts(),
			Length: int(b.Instructions), Contexts: b.contexts()}
		if n := br.Length; n > 0 {
			if b.dec != nil && len(b.dec.starts) == n {
				br.Offsets = b.dec.starts
			}
			m := mods.moduleOf(b)
			br.Positions = make([]int, n)
			for j := range n {
				br.Positions[j] = ps.at(m, b.insnAddr(j))
			}
		}
		prof.Blocks = append(prof.Blocks, br)
	}
	prof.Positions = ps.list
	prof.Lines = lineCosts(blocks, prof.Blocks, prof.Positions, mods)
	return ps
}

// readProblems says, for each module (in order of name), what was wrong
// with the symbols or DWARF that icount left out.
func (ms *modules) readProblems() []string {
	var out []string
	for _, m := range ms.mods {
		if m.obj == nil {
			continue
		}
		for _, p := range m.obj.Problems() {
			out = append(out, m.name+": "+p)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// lineCosts sums the instructions that completed by function, inlined
// function and source line, from the blocks as the Profile has them (runs,
// with their instructions' positions).
func lineCosts(blocks []ranBlock, runs []profile.BlockRuns, positions []profile.Position, mods *modules) []profile.LineCount {
	type key struct {
		fn        uint64
		inl, file string
		line      int
	}
	sums := map[key]uint64{}
	for i := range blocks {
		br := &runs[i]
		for j, n := range br.Runs(br.Length) {
			if n == 0 {
				continue
			}
			pos := positions[br.Positions[j]]
			sums[key{blocks[i].fn, inlinedName(pos), pos.File, pos.Line}] += n
		}
	}
	// Sorted on every field, and last on the function's address (two
	// local functions of one name in one module), so that the order does
	// not follow the map's.
	type entry struct {
		profile.LineCount
		fn uint64
	}
	entries := make([]entry, 0, len(sums))
	for k, n := range sums {
		q := mods.nameOf(k.fn)
		entries = append(entries, entry{profile.LineCount{Function: q.name, Module: q.module, Inlined: k.inl,
			File: k.file, Line: k.line, Self: n}, k.fn})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(b.Self, a.Self), cmp.Compare(a.Function, b.Function), cmp.Compare(a.Module, b.Module),
			cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Inlined, b.Inlined), cmp.Compare(a.fn, b.fn))
	})
	out := make([]profile.LineCount, len(entries))
	for i, e := range entries {
		out[i] = e.LineCount
	}
	return out
}
