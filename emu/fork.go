package emu

/*
#include "fork.h"
#include "hotpath.h"
*/
import "C"

import "fmt"

// A process that forks gets a CPU of its own: New, then CopyMemoryFrom
// and CopyRegistersFrom the parent's. The copy is eager (fork.c), of what
// the host holds only.

// CopyMemoryFrom gives c, a new CPU of from's architecture with nothing
// mapped, every mapping of from with its permissions and contents, as
// fork copies an address space. What from's translated code marked is
// not copied: c translates its own. Memory the host never gave from (the
// untouched parts of a mapping, reservations without access) costs c
// nothing either.
func (c *CPU) CopyMemoryFrom(from *CPU) error {
	if c.arch != from.arch {
		return fmt.Errorf("emu: copy memory from a %v CPU to a %v one", from.arch, c.arch)
	}
	if C.ic_mem_any(c.mem, 0, addrLimit)&C.IC_MAPPED != 0 {
		return fmt.Errorf("emu: copy memory into a CPU with memory mapped")
	}
	var at C.uint64_t
	switch C.ic_mem_copy_from(c.mem, from.mem, &at) {
	case 0:
		return nil
	case C.IC_COPY_NOMEM:
		return &MemoryError{Op: "copy memory", Addr: uint64(at), What: "out of memory for the page table"}
	default:
		return &MemoryError{Op: "copy memory", Addr: uint64(at), What: "out of host address space"}
	}
}

// CopyRegistersFrom makes the running registers of from, a CPU of the same
// architecture, c's: every register a thread has (general, flags, FP and
// vector with their control and status, the thread pointer, and the state
// the emulator keeps beside them, such as softfloat's pending exception
// flags). from may be stopped in one of its hooks (a system call), as
// fork finds it. The thread's part of the hot path (its shadow call
// stack) is not copied.
func (c *CPU) CopyRegistersFrom(from *CPU) error {
	if c.arch != from.arch {
		return fmt.Errorf("emu: copy registers from a %v CPU to a %v one", from.arch, c.arch)
	}
	x86 := C.int(0)
	if c.arch == X86_64 {
		x86 = 1
	}
	return check("copy registers", C.ic_copy_regs(c.uc, from.uc, x86))
}

// CodeBuffer returns the size in bytes of the buffer the emulator
// translates code into (Options.CodeBuffer, as the emulator applied it).
func (c *CPU) CodeBuffer() uint64 {
	var size C.uint32_t
	C.ic_code_buffer(c.uc, &size)
	return uint64(size)
}
