package emu

// #include "hotpath.h"
import "C"

// blockCallDescriptions is the number of blocks whose call to the block
// hook Unicorn added itself, describing the hook's function to the TCG
// context each time; icount adds the other blocks' calls directly
// (translation.c). The tests' view of that.
func (c *CPU) blockCallDescriptions() uint32 { return uint32(c.st.block_call_descriptions) }
