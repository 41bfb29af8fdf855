package count

import (
	"sort"

	"github.com/icount-dev/icount/emu"
)

// ranBlock is a block that ran, with its decoding and where its executions
// were cut short.
type ranBlock struct {
	emu.Block
	dec  *decodedBlock // nil if the decoder never saw it
	fn   uint64        // entry of its function; its own address when no symbol covers it
	cuts []Cut
}

// ran pairs every block that ran with its decoding. The C table knows only
// how many instructions were cut from each block in all; the decoder knows
// where each cut execution stopped. They agree unless some cut executions
// fell outside a --collect region (the C table leaves those out), and then
// the cut is taken from the block's last instructions.
func (d *decoder) ran(blocks []emu.Block, funcOf func(uint64) uint64) []ranBlock {
	out := make([]ranBlock, 0, len(blocks))
	for _, b := range blocks {
		if b.Executions == 0 {
			continue // translated, but run only outside the region collected
		}
		r := ranBlock{Block: b, dec: d.blocks[blockKey{b.Addr, b.Size}], fn: funcOf(b.Addr)}
		if r.fn == 0 {
			r.fn = b.Addr
		}
		if b.Cut > 0 {
			r.cuts = cutsOf(r.dec, int(b.Instructions), b.Cut)
		}
		out = append(out, r)
	}
	return out
}

// cutsOf says where the executions of a block of n instructions that lost
// cut instructions in all stopped.
func cutsOf(dec *decodedBlock, n int, cut uint64) []Cut {
	if n == 0 {
		return nil
	}
	if dec != nil {
		var cuts []Cut
		var sum uint64
		for i, k := range dec.cuts {
			cuts = append(cuts, Cut{Index: i, Executions: k})
			sum += k * uint64(n-i)
		}
		if sum == cut {
			sort.Slice(cuts, func(i, j int) bool { return cuts[i].Index < cuts[j].Index })
			return cuts
		}
	}
	// Otherwise: as few executions as can lose that many, each from the
	// instruction it stopped at to the block's end.
	whole, part := cut/uint64(n), cut%uint64(n)
	var cuts []Cut
	if whole > 0 {
		cuts = append(cuts, Cut{Index: 0, Executions: whole})
	}
	if part > 0 {
		cuts = append(cuts, Cut{Index: n - int(part), Executions: 1})
	}
	return cuts
}

// Runs returns how many times each of the block's n instructions
// completed: every execution ran it, except those cut short at or before
// it.
func (b *BlockRuns) Runs(n int) []uint64 {
	runs := make([]uint64, n)
	for i := range runs {
		runs[i] = b.Executions
	}
	for _, c := range b.Cuts {
		for i := max(c.Index, 0); i < n; i++ {
			runs[i] -= min(runs[i], c.Executions)
		}
	}
	return runs
}

// runs returns how many times each instruction of the block completed.
func (r *ranBlock) runs() []uint64 {
	br := BlockRuns{BlockCount: BlockCount{Executions: r.Executions}, Cuts: r.cuts}
	return br.Runs(int(r.Instructions))
}

// insnAddr is the address of the block's instruction i.
func (r *ranBlock) insnAddr(i int) uint64 {
	if r.dec == nil || i >= len(r.dec.starts) {
		return r.Addr
	}
	return r.Addr + uint64(r.dec.starts[i])
}
