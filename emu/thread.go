package emu

// #include <stdlib.h>
// #include "hotpath.h"
import "C"

import (
	"errors"
	"unsafe"
)

// Guest threads share one CPU: each has a Context, its registers and its
// part of the hot path's state (shadow stack, last block), saved while
// another thread runs. Once a second thread exists the CPU runs in slices:
// Run returns ErrSliceEnd before the block that would take a slice past
// its size, so that a switch falls between blocks and no block is cut.

// ErrSliceEnd is returned by Run when the slice SetSlice gave ran out:
// the next block would pass it. The PC is at that block, which did not run.
var ErrSliceEnd = errors.New("time slice used up")

// Context is one guest thread's saved CPU state.
type Context struct {
	regs *C.uc_context
	hot  *C.ic_thread // C memory: the hot path keeps pointers into it
}

// NewContext makes a Context for a new thread: a copy of the running
// thread's registers, and an empty shadow stack.
func (c *CPU) NewContext() (*Context, error) {
	ctx := &Context{hot: (*C.ic_thread)(C.calloc(1, C.sizeof_ic_thread))}
	if ctx.hot == nil || C.ic_thread_init(c.st, ctx.hot) != 0 {
		c.FreeContext(ctx)
		return nil, errOOM
	}
	if err := check("context", C.uc_context_alloc(c.uc, &ctx.regs)); err != nil {
		c.FreeContext(ctx)
		return nil, err
	}
	if err := check("save context", C.uc_context_save(c.uc, ctx.regs)); err != nil {
		c.FreeContext(ctx)
		return nil, err
	}
	if c.arch == X86_64 {
		// Inside a hook (clone's) the emulator keeps the arithmetic flags
		// and DF apart from EFLAGS, which the save took as it stands.
		if err := c.SetContextReg(ctx, X86EFLAGS, c.Reg(X86EFLAGS)); err != nil {
			c.FreeContext(ctx)
			return nil, err
		}
	}
	return ctx, nil
}

// SetContextReg writes a register of a saved Context.
func (c *CPU) SetContextReg(ctx *Context, r Reg, v uint64) error {
	val := C.uint64_t(v)
	return check("write context register", C.uc_context_reg_write(ctx.regs, C.int(r), unsafe.Pointer(&val)))
}

// ContextReg reads a register of a saved Context.
func (c *CPU) ContextReg(ctx *Context, r Reg) uint64 {
	var v C.uint64_t
	C.uc_context_reg_read(ctx.regs, C.int(r), unsafe.Pointer(&v))
	return uint64(v)
}

// ContextStack is Stack for a thread that is not running.
func (c *CPU) ContextStack(ctx *Context) []Frame {
	var depth C.uint32_t
	frames := C.ic_thread_frames(c.st, ctx.hot, &depth)
	return c.stackOf(frames, depth)
}

// Switch saves the running thread's state in from and makes to's the
// running one. Call it between runs.
func (c *CPU) Switch(from, to *Context) error {
	if err := check("save context", C.uc_context_save(c.uc, from.regs)); err != nil {
		return err
	}
	if err := check("restore context", C.uc_context_restore(c.uc, to.regs)); err != nil {
		return err
	}
	C.ic_thread_switch(c.st, from.hot, to.hot)
	return nil
}

// FreeContext releases a Context no thread will run again.
func (c *CPU) FreeContext(ctx *Context) {
	if ctx.regs != nil {
		C.uc_context_free(ctx.regs)
		ctx.regs = nil
	}
	if ctx.hot != nil {
		C.ic_thread_free(ctx.hot)
		C.free(unsafe.Pointer(ctx.hot))
		ctx.hot = nil
	}
}

// slicing is the state of running in slices.
type slicing struct {
	on        bool
	size      uint64 // instructions a slice may run
	limitLeft uint64 // what MaxInstructions still allows, all slices together
	given     uint64 // the budget the current run started with
	ran       uint64 // instructions the last run executed
}

// SetSlice makes every later Run stop with ErrSliceEnd before the block
// that would take it past n instructions (n must exceed the longest block,
// 512 instructions). The first call replaces the block hook, and with it
// every translated block.
func (c *CPU) SetSlice(n uint64) error {
	if !c.slice.on {
		c.slice.limitLeft = ^uint64(0)
		if c.st.limited != 0 {
			c.slice.limitLeft = uint64(c.st.budget)
		}
		if err := check("slice hook", C.ic_use_limited(c.st)); err != nil {
			return err
		}
		c.variant.limited = true
		c.slice.on = true
	}
	c.slice.size = n
	return nil
}

// Ran returns the instructions the last Run executed while running in
// slices (0 before SetSlice).
func (c *CPU) Ran() uint64 { return c.slice.ran }

// startSlice gives the hook the budget of one slice, bounded by the
// instruction limit.
func (c *CPU) startSlice() {
	if !c.slice.on {
		return
	}
	c.slice.given = min(c.slice.size, c.slice.limitLeft)
	c.slice.ran = 0
	c.st.limited, c.st.budget, c.st.limit_hit = 1, C.uint64_t(c.slice.given), 0
}

// sliceUsedUp tells, after the hook stopped before a block that would pass
// its budget, a slice used up from the instruction limit, which then runs
// the last block's instructions it allows (runToLimit).
func (c *CPU) sliceUsedUp() bool {
	if !c.slice.on {
		return false
	}
	ran := c.slice.given - uint64(c.st.budget)
	if uint64(c.st.budget) == c.slice.limitLeft-ran {
		return false
	}
	c.st.limit_hit = 0
	return true
}

// endSlice accounts for the instructions a run executed, which ended
// with err.
func (c *CPU) endSlice(err error) {
	if !c.slice.on {
		return
	}
	if c.st.limited == 0 {
		// runToLimit ran the last block: the run took what the limit left.
		if errors.Is(err, ErrInstructionLimit) {
			c.slice.ran, c.slice.limitLeft = c.slice.limitLeft, 0
		}
		return
	}
	c.slice.ran = c.slice.given - uint64(c.st.budget)
	c.slice.limitLeft -= c.slice.ran
}
