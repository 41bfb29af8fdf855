package emu

// #include "hotpath.h"
import "C"

// LoadRegs makes the registers saved in ctx (by NewContext) the running
// thread's, FP/SIMD state included, and leaves the hot path's state (the
// shadow stack, the last block) as it is: the kernel uses it to restore
// what a signal handler may have changed when the handler returns.
func (c *CPU) LoadRegs(ctx *Context) error {
	return check("restore context", C.uc_context_restore(c.uc, ctx.regs))
}
