/* a64_int.c: the arm64 integer instructions, on edge and pseudo-random
 * inputs (cpu.h), each with random input flags (msr nzcv) so that flags
 * an instruction keeps are checked too:
 *
 *   FORM #N a=A b=B f=NZCV : RESULT nzcv=NZCV
 *
 * NZCV is printed whole (every instruction here defines or keeps all four).
 * Compared with qemu-aarch64 -cpu cortex-a72 (ARMv8.0: no LSE atomics,
 * which AT_HWCAP does not advertise; the exclusive pairs instead). */
#include "cpu.h"

typedef void a64fn(uint64_t *r, uint64_t a, uint64_t b, uint64_t *nz);

#define A(name, text)                                                          \
	static void name(uint64_t *r, uint64_t a, uint64_t b, uint64_t *nz)    \
	{                                                                      \
		uint64_t d = *r, f = *nz;                                      \
		__asm__ volatile("msr nzcv, %[f]\n\t" text "\n\tmrs %[f], nzcv" \
				 : [d] "+&r"(d), [f] "+&r"(f) : [a] "r"(a), [b] "r"(b) : "cc", "memory"); \
		*r = d, *nz = f;                                               \
	}
#define AXW(op) A(x_##op##_x, #op " %x[d], %x[a], %x[b]") A(x_##op##_w, #op " %w[d], %w[a], %w[b]")
AXW(adds) AXW(subs) AXW(adcs) AXW(sbcs) AXW(ands) AXW(bics) AXW(adc) AXW(sbc) AXW(orn) AXW(eon)
AXW(mul) AXW(sdiv) AXW(udiv) AXW(lslv) AXW(lsrv) AXW(asrv) AXW(rorv)
A(x_crc32cb, "crc32cb %w[d], %w[a], %w[b]") A(x_crc32ch, "crc32ch %w[d], %w[a], %w[b]")
A(x_crc32cw, "crc32cw %w[d], %w[a], %w[b]")
A(x_crc32b, "crc32b %w[d], %w[a], %w[b]") A(x_crc32h, "crc32h %w[d], %w[a], %w[b]")
A(x_crc32w, "crc32w %w[d], %w[a], %w[b]") A(x_crc32x, "crc32x %w[d], %w[a], %x[b]")
A(x_crc32cx, "crc32cx %w[d], %w[a], %x[b]")
A(x_smulh, "smulh %x[d], %x[a], %x[b]") A(x_umulh, "umulh %x[d], %x[a], %x[b]")
A(x_madd, "madd %x[d], %x[a], %x[b], %x[d]") A(x_msub, "msub %x[d], %x[a], %x[b], %x[d]")
A(x_maddw, "madd %w[d], %w[a], %w[b], %w[d]") A(x_smaddl, "smaddl %x[d], %w[a], %w[b], %x[d]")
A(x_umaddl, "umaddl %x[d], %w[a], %w[b], %x[d]") A(x_smsubl, "smsubl %x[d], %w[a], %w[b], %x[d]")
A(x_umnegl, "umnegl %x[d], %w[a], %w[b]")
A(x_adds_sxtw, "adds %x[d], %x[a], %w[b], sxtw #2") A(x_subs_uxtb, "subs %x[d], %x[a], %w[b], uxtb #1")
A(x_adds_lsl63, "adds %x[d], %x[a], %x[b], lsl #63") A(x_subs_asr7, "subs %w[d], %w[a], %w[b], asr #7")
A(x_ands_ror13, "ands %x[d], %x[a], %x[b], ror #13") A(x_negs, "negs %x[d], %x[a]") A(x_ngcs_w, "ngcs %w[d], %w[a]")
A(x_adds_imm, "adds %x[d], %x[a], #4095") A(x_subs_imm_w, "subs %w[d], %w[a], #1, lsl #12")
A(x_ands_imm, "ands %x[d], %x[a], #0xff00ff00ff00ff00") A(x_cmn_w, "cmn %w[a], %w[b]")
A(x_lsl_imm, "lsl %x[d], %x[a], #63") A(x_asr_imm_w, "asr %w[d], %w[a], #31") A(x_ror_imm, "ror %x[d], %x[a], #1")
A(x_extr, "extr %x[d], %x[a], %x[b], #17") A(x_extr_w, "extr %w[d], %w[a], %w[b], #31")
A(x_bfi, "bfi %x[d], %x[a], #8, #20") A(x_bfxil_w, "bfxil %w[d], %w[a], #3, #29")
A(x_ubfx, "ubfx %x[d], %x[a], #13, #40") A(x_sbfx, "sbfx %x[d], %x[a], #60, #4") A(x_sbfx_w, "sbfx %w[d], %w[a], #1, #31")
A(x_ubfiz, "ubfiz %x[d], %x[a], #62, #2") A(x_sbfiz_w, "sbfiz %w[d], %w[a], #4, #12")
A(x_sxtb, "sxtb %x[d], %w[a]") A(x_sxth_w, "sxth %w[d], %w[a]") A(x_sxtw, "sxtw %x[d], %w[a]") A(x_uxtb, "uxtb %w[d], %w[a]")
A(x_clz, "clz %x[d], %x[a]") A(x_clz_w, "clz %w[d], %w[a]") A(x_cls, "cls %x[d], %x[a]") A(x_cls_w, "cls %w[d], %w[a]")
A(x_rbit, "rbit %x[d], %x[a]") A(x_rbit_w, "rbit %w[d], %w[a]") A(x_rev, "rev %x[d], %x[a]") A(x_rev_w, "rev %w[d], %w[a]")
A(x_rev16, "rev16 %x[d], %x[a]") A(x_rev32, "rev32 %x[d], %x[a]")
#define CONDS(X) X(eq) X(ne) X(cs) X(cc) X(mi) X(pl) X(vs) X(vc) X(hi) X(ls) X(ge) X(lt) X(gt) X(le) X(al)
#define CCF(c) A(x_ccmp_##c, "ccmp %x[a], %x[b], #5, " #c) A(x_ccmn_##c, "ccmn %w[a], #7, #10, " #c) \
	A(x_csel_##c, "csel %x[d], %x[a], %x[b], " #c) A(x_csinc_##c, "csinc %w[d], %w[a], %w[b], " #c) \
	A(x_csinv_##c, "csinv %x[d], %x[a], %x[b], " #c) A(x_csneg_##c, "csneg %x[d], %x[a], %x[b], " #c)
CONDS(CCF)
/* Exclusive pairs and acquire/release on a word in memory (a: value to
 * store; the result is what was loaded, then the status and the memory). */
static uint64_t exmem[2] __attribute__((aligned(16)));
#define EX(name, text)                                                         \
	static void name(uint64_t *r, uint64_t a, uint64_t b, uint64_t *nz)    \
	{                                                                      \
		uint64_t d, st;                                                \
		exmem[0] = b, exmem[1] = ~b;                                   \
		__asm__ volatile(text : [d] "=&r"(d), [st] "=&r"(st) : [a] "r"(a), [m] "r"(exmem) : "memory"); \
		*r = d ^ st << 63 ^ exmem[0] * 3 ^ exmem[1] * 5, (void)nz;     \
	}
EX(x_ldxr_stxr, "ldxr %x[d], [%[m]]\n\tstxr %w[st], %x[a], [%[m]]")
EX(x_ldaxr_stlxr_w, "ldaxr %w[d], [%[m]]\n\tstlxr %w[st], %w[a], [%[m]]")
EX(x_ldxrb_stxrb, "ldxrb %w[d], [%[m]]\n\tstxrb %w[st], %w[a], [%[m]]")
EX(x_ldxp_stxp, "ldxp %x[d], %x[st], [%[m]]\n\tstxp %w[st], %x[a], %x[d], [%[m]]")
EX(x_ldar_stlr, "ldar %x[d], [%[m]]\n\tstlr %x[a], [%[m]]\n\tmov %x[st], xzr")
EX(x_clrex, "ldxr %x[d], [%[m]]\n\tclrex\n\tstxr %w[st], %x[a], [%[m]]")

/* Loads and stores on a buffer of eight doublewords made from a and b,
 * through a base register p pointing at its middle: the result folds the
 * register loaded (d), the base's writeback (how far p moved) and the
 * buffer's contents after the form. */
static uint64_t mbuf[8] __attribute__((aligned(16)));
#define AM(name, text)                                                         \
	static void name(uint64_t *r, uint64_t a, uint64_t b, uint64_t *nz)    \
	{                                                                      \
		uint64_t d = *r, base = (uint64_t)(uintptr_t)&mbuf[4], p = base, h = 0; \
		for (int k = 0; k < 8; k++)                                    \
			mbuf[k] = a * (uint64_t)(2 * k + 1) ^ b;               \
		__asm__ volatile(text : [d] "+&r"(d), [p] "+&r"(p) : [a] "r"(a), [b] "r"(b) : "x9", "memory"); \
		for (int k = 0; k < 8; k++)                                    \
			h = (h ^ mbuf[k]) * 0x100000001b3ULL;                  \
		*r = d ^ (p - base) << 48 ^ h, (void)nz;                       \
	}
AM(x_ldrsb, "ldrsb %x[d], [%[p], #3]") AM(x_ldrsh_w, "ldrsh %w[d], [%[p], #-2]") AM(x_ldrsw, "ldrsw %x[d], [%[p], #4]")
AM(x_ldrb, "ldrb %w[d], [%[p], #-1]") AM(x_ldrh, "ldrh %w[d], [%[p], #6]") AM(x_ldr_pre_w, "ldr %w[d], [%[p], #4]!")
AM(x_ldr_post, "ldr %x[d], [%[p]], #-8") AM(x_ldp, "ldp %x[d], x9, [%[p], #-16]\n\tadd %x[d], %x[d], x9, lsl #1")
AM(x_ldpsw, "ldpsw %x[d], x9, [%[p], #8]\n\teor %x[d], %x[d], x9, ror #7")
AM(x_stp_pre, "stp %x[a], %x[b], [%[p], #-16]!") AM(x_stp_w_post, "stp %w[a], %w[b], [%[p]], #24")
AM(x_ldr_reg_lsl, "and x9, %x[b], #3\n\tldr %x[d], [%[p], x9, lsl #3]")
AM(x_ldr_sxtw, "and w9, %w[b], #3\n\tsub w9, w9, #2\n\tldr %x[d], [%[p], w9, sxtw #3]")
AM(x_ldur_unaligned, "ldur %x[d], [%[p], #-3]") AM(x_stur_unaligned, "stur %x[a], [%[p], #5]")
AM(x_strb, "strb %w[a], [%[p], #7]") AM(x_strh_pre, "strh %w[a], [%[p], #-6]!") AM(x_str_w_reg, "and x9, %x[b], #7\n\tstr %w[a], [%[p], x9]")
AM(x_ldnp_stnp, "ldnp %x[d], x9, [%[p]]\n\tstnp x9, %x[d], [%[p], #-32]")
AM(x_ldtr_sttr, "ldtr %x[d], [%[p], #8]\n\tsttr %x[a], [%[p], #-8]")
AM(x_prfm, "prfm pldl1keep, [%[p]]\n\tprfm pstl2strm, [%[p], #64]")

struct form {
	const char *name;
	a64fn *fn;
	int div; /* skip nothing: a divide by zero gives 0 */
};
#define F(n) {#n, x_##n, 0},
#define FXW(n) F(n##_x) F(n##_w)
#define FCC(c) F(ccmp_##c) F(ccmn_##c) F(csel_##c) F(csinc_##c) F(csinv_##c) F(csneg_##c)
static const struct form forms[] = {
	FXW(adds) FXW(subs) FXW(adcs) FXW(sbcs) FXW(ands) FXW(bics) FXW(adc) FXW(sbc) FXW(orn) FXW(eon)
	FXW(mul) FXW(sdiv) FXW(udiv) FXW(lslv) FXW(lsrv) FXW(asrv) FXW(rorv)
	F(crc32cb) F(crc32ch) F(crc32cw) F(crc32b) F(crc32h) F(crc32w) F(crc32x) F(crc32cx)
	F(smulh) F(umulh) F(madd) F(msub) F(maddw) F(smaddl) F(umaddl) F(smsubl) F(umnegl)
	F(adds_sxtw) F(subs_uxtb) F(adds_lsl63) F(subs_asr7) F(ands_ror13) F(negs) F(ngcs_w) F(adds_imm)
	F(subs_imm_w) F(ands_imm) F(cmn_w) F(lsl_imm) F(asr_imm_w) F(ror_imm) F(extr) F(extr_w) F(bfi) F(bfxil_w)
	F(ubfx) F(sbfx) F(sbfx_w) F(ubfiz) F(sbfiz_w) F(sxtb) F(sxth_w) F(sxtw) F(uxtb)
	F(clz) F(clz_w) F(cls) F(cls_w) F(rbit) F(rbit_w) F(rev) F(rev_w) F(rev16) F(rev32)
	CONDS(FCC)
	F(ldxr_stxr) F(ldaxr_stlxr_w) F(ldxrb_stxrb) F(ldxp_stxp) F(ldar_stlr) F(clrex)
	F(ldrsb) F(ldrsh_w) F(ldrsw) F(ldrb) F(ldrh) F(ldr_pre_w) F(ldr_post) F(ldp) F(ldpsw) F(stp_pre) F(stp_w_post)
	F(ldr_reg_lsl) F(ldr_sxtw) F(ldur_unaligned) F(stur_unaligned) F(strb) F(strh_pre) F(str_w_reg) F(ldnp_stnp)
	F(ldtr_sttr) F(prfm)
};

#define NRAND 96
#define NEDGE 12

int main(void)
{
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		for (int i = 0; i < NEDGE * NEDGE + NRAND; i++) {
			uint64_t a, b;
			if (i < NEDGE * NEDGE)
				a = int_edges[i % NEDGE + 3 * (i % NEDGE > 8)], b = int_edges[i / NEDGE];
			else
				a = rnd_int(), b = i & 1 ? rnd_int() : rnd() & 0x7f; /* shift counts too */
			uint64_t d = rnd(), nz = (rnd() & 0xf) << 28, r = d, fo = nz;
			forms[f].fn(&r, a, b, &fo);
			pr("%s #%d a=%llx b=%llx d=%llx f=%x : %016llx nzcv=%x\n", forms[f].name, i, (unsigned long long)a,
			   (unsigned long long)b, (unsigned long long)d, (unsigned)(nz >> 28), (unsigned long long)r,
			   (unsigned)(fo >> 28));
		}
	}
	pr_flush();
	return 0;
}
