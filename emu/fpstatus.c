// The x86-64 floating-point exception flags and MXCSR.FZ. QEMU 5.0 (and so
// Unicorn 2.1.1) computes SSE and x87 arithmetic with softfloat, which
// records the exceptions each operation raises in a float_status (one for
// SSE, one for the x87) but never copies them into MXCSR or the x87 status
// word: a program that reads its flags (fetestexcept; glibc's software
// fma, which rounds to odd by the inexact flag) finds none. And it applies
// MXCSR.FZ to the x87's status instead of SSE's, so flush-to-zero flushes
// x87 results and never SSE ones.
//
// The float_status structures lie in the CPU state a uc_context holds.
// ic_fpstatus_find locates them once, on the scratch engine of the probes
// (probe.c), by what known
// instructions and register writes do to them (and checks the layout). The
// flags are then folded into MXCSR and FSW just before an instruction
// reads those (stmxcsr, fnstsw, fxsave, ...) and when icount reads them
// (signal frames), and cleared when an instruction loads them; after MXCSR
// is loaded FZ is moved to where it belongs. Each costs two context copies,
// at those instructions only.
#include <string.h>

#include "fpstatus.h"

// softfloat's float_status: the byte offsets of its fields.
enum { FS_ROUNDING = 1, FS_FLAGS = 2, FS_PRECISION = 3, FS_FTZ = 4, FS_DAZ = 5 };
// softfloat's exception flags.
enum { SF_INVALID = 1, SF_DIVBYZERO = 4, SF_OVERFLOW = 8, SF_UNDERFLOW = 16, SF_INEXACT = 32,
       SF_INPUT_DENORMAL = 64, SF_OUTPUT_DENORMAL = 128 };

static long sse_off = -1, x87_off = -1;

// scratch_run runs code on the scratch engine from 0x1000 to its end.
static int scratch_run(uc_engine *uc, const uint8_t *code, size_t n) {
	if (uc_mem_write(uc, 0x1000, code, n) != UC_ERR_OK) return -1;
	return uc_emu_start(uc, 0x1000, 0x1000 + n, 0, 0) == UC_ERR_OK ? 0 : -1;
}

// find_flags returns the offset of the byte that code changes from 0 to
// flag, and that is a float_status's flags by the field around it: after
// a write of reg to rounding it reads round at FS_ROUNDING. -1 if none.
static long find_flags(uc_engine *uc, uc_context *a, uc_context *b, const uint8_t *code, size_t n, uint8_t flag,
                       int reg, uint64_t rounding, uint8_t round) {
	size_t size = uc_context_size(uc);
	if (uc_context_save(uc, a) != UC_ERR_OK || scratch_run(uc, code, n) != 0 || uc_context_save(uc, b) != UC_ERR_OK)
		return -1;
	if (uc_reg_write(uc, reg, &rounding) != UC_ERR_OK || uc_context_save(uc, a) != UC_ERR_OK) return -1;
	const uint8_t *before = (const uint8_t *)a, *after = (const uint8_t *)b;
	long found = -1;
	for (size_t off = FS_FLAGS; off + 8 - FS_FLAGS <= size; off++) {
		// a is now the state after the rounding write; b after the code.
		if (after[off] != flag || after[off - FS_FLAGS + FS_ROUNDING] != 0) continue;
		if (before[off] != flag || before[off - FS_FLAGS + FS_ROUNDING] != round) continue;
		if (found >= 0) return -1; // not one place: do not guess
		found = (long)(off - FS_FLAGS);
	}
	return found;
}

