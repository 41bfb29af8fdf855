// x87 instructions executed on the host's FPU in extended precision, for
// the instruction sites where Unicorn 2.1.1 (QEMU 5.0.1) computes in double
// precision, with wrong special cases, without exception flags, or (fisttp)
// with the wrong result. See x87.c.
#ifndef ICOUNT_X87_H
#define ICOUNT_X87_H

#include <stdint.h>
#include <unicorn/unicorn.h>

#include "memory.h"

// The instructions ic_x87_exec executes. Every one but fisttp has only
// implicit register operands (ST(0), ST(1), or a push); the fisttp forms
// store to memory at an address the caller computes from the instruction.
enum {
	IC_X87_FSIN = 1, // d9 fe
	IC_X87_FCOS,     // d9 ff
	IC_X87_FSINCOS,  // d9 fb
	IC_X87_FPTAN,    // d9 f2
	IC_X87_FPATAN,   // d9 f3
	IC_X87_FYL2X,    // d9 f1
	IC_X87_FYL2XP1,  // d9 f9
	IC_X87_F2XM1,    // d9 f0
	IC_X87_FPREM,    // d9 f8
	IC_X87_FPREM1,   // d9 f5
	IC_X87_FXTRACT,  // d9 f4
	IC_X87_FSCALE,   // d9 fd
	IC_X87_FISTTP16, // df /1 (m16int)
	IC_X87_FISTTP32, // db /1 (m32int)
	IC_X87_FISTTP64, // dd /1 (m64int)
	// The constants, which QEMU loads rounded to nearest whatever the
	// rounding control.
	IC_X87_FLDL2T, // d9 e9
	IC_X87_FLDL2E, // d9 ea
	IC_X87_FLDPI,  // d9 eb
	IC_X87_FLDLG2, // d9 ec
	IC_X87_FLDLN2, // d9 ed
	IC_X87_NOPS
};

// What ic_x87_exec did. A negative value is an error: -1 for an unknown
// op (nothing changed), else a UC_ERR_* negated: of a register access
// Unicorn refused (reads come first and change nothing; writes of these
// registers are never refused), or UC_ERR_NOMEM when fisttp's page could
// not be backed (before any register is written).
enum {
	// The instruction completed; it raised no exception the guest's
	// control word leaves unmasked.
	IC_X87_OK = 0,
	// The instruction completed and raised an exception the guest
	// unmasked: it ran as hardware runs it then (the unmasked response:
	// for an invalid operation or a zero divide no result and no pop,
	// a biased exponent for an overflow or underflow), and left FSW.ES
	// and FSW.B set. Hardware raises #MF before the next waiting x87
	// instruction (Linux: SIGFPE, RIP at that instruction). The next one
	// ic_x87_exec is asked to run returns IC_X87_PENDING.
	IC_X87_RAISED = 1,
	// Not executed: the guest's status word holds an exception its
	// control word unmasks, so hardware raises #MF at this (waiting)
	// instruction before executing it. Nothing changed but FSW.ES and B,
	// now set as hardware shows them at the fault whatever QEMU's fldcw
	// or fldenv left there (hardware derives them from the flags and
	// masks, and clears them when none is unmasked). Linux delivers
	// SIGFPE with RIP at this instruction and si_code from the unmasked
	// flags (FSW & ~FCW & 0x3f: IE FPE_FLTINV, else ZE FPE_FLTDIV, else
	// OE FPE_FLTOVF, else UE or DE FPE_FLTUND, else PE FPE_FLTRES).
	IC_X87_PENDING = 2,
	// fisttp only: not executed, nothing changed: the guest may not
	// write the operand; *fault holds the first address refused. The
	// caller leaves the instruction to Unicorn, whose store then takes
	// the path of every refused access (SIGSEGV there, exactly as the
	// hardware faults before changing anything). A page holding
	// translated code is refused too, so that the store discards the
	// code first (codewrite.go).
	IC_X87_REFUSED = 3,
};

int ic_x87_exec(uc_engine *uc, ic_mem *mem, int op, uint64_t addr, uint64_t *fault);

#endif
