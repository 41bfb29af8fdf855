package report

import (
	"path"
	"sort"

	pprofile "github.com/google/pprof/profile"

	"github.com/icount-dev/icount/profile"
)

// hasContexts tells whether the Profile counts its blocks per context of
// the call tree (a run with per-line attribution and a call tree), so that
// each context's cost is known instruction by instruction.
func hasContexts(p *profile.Profile) bool {
	for i := range p.Blocks {
		if len(p.Blocks[i].Contexts) > 0 {
			return true
		}
	}
	return false
}

// pprofBuilder makes the functions and locations of a pprof profile.
type pprofBuilder struct {
	p        *profile.Profile
	out      *pprofile.Profile
	function func(module, name, file string) *pprofile.Function
	// entry is the location of a function's entry in a process, as
	// Pprof gives a function without finer attribution.
	entry func(process int, module, name string) *pprofile.Location
	locs  map[addrKey]*pprofile.Location
}

type addrKey struct {
	process int
	addr    uint64
}

// mappingAt is the index of the mapping of the process holding addr, -1
// if none.
func (b *pprofBuilder) mappingAt(process int, addr uint64) int {
	for i, m := range b.p.Mappings {
		if m.Process == process && addr >= m.Start && addr < m.Limit {
			return i
		}
	}
	return -1
}

// instruction returns the location of the instruction at addr of the
// process, in function fn (its symbol), with source position pos (an index
// in Profile.Positions, -1 for none): its mapping, and its line with the
// chain of inlined calls as pprof's Line entries, innermost first.
func (b *pprofBuilder) instruction(process int, addr uint64, fn string, pos int) *pprofile.Location {
	k := addrKey{process, addr}
	if l := b.locs[k]; l != nil {
		return l
	}
	l := &pprofile.Location{ID: uint64(len(b.out.Location) + 1), Address: addr}
	module := ""
	if i := b.mappingAt(process, addr); i >= 0 {
		l.Mapping = b.out.Mapping[i]
		module = b.p.Mappings[i].Module
		if module == "" {
			module = path.Base(b.p.Mappings[i].File)
		}
	}
	var ps profile.Position
	if pos >= 0 && pos < len(b.p.Positions) {
		ps = b.p.Positions[pos]
	}
	// The line's function is the innermost inlined one; each call of the
	// chain gives the line of its caller, the outermost in fn.
	file, line := ps.File, ps.Line
	for i := len(ps.Inlined) - 1; i >= 0; i-- {
		c := ps.Inlined[i]
		l.Line = append(l.Line, pprofile.Line{Function: b.function(module, c.Function, file), Line: int64(line)})
		file, line = c.CallFile, c.CallLine
	}
	l.Line = append(l.Line, pprofile.Line{Function: b.function(module, fn, file), Line: int64(line)})
	b.out.Location = append(b.out.Location, l)
	b.locs[k] = l
	return l
}

// instructionSamples gives the samples of a Profile whose blocks have
// their contexts: one per instruction address and context, its stack the
// instruction and then, for each context up to the root, the call (or
// jump) instruction that entered it (its caller's entry when the Profile
// does not say). Instructions are each instruction's completions; block
// executions are counted at a block's first instruction. Both are exact.
func (b *pprofBuilder) instructionSamples(label func(process int, s *pprofile.Sample) *pprofile.Sample) sampleStream {
	p := b.p
	// Every instruction's runs in every context, then merged by context
	// and location (a block can hold an instruction of another's).
	type value struct {
		node          int
		loc           *pprofile.Location
		insns, blocks uint64
	}
	var values []value
	for i := range p.Blocks {
		bl := &p.Blocks[i]
		for _, c := range bl.Contexts {
			for j, n := range c.Runs(bl.Length) {
				var blocks uint64
				if j == 0 {
					blocks = c.Executions
				}
				if n == 0 && blocks == 0 {
					continue
				}
				pos := -1
				if j < len(bl.Positions) {
					pos = bl.Positions[j]
				}
				values = append(values, value{c.Node, b.instruction(bl.Process, bl.InsnAddr(j), bl.Function, pos), n, blocks})
			}
		}
	}
	sort.Slice(values, func(x, y int) bool {
		if values[x].node != values[y].node {
			return values[x].node < values[y].node
		}
		return values[x].loc.ID < values[y].loc.ID
	})
	merged := values[:0]
	for _, v := range values {
		if k := len(merged) - 1; k >= 0 && merged[k].node == v.node && merged[k].loc == v.loc {
			merged[k].insns += v.insns
			merged[k].blocks += v.blocks
			continue
		}
		merged = append(merged, v)
	}
	values = merged
	// (After the instructions that ran, so that a location at an entry
	// has its position.) The caller's frame of each node: the location in its parent's code
	// it was entered from.
	callers := make([]*pprofile.Location, len(p.CallTree))
	for i, n := range p.CallTree {
		if n.Parent < 0 {
			continue
		}
		parent := p.CallTree[n.Parent]
		if n.Call != nil {
			callers[i] = b.instruction(n.Process, n.Call.Addr, parent.Function, n.Call.Position)
		} else {
			callers[i] = b.entry(parent.Process, parent.Module, parent.Function)
		}
	}
	// The samples, made as they are read: a stack per instruction and
	// context, millions of them.
	return func(emit func(*pprofile.Sample)) {
		var s pprofile.Sample
		stack := make([]*pprofile.Location, 0, 64)
		counts := make([]int64, 2)
		for _, v := range values {
			stack = append(stack[:0], v.loc)
			for j := v.node; p.CallTree[j].Parent >= 0; j = p.CallTree[j].Parent {
				stack = append(stack, callers[j])
			}
			counts[0], counts[1] = int64(v.insns), int64(v.blocks)
			s = pprofile.Sample{Location: stack, Value: counts}
			emit(label(p.CallTree[v.node].Process, &s))
			stack = s.Location[:0] // label may have grown it
		}
	}
}