void ic_fpstatus_find(uc_engine *uc) {
	// pxor %xmm1,%xmm1; divsd %xmm1,%xmm0 with xmm0 = 0: 0/0, invalid.
	static const uint8_t sse_code[] = {0x66, 0x0f, 0xef, 0xc9, 0xf2, 0x0f, 0x5e, 0xc1};
	// fld1; fldz; fdivp %st,%st(1): 1/0 on the x87, divide by zero.
	static const uint8_t x87_code[] = {0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9};
	uc_context *a = NULL, *b = NULL;
	uint64_t cr4 = 0, mxcsr = 0x1f80, fcw = 0x37f;
	uc_reg_read(uc, UC_X86_REG_CR4, &cr4);
	cr4 |= 1 << 9 | 1 << 10;
	if (uc_reg_write(uc, UC_X86_REG_CR4, &cr4) != UC_ERR_OK ||
	    uc_reg_write(uc, UC_X86_REG_MXCSR, &mxcsr) != UC_ERR_OK || uc_reg_write(uc, UC_X86_REG_FPCW, &fcw) != UC_ERR_OK ||
	    uc_context_alloc(uc, &a) != UC_ERR_OK || uc_context_alloc(uc, &b) != UC_ERR_OK)
		goto out;
	// The SSE status rounds up after MXCSR.RC = up; the x87's after FCW.RC = up.
	long sse = find_flags(uc, a, b, sse_code, sizeof sse_code, SF_INVALID, UC_X86_REG_MXCSR, 0x5f80, 2);
	long x87 = find_flags(uc, a, b, x87_code, sizeof x87_code, SF_DIVBYZERO, UC_X86_REG_FPCW, 0xb7f, 2);
	if (sse < 0 || x87 < 0 || sse == x87) goto out;
	// Check the rest of the layout: DAZ on SSE's, the x87's precision
	// from FCW (64 bits: 80), and the FZ misplacement this file corrects.
	mxcsr = 0x1f80 | 0x40 | 0x8000;
	if (uc_reg_write(uc, UC_X86_REG_MXCSR, &mxcsr) != UC_ERR_OK || uc_context_save(uc, a) != UC_ERR_OK) goto out;
	const uint8_t *st = (const uint8_t *)a;
	if (st[sse + FS_DAZ] != 1 || st[sse + FS_FTZ] != 0 || st[x87 + FS_FTZ] != 1 || st[x87 + FS_PRECISION] != 80) goto out;
	sse_off = sse;
	x87_off = x87;
out:
	if (a) uc_context_free(a);
	if (b) uc_context_free(b);
}

int ic_fpstatus_known(void) { return sse_off >= 0 && x87_off >= 0; }

// mxcsr_flags and fsw_flags turn softfloat's flags into MXCSR's and the
// status word's exception bits (IE DE ZE OE UE PE). An output flushed to
// zero is an underflow that is inexact, as FTZ reports it; a denormal
// input flushed by DAZ sets nothing.
static uint32_t x86_flags(uint8_t f) {
	uint32_t x = 0;
	if (f & SF_INVALID) x |= 0x01;
	if (f & SF_DIVBYZERO) x |= 0x04;
	if (f & SF_OVERFLOW) x |= 0x08;
	if (f & (SF_UNDERFLOW | SF_OUTPUT_DENORMAL)) x |= 0x10;
	if (f & (SF_INEXACT | SF_OUTPUT_DENORMAL)) x |= 0x20;
	return x;
}

// settle clears softfloat's flags of the units named and puts MXCSR.FZ
// where it belongs: on SSE's status, not the x87's.
static void settle(ic_state *s, int sse, int x87) {
	uint8_t *st = (uint8_t *)s->scratch;
	uint64_t mxcsr = 0;
	uc_reg_read(s->uc, UC_X86_REG_MXCSR, &mxcsr);
	if (uc_context_save(s->uc, s->scratch) != UC_ERR_OK) return;
	if (sse) st[sse_off + FS_FLAGS] = 0;
	if (x87) st[x87_off + FS_FLAGS] = 0;
	st[sse_off + FS_FTZ] = (mxcsr & 0x8000) != 0;
	st[x87_off + FS_FTZ] = 0;
	uc_context_restore(s->uc, s->scratch);
}

void ic_fp_fold(ic_state *s) {
	if (!ic_fpstatus_known() || !s->scratch) return;
	if (uc_context_save(s->uc, s->scratch) != UC_ERR_OK) return;
	const uint8_t *st = (const uint8_t *)s->scratch;
	uint8_t sf = st[sse_off + FS_FLAGS], xf = st[x87_off + FS_FLAGS];
	if (sf == 0 && xf == 0) return;
	if (sf) {
		uint64_t mxcsr = 0;
		uc_reg_read(s->uc, UC_X86_REG_MXCSR, &mxcsr);
		mxcsr |= x86_flags(sf);
		uc_reg_write(s->uc, UC_X86_REG_MXCSR, &mxcsr);
	}
	if (xf) {
		uint64_t fsw = 0, fcw = 0;
		uc_reg_read(s->uc, UC_X86_REG_FPSW, &fsw);
		uc_reg_read(s->uc, UC_X86_REG_FPCW, &fcw);
		fsw |= x86_flags(xf);
		// An unmasked exception sets the summary bits ES and B.
		if (fsw & ~fcw & 0x3f) fsw |= 0x8080;
		uc_reg_write(s->uc, UC_X86_REG_FPSW, &fsw);
	}
	settle(s, sf != 0, xf != 0);
}

void ic_fp_loaded(ic_state *s, int sse, int x87) {
	if (ic_fpstatus_known() && s->scratch) settle(s, sse, x87);
}
