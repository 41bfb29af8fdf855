// Package x87native executes x87 instructions natively, for the tests of
// emu's x87 emulation: the judge it is compared with.
package x87native

/*
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

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
	case 15: RUN("fldl2t"); break;
	case 16: RUN("fldl2e"); break;
	case 17: RUN("fldpi"); break;
	case 18: RUN("fldlg2"); break;
	case 19: RUN("fldln2"); break;
	}
#undef RUN
}

// What the SIGFPE handler saw, for x87_trap.
static __thread sigjmp_buf x87_jump;
static __thread int x87_code;
static __thread uint8_t x87_fx[512];
static __thread uint16_t x87_insn;

static void x87_onfpe(int sig, siginfo_t *si, void *ctx) {
	ucontext_t *u = ctx;
	x87_code = si->si_code;
	memcpy(x87_fx, u->uc_mcontext.fpregs, sizeof x87_fx);
	x87_insn = *(uint16_t *)u->uc_mcontext.gregs[REG_RIP];
	siglongjmp(x87_jump, 1);
}

// x87_trap is x87_native with a SIGFPE handler installed for its
// duration: it returns 1 if the instruction raised #MF, with the si_code
// Linux gave, the FXSAVE image of the state at the fault, and the first
// two bytes at the faulting RIP; 0 if it ran (img holds the state after).
static int x87_trap(int op, uint8_t *img, uint8_t *m, int *code, uint8_t *fx, uint16_t *insn) {
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = x87_onfpe;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	uint8_t own[108];
	__asm__ volatile("fnsave %0\n\tfrstor %0" : "+m"(own));
	if (sigaction(SIGFPE, &sa, &old) != 0) return -1;
	int trapped = 0;
	if (sigsetjmp(x87_jump, 1) == 0) {
		x87_native(op, img, m);
	} else {
		trapped = 1;
		*code = x87_code;
		memcpy(fx, x87_fx, sizeof x87_fx);
		*insn = x87_insn;
		__asm__ volatile("frstor %0" : "+m"(own));
	}
	sigaction(SIGFPE, &old, NULL);
	return trapped;
}
*/
import "C"

import "unsafe"

// Ops are the instructions Run executes, by mnemonic (fisttp with its
// operand size), in the order of emu's IC_X87_* ops.
var Ops = []string{"fsin", "fcos", "fsincos", "fptan", "fpatan", "fyl2x", "fyl2xp1", "f2xm1",
	"fprem", "fprem1", "fxtract", "fscale", "fisttp16", "fisttp32", "fisttp64",
	"fldl2t", "fldl2e", "fldpi", "fldlg2", "fldln2"}

// Run executes Ops[op] on this CPU's x87 with the state of the FSAVE image
// img, which it replaces by the state after it; m is a fisttp's memory
// operand (its first 2, 4 or 8 bytes), left alone if nothing is stored.
func Run(op int, img *[108]byte, m *[8]byte) {
	C.x87_native(C.int(op), (*C.uint8_t)(unsafe.Pointer(&img[0])), (*C.uint8_t)(unsafe.Pointer(&m[0])))
}

// Trap is Run with a SIGFPE handler installed around the instruction:
// trapped says it raised #MF instead of running, with Linux's si_code, the
// FXSAVE image (512 bytes) of the state at the fault and the first two
// bytes at the faulting instruction pointer.
func Trap(op int, img *[108]byte, m *[8]byte) (trapped bool, code int, fx *[512]byte, insn uint16) {
	fx = new([512]byte)
	var c C.int
	var i C.uint16_t
	r := C.x87_trap(C.int(op), (*C.uint8_t)(unsafe.Pointer(&img[0])), (*C.uint8_t)(unsafe.Pointer(&m[0])), &c,
		(*C.uint8_t)(unsafe.Pointer(&fx[0])), &i)
	if r < 0 {
		panic("x87native: sigaction failed")
	}
	return r == 1, int(c), fx, uint16(i)
}
