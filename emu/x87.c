// x87 instructions executed on the host's FPU.
//
// Unicorn 2.1.1 (QEMU 5.0.1) computes fsin, fcos, fsincos, fptan, fpatan,
// fyl2x, fyl2xp1 and f2xm1 through double precision (every result of 1000
// ordinary operands differs from the hardware's), fprem and fprem1 wrongly
// on about half of them, fxtract and fscale right on ordinary operands
// but not on special ones (empty or full stack, NaN, denormals, ...),
// with wrong special cases (fyl2x(0, y) is 0, not -inf with ZE), sets no
// exception flag in the status word, and its fisttp saturates instead of
// storing the integer indefinite; it loads the constants fldl2t, fldl2e,
// fldpi, fldlg2 and fldln2 rounded to nearest whatever the rounding
// control (half of the results in random modes differ). None of its x87
// instructions detects stack overflow or underflow, or sets C1 for a
// result rounded up. The host is amd64 and has a real x87,
// so ic_x87_exec runs such an instruction there: it builds the guest's whole
// x87 state as a 108-byte FSAVE image (control word, status word with TOP,
// tag word, the eight registers in stack order), loads it into the host's
// FPU with frstor, executes the one instruction, saves the result with
// fnsave and writes it back into Unicorn. What the hardware does is then
// what the guest gets, to the bit: the result and its rounding under the
// guest's precision and rounding control, C0-C3, the sticky exception
// flags and SF, stack overflow and underflow on empty or full registers,
// TOP and the tags, and the unmasked response when the guest unmasked an
// exception (no result and no pop for an invalid operation or a zero
// divide, a biased exponent for overflow and underflow, ES and B set).
//
// Host exceptions cannot trap: an x87 exception is delivered at the next
// waiting x87 instruction, and the instruction is followed by fnsave,
// which does not wait and leaves the FPU initialized; the image loaded
// never holds a pending exception (IC_X87_PENDING is returned instead,
// and ES and B are cleared, as hardware derives them from the flags).
// The host's control word is kept (its x87 stack is empty at any call).
//
// Unicorn's x87 state (qemu/target/i386/unicorn.c, fpu_helper.c):
// UC_X86_REG_FP0..FP7 are the physical registers fpregs[0..7], raw 80-bit
// values (ST(i) is FP((TOP + i) & 7); UC_X86_REG_ST0..ST7 are relative to
// TOP); UC_X86_REG_FPSW reads fpus with TOP (fpstt) in bits 11-13 and a
// write sets both; UC_X86_REG_FPTAG reads the full tag word in physical
// order, computed from the registers' contents (empty 3, zero 1, special
// 2, valid 0), and a write keeps only "empty" (tag 3), as fptags[i]. FCW
// is not changed by these instructions and is not written back. As QEMU
// does for every x87 instruction that is not a control instruction, FIP
// and FCS are set to this instruction's address (RIP, read here: call
// from a code hook at the instruction) and CS, and for fisttp FDP and FDS
// to the operand's address and DS; FOP stays as QEMU keeps it (0).
//
// The honest limit: the transcendentals fsin, fcos, fsincos, fptan,
// fpatan, f2xm1, fyl2x and fyl2xp1 are not correctly rounded, and their
// last bit is what the host's x87 computes, which differs between CPU
// vendors and generations, as native runs differ. Intel's manuals bound
// their error (about 1 ulp in the core range; far more for fsin and fcos
// near multiples of pi, reduced with an approximation of pi) and
// say the results and C1 of one processor family may differ from
// another's by a few ulps (SDM vol. 3, architecture compatibility,
// "Transcendental Instructions"). A measured case (bochs-emu/Bochs issue
// 763): f2xm1 of 0x3ffe_b8aa3b295c17f0bc gives 0x3ffe_a61298e1e069bc98 on
// Intel (also on the Intel Xeon this was written on) and ...bc97 on AMD.
// A count does not depend on those bits unless the program branches on
// them. fprem, fprem1, fxtract, fscale and fisttp are exact operations,
// defined to the bit and identical on every x87 (and so are the
// constants, rounded as the rounding control says), except fprem's and
// fprem1's partial remainders, whose size the architecture leaves to the
// processor: icount fixes them to Intel's rule (partialRemainder), so that
// a remainder loop runs as many times on any host.
#include <string.h>

#include "x87.h"

// The FSAVE image (32-bit protected-mode layout).
enum { IMG_FCW = 0, IMG_FSW = 4, IMG_FTW = 8, IMG_ST = 28, IMG_SIZE = 108 };

