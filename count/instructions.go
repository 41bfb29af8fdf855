package count

import (
	"sort"

	"github.com/icount-dev/icount/emu"
	"github.com/icount-dev/icount/profile"
)

// ranBlock is a block that ran (an entry of the slice of the block table
// it was found in), with its decoding and where its executions were cut
// short.
type ranBlock struct {
	*emu.Block
	dec *decodedBlock // nil if the decoder never saw it
	fn  uint64        // entry of its function; its own address when no symbol covers it
	// detail is where its executions cut short stopped and its runs in
	// each context of the call tree, for a block that has either; nil
	// for most.
	detail *ranDetail
}

// ranDetail is what few blocks that ran have: their executions cut short,
// by the instruction each stopped at, and their runs in each context of
// the call tree, when the run kept them (placeCells).
type ranDetail struct {
	cuts     []profile.Cut
	contexts []profile.BlockContext
}

// cuts are where r's executions cut short stopped.
func (r *ranBlock) cuts() []profile.Cut {
	if r.detail == nil {
		return nil
	}
	return r.detail.cuts
}

// contexts are r's runs in each context of the call tree, if kept.
func (r *ranBlock) contexts() []profile.BlockContext {
	if r.detail == nil {
		return nil
	}
	return r.detail.contexts
}

// details returns r's detail, made if it has none.
func (r *ranBlock) details() *ranDetail {
	if r.detail == nil {
		r.detail = &ranDetail{}
	}
	return r.detail
}

// ran pairs every block that ran with its decoding. The C table knows only
// how many instructions were cut from each block in all; the decoder knows
// where each cut execution it was asked about stopped (see notRun). They
// agree unless some cuts did not go through the decoder (the instruction
// limit's) or fell outside a --collect region (the C table leaves those
// out); see cutsOf.
func (d *decoder) ran(blocks []emu.Block, funcOf func(uint64) uint64) []ranBlock {
	out := make([]ranBlock, 0, len(blocks))
	for i := range blocks {
		b := &blocks[i]
		if b.Executions == 0 {
			continue // translated, but run only outside the region collected
		}
		r := ranBlock{Block: b, dec: d.of(b.ID)}
		// The function as named when the block was first seen: what the
		// address holds may have changed since.
		if r.dec != nil {
			r.fn = r.dec.info.Func
		} else {
			r.fn = funcOf(b.Addr)
		}
		if r.fn == 0 {
			r.fn = b.Addr
		}
		if b.Cut > 0 {
			r.detail = &ranDetail{cuts: cutsOf(r.dec, int(b.Instructions), b.Cut)}
		}
		out = append(out, r)
	}
	return out
}

// cutsOf says where the executions of a block of n instructions that lost
// cut instructions in all stopped: where the decoder saw them stop, and
// the rest, if any, as few executions as can lose that many, each from the
// instruction it stopped at to the block's end (exact for one execution
// cut short). When the decoder saw more than the C table counted, only the
// total is known, and it is taken that way.
func cutsOf(dec *decodedBlock, n int, cut uint64) []profile.Cut {
	if n == 0 {
		return nil
	}
	at := map[int]uint64{}
	if dec != nil {
		var seen uint64
		for i, k := range dec.cuts {
			seen += k * uint64(n-i)
		}
		if seen <= cut {
			for i, k := range dec.cuts {
				at[i] += k
			}
			cut -= seen
		}
	}
	if whole := cut / uint64(n); whole > 0 {
		at[0] += whole
	}
	if part := cut % uint64(n); part > 0 {
		at[n-int(part)]++
	}
	var cuts []profile.Cut
	for i, k := range at {
		cuts = append(cuts, profile.Cut{Index: i, Executions: k})
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i].Index < cuts[j].Index })
	return cuts
}

// runs returns how many times each instruction of the block completed.
func (r *ranBlock) runs() []uint64 {
	br := profile.BlockRuns{BlockCount: profile.BlockCount{Executions: r.Executions}, Cuts: r.cuts()}
	return br.Runs(int(r.Instructions))
}

// insnAddr is the address of the block's instruction i.
func (r *ranBlock) insnAddr(i int) uint64 {
	if r.dec == nil || i >= len(r.dec.starts) {
		return r.Addr
	}
	return r.Addr + uint64(r.dec.starts[i])
}
