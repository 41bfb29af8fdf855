package emu

// #include "hotpath.h"
import "C"

import "runtime/cgo"

// The functions below are called from hotpath.c. A panic in a hook must
// not unwind through C frames: it is recorded with its stack, the emulator
// is stopped, and Run returns it as a *PanicError.

func cpuOf(h C.uintptr_t) *CPU { return cgo.Handle(h).Value().(*CPU) }

func (c *CPU) guard(f func()) {
	defer func() {
		if p := recover(); p != nil {
			if c.panicked == nil {
				c.panicked = NewPanicError(p)
			}
			c.Stop()
		}
	}()
	f()
}

//export icountGoNewBlock
func icountGoNewBlock(h C.uintptr_t, b *C.ic_block) (flags C.uint32_t) {
	c := cpuOf(h)
	if c.hooks.NewBlock == nil {
		return 0
	}
	c.guard(func() {
		info := c.hooks.NewBlock(uint32(b.id), uint64(b.addr), uint32(b.size))
		b.ninsn, b._func, b.end = C.uint32_t(info.Instructions), C.uint64_t(info.Func), C.uint32_t(info.End)
		if info.Restart {
			flags |= C.IC_RESTART
		}
	})
	return flags
}

//export icountGoSyscall
func icountGoSyscall(h C.uintptr_t) {
	c := cpuOf(h)
	if c.hooks.Syscall != nil {
		c.guard(c.hooks.Syscall)
	}
}

//export icountGoInterrupt
func icountGoInterrupt(h C.uintptr_t, intno C.uint32_t) {
	c := cpuOf(h)
	handled := false
	if c.hooks.Interrupt != nil {
		c.guard(func() { handled = c.hooks.Interrupt(uint32(intno)) })
	}
	if !handled && c.panicked == nil {
		c.exception = uint32(intno) + 1
		c.Stop()
	}
}
