package emu

/*
#include "x87.h"
*/
import "C"

// x87Exec runs one x87 instruction (an IC_X87_* op of x87.h) against the
// guest's x87 state on the host's FPU, as a decode-time site hook does
// from C with ic_x87_exec; addr is a fisttp's memory operand. It returns
// ic_x87_exec's result and, for IC_X87_REFUSED, the address refused.
// Only the tests call it from Go.
func (c *CPU) x87Exec(op int, addr uint64) (int, uint64) {
	var fault C.uint64_t
	r := C.ic_x87_exec(c.uc, c.mem, C.int(op), C.uint64_t(addr), &fault)
	return int(r), uint64(fault)
}
