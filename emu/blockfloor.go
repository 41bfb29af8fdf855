package emu

// #include "hotpath.h"
// uc_err ic_floor_block_hook(ic_state *s, int empty);
import "C"

// floorBlockHook takes away the CPU's block hook, putting one that does
// nothing in its place if empty: BenchmarkBlockHook's floor. The CPU
// counts nothing after it.
func (c *CPU) floorBlockHook(empty bool) error {
	return check("replace the block hook", C.ic_floor_block_hook(c.st, boolInt(empty)))
}
