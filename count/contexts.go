package count

import (
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// placeCells gives each block that ran its runs in each context of the
// call tree (emu.CPU.Cells). The cells know exactly where each of their
// executions was cut short (emu's ic_cut), so a block with cells has its
// cuts summed from theirs rather than guessed (cutsOf).
func placeCells(blocks []ranBlock, cells []emu.Cell) {
	if len(cells) == 0 {
		return
	}
	byID := make(map[uint32]*ranBlock, len(blocks))
	for i := range blocks {
		byID[blocks[i].ID] = &blocks[i]
	}
	for _, c := range cells {
		b := byID[c.Block]
		if b == nil {
			continue // only outside the region collected, which has no cells
		}
		bc := profile.BlockContext{Node: c.Node, Executions: c.Executions}
		for _, k := range c.Cuts {
			bc.Cuts = append(bc.Cuts, profile.Cut{Index: int(k.Index), Executions: k.Executions})
		}
		d := b.details()
		d.contexts = append(d.contexts, bc)
	}
	for i := range blocks {
		d := blocks[i].detail
		if d == nil || len(d.contexts) == 0 {
			continue
		}
		sort.Slice(d.contexts, func(x, y int) bool { return d.contexts[x].Node < d.contexts[y].Node })
		at := map[int]uint64{}
		for _, c := range d.contexts {
			for _, k := range c.Cuts {
				at[k.Index] += k.Executions
			}
		}
		d.cuts = nil
		for index, n := range at {
			d.cuts = append(d.cuts, profile.Cut{Index: index, Executions: n})
		}
		sort.Slice(d.cuts, func(x, y int) bool { return d.cuts[x].Index < d.cuts[y].Index })
	}
}

// callInsn is the last instruction of a block: a call, or a jump into
// another function.
type callInsn struct {
	block *ranBlock
	addr  uint64
}

// callSites finds the last instruction of the blocks (all of them, whether
// they ran inside a region collected or not) by their end: the call
// instruction before a return address, or the instruction that jumped (or
// fell) into another function.
func callSites(all []emu.Block, dec *decoder) map[uint64]callInsn {
	out := map[uint64]callInsn{}
	for i := range all {
		b := &all[i]
		db := dec.of(b.ID)
		if db == nil || len(db.starts) == 0 {
			continue
		}
		ret := b.Addr + uint64(b.Size)
		if _, ok := out[ret]; !ok {
			out[ret] = callInsn{&ranBlock{Block: b, dec: db}, b.Addr + uint64(db.starts[len(db.starts)-1])}
		}
	}
	return out
}

// placeCalls gives each node of the Profile's tree (one per node of the
// emulator's, in its order) the instruction that entered it, call or jump,
// with its source position.
func placeCalls(tree []profile.CallNode, nodes []emu.Node, sites map[uint64]callInsn, ps *positions, mods *modules) {
	for i, n := range nodes {
		if n.Site == 0 || i == 0 {
			continue
		}
		s, ok := sites[n.Site]
		if !ok {
			continue // a call the decoder never saw end a block: none should be
		}
		tree[i].Call = &profile.CallSite{Addr: s.addr, Position: ps.at(mods.moduleOf(s.block), s.addr), Jump: n.Jumped}
	}
}
