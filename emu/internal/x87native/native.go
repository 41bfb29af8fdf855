// Package x87native executes x87 instructions natively, for the tests of
// emu's x87 emulation: the judge it is compared with.
package x87native

/*
#include <stdint.h>

// x87_native loads the 108-byte FSAVE image img into the FPU (frstor),
// executes instruction number op of Ops, and saves the state back into img
// (fnsave, which does not wait for a pending exception and initializes
// the FPU); m is a fisttp's memory operand. The thread's own x87 state is
// saved before and restored after.
static void x87_native(int op, uint8_t *img, uint8_t *m) {
	uint8_t own[108];
#define RUN(insn) __asm__ volatile("fnsave %1\n\tfrstor %0\n\t" insn "\n\tfnsave %0\n\tfrstor %1" \
		: "+m"(*(uint8_t(*)[108])img), "=m"(own), "+m"(*(uint8_t(*)[8])m))
	switch (op) {
	case 0: RUN("fsin"); break;
	case 1: RUN("fcos"); break;
	case 2: RUN("fsincos"); break;
	case 3: RUN("fptan"); break;
	case 4: RUN("fpatan"); break;
	case 5: RUN("fyl2x"); break;
	case 6: RUN("fyl2xp1"); break;
	case 7: RUN("f2xm1"); break;
	case 8: RUN("fprem"); break;
	case 9: RUN("fprem1"); break;
	case 10: RUN("fxtract"); break;
	case 11: RUN("fscale"); break;
	case 12: RUN("fisttps %2"); break;
	case 13: RUN("fisttpl %2"); break;
	case 14: RUN("fisttpll %2"); break;
	}
#undef RUN
}
*/
import "C"

import "unsafe"

// Ops are the instructions Run executes, by mnemonic (fisttp with its
// operand size), in the order of emu's IC_X87_* ops.
var Ops = []string{"fsin", "fcos", "fsincos", "fptan", "fpatan", "fyl2x", "fyl2xp1", "f2xm1",
	"fprem", "fprem1", "fxtract", "fscale", "fisttp16", "fisttp32", "fisttp64"}

// Run executes Ops[op] on this CPU's x87 with the state of the FSAVE image
// img, which it replaces by the state after it; m is a fisttp's memory
// operand (its first 2, 4 or 8 bytes), left alone if nothing is stored.
func Run(op int, img *[108]byte, m *[8]byte) {
	C.x87_native(C.int(op), (*C.uint8_t)(unsafe.Pointer(&img[0])), (*C.uint8_t)(unsafe.Pointer(&m[0])))
}