#define FSW_ES 0x0080 // exception summary
#define FSW_B 0x8000  // busy, a copy of ES
#define FSW_TOP(fsw) (((fsw) >> 11) & 7)
#define X87_EXC 0x3f // IE DE ZE OE UE PE, in FCW (masks) and FSW (flags)

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static void put16(uint8_t *p, uint16_t v) {
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

// X87 executes the instruction insn between loading the image and saving
// it; out is the memory operand (unused by the register forms). The
// host's x87 stack is empty at any call (the ABI), and fnsave leaves the
// FPU initialized, so only the host's control word needs keeping.
#define X87(insn, out)                                            \
	__asm__ volatile("fnstcw %[cw]\n\t"                       \
	                 "frstor %[img]\n\t" insn "\n\t"          \
	                 "fnsave %[img]\n\t"                      \
	                 "fldcw %[cw]"                             \
	                 : [img] "+m"(*(uint8_t(*)[IMG_SIZE])img), \
	                   [cw] "=m"(cw), [m] "+m"(out))

// run executes op on the host's FPU against the image, which it replaces
// by the state after the instruction; m receives fisttp's store, if the
// instruction stores (it is left alone otherwise).
static void run(int op, uint8_t *img, uint8_t m[8]) {
	uint16_t cw;
	int16_t *m16 = (int16_t *)m;
	int32_t *m32 = (int32_t *)m;
	int64_t *m64 = (int64_t *)m;
	switch (op) {
	case IC_X87_FSIN: X87("fsin", *m); break;
	case IC_X87_FCOS: X87("fcos", *m); break;
	case IC_X87_FSINCOS: X87("fsincos", *m); break;
	case IC_X87_FPTAN: X87("fptan", *m); break;
	case IC_X87_FPATAN: X87("fpatan", *m); break;
	case IC_X87_FYL2X: X87("fyl2x", *m); break;
	case IC_X87_FYL2XP1: X87("fyl2xp1", *m); break;
	case IC_X87_F2XM1: X87("f2xm1", *m); break;
	case IC_X87_FPREM: X87("fprem", *m); break;
	case IC_X87_FPREM1: X87("fprem1", *m); break;
	case IC_X87_FXTRACT: X87("fxtract", *m); break;
	case IC_X87_FSCALE: X87("fscale", *m); break;
	case IC_X87_FISTTP16: X87("fisttps %[m]", *m16); break;
	case IC_X87_FISTTP32: X87("fisttpl %[m]", *m32); break;
	case IC_X87_FISTTP64: X87("fisttpll %[m]", *m64); break;
	case IC_X87_FLDL2T: X87("fldl2t", *m); break;
	case IC_X87_FLDL2E: X87("fldl2e", *m); break;
	case IC_X87_FLDPI: X87("fldpi", *m); break;
	case IC_X87_FLDLG2: X87("fldlg2", *m); break;
	case IC_X87_FLDLN2: X87("fldln2", *m); break;
	}
}

// partialRemainder executes fprem or fprem1 on the image when it computes
// a partial remainder, which the architecture leaves to the processor:
// when the exponents of ST(0) and ST(1) differ by D >= 64, it reduces
// ST(0) by a truncated quotient of its leading bits, ST(0) - ST(1) * QQ *
// 2^(D-N), and sets C2, "N an implementation-dependent number between 32
// and 63" with C0, C1 and C3 undefined (SDM, FPREM and FPREM1). How many
// times a remainder loop runs, and so the count, would depend on the host.
// icount fixes the rule to Intel's, measured on an Intel Xeon (200,000
// random operands of each, and TestX87Native): N = 32 + D mod 32, the
// quotient truncated for fprem1 too, C0 = C1 = C3 = 0. That step is the
// complete fprem of ST(0) by ST(1) scaled by 2^(D-N), which the host then
// executes (exactly, on any x87). It returns 0, the image untouched, for
// any other operands (empty, not normal, or D < 64): the host's complete
// reduction and special cases are architectural. (A denormal divisor's
// partial remainder is left to the host: its rule is not fixed.)
static int partialRemainder(uint8_t *img, uint16_t ftw) {
	unsigned top = FSW_TOP(get16(img + IMG_FSW));
	if (((ftw >> (2 * top)) & 3) == 3 || ((ftw >> (2 * ((top + 1) & 7))) & 3) == 3) return 0;
	uint8_t *st0 = img + IMG_ST, *st1 = img + IMG_ST + 10;
	unsigned e0 = get16(st0 + 8) & 0x7fff, e1 = get16(st1 + 8) & 0x7fff;
	// Normal operands: exponent 1..0x7ffe and the integer bit set.
	if (e0 == 0 || e0 == 0x7fff || !(st0[7] & 0x80) || e1 == 0 || e1 == 0x7fff || !(st1[7] & 0x80)) return 0;
	if (e0 < e1 + 64) return 0;
	unsigned d = e0 - e1, n = 32 + d % 32;
	uint8_t divisor[10], m[8];
	memcpy(divisor, st1, 10);
	put16(st1 + 8, (uint16_t)((get16(st1 + 8) & 0x8000) | (e1 + d - n)));
	run(IC_X87_FPREM, img, m);
	memcpy(st1, divisor, 10);
	uint16_t fsw = get16(img + IMG_FSW);
	put16(img + IMG_FSW, (uint16_t)((fsw & ~0x4700) | 0x0400)); // C2 alone
	return 1;
}

// storeSize is the bytes op stores to memory (0: none).
static int storeSize(int op) {
	switch (op) {
	case IC_X87_FISTTP16: return 2;
	case IC_X87_FISTTP32: return 4;
	case IC_X87_FISTTP64: return 8;
	}
	return 0;
}

// ic_x87_exec executes one instruction op against the guest's x87 state
// in uc, on the host's FPU. For fisttp, addr is the memory operand's
// address and mem the guest's memory, where the store is checked (the
// whole operand must be writable, else IC_X87_REFUSED with *fault set and
// nothing changed) and made, before any register is written. The other
// ops ignore addr, mem and fault.
// It returns IC_X87_OK, IC_X87_RAISED, IC_X87_PENDING, IC_X87_REFUSED (see
// x87.h) or an error (negative, see x87.h).
int ic_x87_exec(uc_engine *uc, ic_mem *mem, int op, uint64_t addr, uint64_t *fault) {
	if (op < IC_X87_FSIN || op >= IC_X87_NOPS) return -1;
	uint16_t fcw = 0, fsw = 0, ftw = 0;
	uint8_t regs[8][16]; // Unicorn writes 10 bytes of each
	uint64_t rip = 0, cs = 0, ds = 0;
	int ids[14] = {UC_X86_REG_FPCW, UC_X86_REG_FPSW, UC_X86_REG_FPTAG, UC_X86_REG_RIP, UC_X86_REG_CS, UC_X86_REG_DS};
	void *vals[14] = {&fcw, &fsw, &ftw, &rip, &cs, &ds};
	for (int i = 0; i < 8; i++) {
		ids[6 + i] = UC_X86_REG_FP0 + i;
		vals[6 + i] = regs[i];
	}
	uc_err err = uc_reg_read_batch(uc, ids, vals, 14);
	if (err != UC_ERR_OK) return -(int)err;

	// A waiting x87 instruction raises #MF before it executes while the
	// status word holds a flag the control word unmasks; the state at the
	// fault shows ES and B set (hardware derives them from the flags).
	if (fsw & ~fcw & X87_EXC) {
		fsw |= FSW_ES | FSW_B;
		if ((err = uc_reg_write(uc, UC_X86_REG_FPSW, &fsw)) != UC_ERR_OK) return -(int)err;
		return IC_X87_PENDING;
	}

	int n = storeSize(op);
	if (n) {
		uint64_t end = addr + (uint64_t)n;
		if (end < addr || end > (1ull << IC_ADDR_BITS)) {
			*fault = addr;
			return IC_X87_REFUSED;
		}
		uint64_t bad = ic_mem_find(mem, addr, end, UC_PROT_WRITE);
		if (bad != end) {
			*fault = bad;
			return IC_X87_REFUSED;
		}
		// A page holding translated code: the emulator's store discards
		// the code first (codewrite.go), which a copy here would not.
		if (ic_mem_any(mem, addr, end) & IC_CODE) {
			*fault = addr;
			return IC_X87_REFUSED;
		}
	}

	uint8_t img[IMG_SIZE];
	memset(img, 0, sizeof img);
	put16(img + IMG_FCW, fcw);
	// Hardware keeps ES (and its copy B) equal to "some flag is set and
	// unmasked", which QEMU's fldcw and fldenv do not recompute: without
	// a pending exception they are clear.
	put16(img + IMG_FSW, fsw & ~(FSW_ES | FSW_B));
	put16(img + IMG_FTW, ftw);
	unsigned top = FSW_TOP(fsw);
	for (unsigned i = 0; i < 8; i++) memcpy(img + IMG_ST + 10 * i, regs[(top + i) & 7], 10);

	uint8_t m[8] __attribute__((aligned(8))) = {0};
	if ((op == IC_X87_FPREM || op == IC_X87_FPREM1) && partialRemainder(img, ftw)) goto ran;
	run(op, img, m);
ran:;

	uint16_t nfsw = get16(img + IMG_FSW), nftw = get16(img + IMG_FTW);
	unsigned ntop = FSW_TOP(nfsw);
	for (unsigned i = 0; i < 8; i++) memcpy(regs[(ntop + i) & 7], img + IMG_ST + 10 * i, 10);
	// fisttp stored its operand if and only if it popped the stack (an
	// unmasked invalid operation does neither).
	int stored = n && ntop != top;

	if (stored && ic_mem_copy(mem, addr, m, (uint64_t)n, 1) != 0) return -(int)UC_ERR_NOMEM;
	uint16_t fcs = (uint16_t)cs, fds = (uint16_t)ds;
	int wids[14] = {UC_X86_REG_FPTAG, UC_X86_REG_FPSW, UC_X86_REG_FIP, UC_X86_REG_FCS, UC_X86_REG_FDP, UC_X86_REG_FDS};
	void *wvals[14] = {&nftw, &nfsw, &rip, &fcs, &addr, &fds};
	int nw = n ? 6 : 4;
	for (int i = 0; i < 8; i++) {
		wids[nw] = UC_X86_REG_FP0 + i;
		wvals[nw++] = regs[i];
	}
	if ((err = uc_reg_write_batch(uc, wids, wvals, nw)) != UC_ERR_OK) return -(int)err;
	return nfsw & FSW_ES ? IC_X87_RAISED : IC_X87_OK;
}
