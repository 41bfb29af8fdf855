package emu

// #include "hotpath.h"
import "C"

// Entered returns the block being executed, as the block table has it,
// and the calling-context node its instructions were charged to (-1
// without attribution): a hook running within a block sees the whole
// block counted, since a block is counted as it is entered. ok is false
// when no block's entry is counted now: before the first block, after a
// site that executed its instruction itself left its block mid-way, or
// outside the region collected (--collect).
func (c *CPU) Entered() (b Block, node int, ok bool) {
	cur := c.st.cur
	if cur == nil || c.st.cur_in_roi == 0 {
		return Block{}, -1, false
	}
	b = Block{ID: uint32(cur.id), Addr: uint64(cur.addr), Size: uint32(cur.size), Instructions: uint32(cur.ninsn),
		Executions: uint64(cur.execs), Cut: uint64(cur.cut)}
	node = -1
	if c.st.nodes != nil && c.st.depth > 0 {
		node = int(c.st.top)
	}
	return b, node, true
}
