// Package emu is icount's binding to the Unicorn CPU emulator.
//
// It creates an emulated CPU for one guest architecture, maps and accesses
// guest memory, reads and writes registers, and runs guest code. Per-block
// work, counting every executed translated block, runs in C (hotpath.c):
// Go is entered only when a block is seen for the first time (to decode
// it), on system calls and interrupts, and on faults. Single instructions
// the decoder finds wanting get hooks of their own (sites.c), added at the
// first sight of their block, which then restarts translated with them.
// The package knows nothing of Linux, ELF or report formats.
package emu
