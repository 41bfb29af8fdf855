package count

import (
	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// Parts: stretches of a run counted apart (profile.Part). A part is the
// difference of what an image had counted at two instants: at each instant
// the block table's executions and cuts, the call tree's instructions and
// calls and the system calls are read (counts), and the part is built from
// their difference by the code that builds a whole run's counts
// (fillCounts, attribute, describe). The instants come from the guest:
// valgrind's client requests (clientreq.go) and a Go test binary's
// benchmark runs (gobench.go).

// counts is what an image had counted at one instant, or the difference
// of two such: each block's executions and instructions cut (by block
// id), each call-tree node's instructions and calls (by index; none
// without attribution), and the system calls made.
type counts struct {
	execs, cut   []uint64
	insns, calls []uint64
	syscalls     uint64
}

// reading is the counts of an image at one instant, with the blocks and
// call tree they were read from (for their addresses and functions).
type reading struct {
	counts
	blocks []emu.Block
	tree   []emu.Node
}

// readCounts reads the image's counts now, from within a hook of its
// CPU. With before, the block being executed (which was counted whole as
// it was entered) is left out: the counts are those from before its entry.
func (im *image) readCounts(before bool) reading {
	r := reading{blocks: im.cpu.Blocks(), tree: im.cpu.CallTree()}
	var syscalls uint64
	if im.kimg != nil {
		for _, n := range im.kimg.Calls() {
			syscalls += n
		}
	}
	r.counts = countsFrom(r.blocks, r.tree, syscalls)
	if before {
		if b, node, ok := im.cpu.Entered(); ok && countAt(r.execs, int(b.ID)) > 0 {
			r.execs[b.ID]--
			if node >= 0 && node < len(r.insns) {
				r.insns[node] -= min(r.insns[node], uint64(b.Instructions))
			}
		}
	}
	return r
}

// countsFrom returns the counts of blocks and a call tree as read.
func countsFrom(blocks []emu.Block, tree []emu.Node, syscalls uint64) counts {
	var top uint32
	for _, b := range blocks {
		top = max(top, b.ID)
	}
	c := counts{execs: make([]uint64, top+1), cut: make([]uint64, top+1),
		insns: make([]uint64, len(tree)), calls: make([]uint64, len(tree)), syscalls: syscalls}
	for _, b := range blocks {
		c.execs[b.ID], c.cut[b.ID] = b.Executions, b.Cut
	}
	for i, n := range tree {
		c.insns[i], c.calls[i] = n.Instructions, n.Calls
	}
	return c
}

// minus returns c - o: o was read no later than c (or is a sum of such
// differences within c), so no count falls below 0.
func (c counts) minus(o counts) counts {
	d := counts{execs: subCounts(c.execs, o.execs), cut: subCounts(c.cut, o.cut), insns: subCounts(c.insns, o.insns),
		calls: subCounts(c.calls, o.calls), syscalls: c.syscalls - min(c.syscalls, o.syscalls)}
	return d
}

// plus returns c + o.
func (c counts) plus(o counts) counts {
	return counts{execs: addCounts(c.execs, o.execs), cut: addCounts(c.cut, o.cut), insns: addCounts(c.insns, o.insns),
		calls: addCounts(c.calls, o.calls), syscalls: c.syscalls + o.syscalls}
}

func subCounts(a, b []uint64) []uint64 {
	out := make([]uint64, max(len(a), len(b)))
	copy(out, a)
	for i, v := range b {
		out[i] -= min(out[i], v)
	}
	return out
}

func addCounts(a, b []uint64) []uint64 {
	out := make([]uint64, max(len(a), len(b)))
	copy(out, a)
	for i, v := range b {
		out[i] += v
	}
	return out
}

func countAt(s []uint64, i int) uint64 {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// blocksOf returns the blocks read with the counts of d instead of their
// own: those that ran in d.
func blocksOf(blocks []emu.Block, d counts) []emu.Block {
	out := make([]emu.Block, 0, len(blocks))
	for _, b := range blocks {
		if n := countAt(d.execs, int(b.ID)); n > 0 {
			b.Executions, b.Cut = n, min(countAt(d.cut, int(b.ID)), n*uint64(b.Instructions))
			out = append(out, b)
		}
	}
	return out
}

// treeOf returns the call tree read with the counts of d instead of its
// own: the nodes that counted an instruction or a call in d, and their
// ancestors, root first and parents before children as in the tree read.
func treeOf(tree []emu.Node, d counts) []emu.Node {
	if len(tree) == 0 {
		return nil
	}
	keep := make([]bool, len(tree))
	keep[0] = true
	for i := len(tree) - 1; i > 0; i-- {
		if keep[i] || countAt(d.insns, i) > 0 || countAt(d.calls, i) > 0 {
			keep[i] = true
			keep[tree[i].Parent] = true
		}
	}
	index := make([]int, len(tree))
	out := make([]emu.Node, 0, len(tree))
	for i, n := range tree {
		if !keep[i] {
			continue
		}
		index[i] = len(out)
		n.Parent = index[n.Parent] // the root's own index, 0
		n.Instructions, n.Calls = countAt(d.insns, i), countAt(d.calls, i)
		out = append(out, n)
	}
	return out
}

// countPart builds the part named name from d, counted between two readings of
// the image (blocks and tree the later one's): its totals, functions and
// call tree, as the run's are built.
func (im *image) countPart(name string, iterations uint64, d counts, blocks []emu.Block, tree []emu.Node) profile.Part {
	ran := im.dec.ran(blocksOf(blocks, d), im.mods.entry)
	p := &profile.Profile{}
	fillCounts(p, ran, im.mods, 0)
	if t := treeOf(tree, d); t != nil {
		p.CallTree, p.Functions = attribute(t, im.mods)
	}
	describe(p, ran, im.mods, false)
	for i := range p.Functions {
		p.Functions[i].Mix = nil // the run's functions have it
	}
	p.Totals.Syscalls = d.syscalls
	return profile.Part{Name: name, Iterations: iterations, Totals: p.Totals, Functions: nonNilFunctions(p.Functions), CallTree: p.CallTree}
}
