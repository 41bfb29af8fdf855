/* a64_fp.c: the arm64 scalar floating-point instructions, in nine FPCR
 * modes (the four rounding modes; to nearest with FZ, with DN and with
 * both; toward zero with both; to nearest with AHP), on edge and
 * pseudo-random inputs:
 *
 *   FORM MODE #N a=A b=B c=C : RESULT nzcv=NZCV
 *   FORM MODE #N fpsr=FPSR
 *
 * The operands are d1, d2, d3 (s1, s2, s3: their low halves) loaded as
 * bit patterns, the result d0 (or a general register) read back as bits.
 * FPSR is cleared before each form and printed whole after it (its
 * cumulative exception flags IOC DZC OFC UFC IXC IDC). */
#include "cpu.h"

typedef void fpfn(uint64_t *r, uint64_t a, uint64_t b, uint64_t c, uint64_t cr, uint64_t *sr, uint64_t *nz);

#define FPX(name, text)                                                        \
	static void name(uint64_t *r, uint64_t a, uint64_t b, uint64_t c, uint64_t cr, uint64_t *sr, uint64_t *nz) \
	{                                                                      \
		uint64_t d, s, f = *nz;                                        \
		__asm__ volatile("fmov d1, %[a]\n\tfmov d2, %[b]\n\tfmov d3, %[c]\n\tmovi d0, #0\n\t" \
				 "msr fpcr, %[cr]\n\tmsr fpsr, xzr\n\tmsr nzcv, %[f]\n\tmov %[d], xzr\n\t" text \
				 "\n\tmrs %[s], fpsr\n\tmrs %[f], nzcv\n\tmsr fpcr, xzr\n\tfmov %[g], d0\n\torr %[d], %[d], %[g]" \
				 : [d] "=&r"(d), [s] "=&r"(s), [f] "+&r"(f), [g] "=&r"(*r) \
				 : [a] "r"(a), [b] "r"(b), [c] "r"(c), [cr] "r"(cr) : "cc", "v0", "v1", "v2", "v3"); \
		*r = d, *sr = s, *nz = f;                                      \
	}
