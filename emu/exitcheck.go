package emu

// #include "hotpath.h"
import "C"

// exitChecksSkipped tells whether the emulator translates the loads and
// stores of guest code without its test of an exit request after each
// (exitcheck.c), as seen on a bare engine of arch: the tests' view of a
// change that makes translated code faster and nothing it computes
// different. ok is false when the engine could not run its block.
func exitChecksSkipped(arch Arch) (skipped, ok bool) {
	switch C.ic_exit_checks_skipped(C.int(arch)) { // X86_64 1, ARM64 2
	case 1:
		return true, true
	case 0:
		return false, true
	}
	return false, false
}

// withholdWrites makes the emulator's own memory region of the slab
// holding addr read-only, under icount's page table, which still grants
// writes: the tests' way to make its store helper drop a store and ask the
// CPU to exit, which nothing of icount's memory does.
func (c *CPU) withholdWrites(addr uint64) error {
	return check("withhold writes", C.ic_mem_withhold_writes(c.uc, C.uint64_t(addr)))
}
