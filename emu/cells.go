package emu

// #include "hotpath.h"
import "C"

import (
	"cmp"
	"slices"
	"unsafe"
)

// Cell is one block's executions in one context of the calling-context
// tree (cells.c): what a context ran, block by block, so that each
// context's instructions are known one by one.
type Cell struct {
	Node       int    // index in CallTree
	Block      uint32 // the block's ID (Block.ID)
	Executions uint64
	// Cuts are its executions cut short, by the index of the first
	// instruction of the block that did not complete, by index.
	Cuts []CellCut
}

// CellCut is a number of executions of a cell that stopped before the
// block's instruction Index.
type CellCut struct {
	Index      uint32
	Executions uint64
}

// Instructions returns what the cell's executions completed of a block of
// n instructions.
func (c Cell) Instructions(n uint32) uint64 {
	total := c.Executions * uint64(n)
	for _, k := range c.Cuts {
		total -= k.Executions * uint64(n-min(k.Index, n))
	}
	return total
}

// Cells returns every cell that ran, in the order they first ran; nil
// unless Options.Cells asked for them.
func (c *CPU) Cells() []Cell {
	if c.st.cells == nil {
		return nil
	}
	cells := unsafe.Slice(c.st.cells, int(c.st.ncells))
	out := make([]Cell, 0, len(cells))
	at := make([]int, len(cells)) // a cell's index in out, -1 for none
	for i, cell := range cells {
		at[i] = -1
		if i == 0 || cell.execs == 0 {
			continue // cell 0 takes nothing real
		}
		at[i] = len(out)
		out = append(out, Cell{Node: int(cell.node), Block: uint32(cell.block), Executions: uint64(cell.execs)})
	}
	if c.st.cuts != nil {
		for _, k := range unsafe.Slice(c.st.cuts, int(c.st.ncutslots)) {
			if k.cell != 0 && at[k.cell] >= 0 {
				o := &out[at[k.cell]]
				o.Cuts = append(o.Cuts, CellCut{Index: uint32(k.index), Executions: uint64(k.execs)})
			}
		}
	}
	for i := range out {
		slices.SortFunc(out[i].Cuts, func(a, b CellCut) int { return cmp.Compare(a.Index, b.Index) })
	}
	return out
}