/* Each as single (s) and double (d) precision. */
#define SD2(op) FPX(f_##op##_s, #op " s0, s1, s2") FPX(f_##op##_d, #op " d0, d1, d2")
#define SD1(op) FPX(f_##op##_s, #op " s0, s1") FPX(f_##op##_d, #op " d0, d1")
#define SD3(op) FPX(f_##op##_s, #op " s0, s1, s2, s3") FPX(f_##op##_d, #op " d0, d1, d2, d3")
SD2(fadd) SD2(fsub) SD2(fmul) SD2(fdiv) SD2(fmulx) SD2(fnmul) SD2(fmax) SD2(fmin) SD2(fmaxnm) SD2(fminnm) SD2(fabd)
SD2(frecps) SD2(frsqrts)
SD1(fsqrt) SD1(fabs) SD1(fneg) SD1(frintn) SD1(frintp) SD1(frintm) SD1(frintz) SD1(frinta) SD1(frintx) SD1(frinti)
SD1(frecpe) SD1(frsqrte) SD1(frecpx)
SD3(fmadd) SD3(fmsub) SD3(fnmadd) SD3(fnmsub)
FPX(f_fcmp_s, "fcmp s1, s2") FPX(f_fcmp_d, "fcmp d1, d2") FPX(f_fcmpe_s, "fcmpe s1, s2") FPX(f_fcmpe_d, "fcmpe d1, d2")
FPX(f_fcmp0_d, "fcmp d1, #0.0") FPX(f_fccmp_d_ge, "fccmp d1, d2, #3, ge") FPX(f_fccmpe_s_ne, "fccmpe s1, s2, #8, ne")
FPX(f_fcsel_d_mi, "fcsel d0, d1, d2, mi")
FPX(f_fcvt_ds, "fcvt d0, s1") FPX(f_fcvt_sd, "fcvt s0, d1") FPX(f_fcvt_hs, "fcvt h0, s1") FPX(f_fcvt_sh, "fcvt s0, h1")
FPX(f_fcvt_hd, "fcvt h0, d1") FPX(f_fcvt_dh, "fcvt d0, h1")
#define CVT(op) FPX(f_##op##_xd, #op " %[d], d1") FPX(f_##op##_wd, #op " %w[d], d1") \
	FPX(f_##op##_ws, #op " %w[d], s1") FPX(f_##op##_xs, #op " %[d], s1")
CVT(fcvtzs) CVT(fcvtzu) CVT(fcvtns) CVT(fcvtnu) CVT(fcvtms) CVT(fcvtmu) CVT(fcvtps) CVT(fcvtpu) CVT(fcvtas) CVT(fcvtau)
FPX(f_fcvtzs_fix16, "fcvtzs %[d], d1, #16") FPX(f_fcvtzu_fix32_w, "fcvtzu %w[d], s1, #32")
FPX(f_scvtf_dx, "scvtf d0, %[a]") FPX(f_ucvtf_dx, "ucvtf d0, %[a]") FPX(f_scvtf_sw, "scvtf s0, %w[a]")
FPX(f_ucvtf_sx, "ucvtf s0, %[a]") FPX(f_scvtf_sx, "scvtf s0, %[a]") FPX(f_scvtf_fix8, "scvtf d0, %[a], #8")
FPX(f_fmov_imm, "fmov d0, #-1.25") FPX(f_fmov_gs, "fmov s0, %w[a]")

enum { K_S, K_D, K_H, K_INT };
struct form {
	const char *name;
	fpfn *fn;
	int kind;
};
#define F(n, k) {#n, f_##n, k},
#define FSD(n) F(n##_s, K_S) F(n##_d, K_D)
#define FC(op) F(op##_xd, K_D) F(op##_wd, K_D) F(op##_ws, K_S) F(op##_xs, K_S)
static const struct form forms[] = {
	FSD(fadd) FSD(fsub) FSD(fmul) FSD(fdiv) FSD(fmulx) FSD(fnmul) FSD(fmax) FSD(fmin) FSD(fmaxnm) FSD(fminnm) FSD(fabd)
	FSD(frecps) FSD(frsqrts) FSD(fsqrt) FSD(fabs) FSD(fneg) FSD(frintn) FSD(frintp) FSD(frintm) FSD(frintz)
	FSD(frinta) FSD(frintx) FSD(frinti) FSD(frecpe) FSD(frsqrte) FSD(frecpx)
	FSD(fmadd) FSD(fmsub) FSD(fnmadd) FSD(fnmsub)
	F(fcmp_s, K_S) F(fcmp_d, K_D) F(fcmpe_s, K_S) F(fcmpe_d, K_D) F(fcmp0_d, K_D) F(fccmp_d_ge, K_D)
	F(fccmpe_s_ne, K_S) F(fcsel_d_mi, K_D)
	F(fcvt_ds, K_S) F(fcvt_sd, K_D) F(fcvt_hs, K_S) F(fcvt_sh, K_H) F(fcvt_hd, K_D) F(fcvt_dh, K_H)
	FC(fcvtzs) FC(fcvtzu) FC(fcvtns) FC(fcvtnu) FC(fcvtms) FC(fcvtmu) FC(fcvtps) FC(fcvtpu) FC(fcvtas) FC(fcvtau)
	F(fcvtzs_fix16, K_D) F(fcvtzu_fix32_w, K_S)
	F(scvtf_dx, K_INT) F(ucvtf_dx, K_INT) F(scvtf_sw, K_INT) F(ucvtf_sx, K_INT) F(scvtf_sx, K_INT) F(scvtf_fix8, K_INT)
	F(fmov_imm, K_D) F(fmov_gs, K_S)
};

#define NEDGE 12
#define NRAND 24

static uint64_t value(int kind, int i, int which)
{
	static const uint16_t h_edges[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff,
					   0x7c00, 0xfc00, 0x7e00, 0x7d01};
	int e = which == 0 ? i % NEDGE : which == 1 ? i / NEDGE : (i * 7) % NEDGE;
	int edge = i < NEDGE * NEDGE;
	switch (kind) {
	case K_S: return edge ? f32_edges[e] : rnd_f32();
	case K_D: return edge ? f64_edges[e] : rnd_f64();
	case K_H: return edge ? h_edges[e] : rnd() & 0xffff;
	default: return edge ? int_edges[e] : rnd_int();
	}
}

int main(void)
{
	static const struct {
		const char *name;
		uint64_t fpcr;
	} modes[] = {
		{"rn", 0}, {"rp", 1 << 22}, {"rm", 2 << 22}, {"rz", 3 << 22},
		{"rn.fz", 1 << 24}, {"rn.dn", 1 << 25}, {"rn.fz.dn", 3 << 24}, {"rz.fz.dn", 3 << 24 | 3 << 22},
		{"rn.ahp", 1 << 26}, /* alternative half precision: the fcvt forms with h */
	};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
		for (size_t md = 0; md < sizeof modes / sizeof modes[0]; md++)
			for (int i = 0; i < NEDGE * NEDGE + NRAND; i++) {
				int k = forms[f].kind;
				uint64_t a = value(k, i, 0), b = value(k, i, 1), c = value(k, i, 2);
				uint64_t r, sr, nz = (rnd() & 0xf) << 28, nzi = nz;
				forms[f].fn(&r, a, b, c, modes[md].fpcr, &sr, &nz);
				pr("%s %s #%d a=%llx b=%llx c=%llx f=%x : %016llx nzcv=%x\n%s %s #%d fpsr=%08llx\n",
				   forms[f].name, modes[md].name, i, (unsigned long long)a, (unsigned long long)b,
				   (unsigned long long)c, (unsigned)(nzi >> 28), (unsigned long long)r, (unsigned)(nz >> 28),
				   forms[f].name, modes[md].name, i, (unsigned long long)sr);
			}
	pr_flush();
	return 0;
}
