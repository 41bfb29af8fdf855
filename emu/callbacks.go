package emu

// #include <stdint.h>
import "C"

import "runtime/cgo"

// The functions below are called from hotpath.c. A panic in a hook must
// not unwind through C frames: it is recorded, the emulator is stopped, and
// Run re-raises it.

func cpuOf(h C.uintptr_t) *CPU { return cgo.Handle(h).Value().(*CPU) }

func (c *CPU) guard(f func()) {
	defer func() {
		if p := recover(); p != nil {
			c.panicked = p
			c.Stop()
		}
	}()
	f()
}

//export icountGoNewBlock
func icountGoNewBlock(h C.uintptr_t, addr C.uint64_t, size C.uint32_t) (n C.uint32_t) {
	c := cpuOf(h)
	if c.hooks.NewBlock != nil {
		c.guard(func() { n = C.uint32_t(c.hooks.NewBlock(uint64(addr), uint32(size))) })
	}
	return n
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
