/* x86_sse.c: SSE, SSE2 and SSE3 (all the emulated CPU advertises; no
 * SSSE3 or later) on edge and pseudo-random inputs, the floating-point
 * forms in eight MXCSR modes (the four rounding modes, and round to
 * nearest and toward zero with FTZ and DAZ), all exceptions masked:
 *
 *   FORM MODE #N a=HI:LO b=HI:LO : RESULT [fl=RFLAGS]
 *   FORM MODE #N mxcsr=XXXXXXXX
 *
 * a is the destination register's value before, b the source. MXCSR is
 * loaded before each form and printed whole after it (every bit is
 * defined; the exception flags are sticky, so each form starts with them
 * clear). comiss/ucomiss/comisd/ucomisd define ZF PF CF and clear OF SF AF
 * (fl is masked to those six). The integer forms run in one mode and
 * print no MXCSR. Scalar forms print the whole register: the upper lanes
 * must be kept. */
#include "cpu.h"

typedef uint64_t v2 __attribute__((vector_size(16)));
typedef void ssefn(v2 *d, v2 s, uint32_t *mx, uint64_t *fl, uint64_t *g);

#define V(name, text)                                                          \
	static void name(v2 *d, v2 s, uint32_t *mx, uint64_t *fl, uint64_t *g) \
	{                                                                      \
		v2 x = *d, sm = s;                                             \
		uint32_t m = *mx;                                              \
		uint64_t f, gg = *g;                                           \
		__asm__ volatile("ldmxcsr %[m]\n\t" text "\n\tpushfq\n\tpopq %[f]\n\tstmxcsr %[m]" \
				 : [x] "+x"(x), [m] "+m"(m), [f] "=r"(f), [g] "+r"(gg) \
				 : [s] "x"(s), [sm] "m"(sm) : "cc");            \
		*d = x, *mx = m, *fl = f, *g = gg;                             \
	}
#define VOP(op) V(s_##op, #op " %[s], %[x]")
#define VOP4(op) VOP(op##ss) VOP(op##sd) VOP(op##ps) VOP(op##pd)
VOP4(add) VOP4(sub) VOP4(mul) VOP4(div) VOP4(sqrt) VOP4(min) VOP4(max)
VOP(comiss) VOP(ucomiss) VOP(comisd) VOP(ucomisd)
VOP(rcpss) VOP(rsqrtss) VOP(rcpps) VOP(rsqrtps)
VOP(cvtss2sd) VOP(cvtsd2ss) VOP(cvtps2pd) VOP(cvtpd2ps) VOP(cvtdq2ps) VOP(cvtps2dq) VOP(cvttps2dq)
VOP(cvtdq2pd) VOP(cvtpd2dq) VOP(cvttpd2dq)
VOP(haddpd) VOP(haddps) VOP(hsubpd) VOP(hsubps) VOP(addsubpd) VOP(addsubps)
VOP(andps) VOP(andnps) VOP(orps) VOP(xorps) VOP(andpd) VOP(unpcklps) VOP(unpckhpd) VOP(movhlps) VOP(movlhps)
VOP(movss) VOP(movsd) VOP(movddup) VOP(movshdup) VOP(movsldup)
#define CMPS(p) V(s_cmpss_##p, "cmpss $" #p ", %[s], %[x]") V(s_cmpsd_##p, "cmpsd $" #p ", %[s], %[x]")
CMPS(0) CMPS(1) CMPS(2) CMPS(3) CMPS(4) CMPS(5) CMPS(6) CMPS(7)
#define CMPP(p) V(s_cmpps_##p, "cmpps $" #p ", %[s], %[x]") V(s_cmppd_##p, "cmppd $" #p ", %[s], %[x]")
CMPP(0) CMPP(1) CMPP(2) CMPP(3) CMPP(4) CMPP(5) CMPP(6) CMPP(7)
/* Conversions with a general register (g) on one side. */
V(s_cvtsi2sd32, "cvtsi2sdl %k[g], %[x]") V(s_cvtsi2sd64, "cvtsi2sdq %q[g], %[x]")
V(s_cvtsi2ss32, "cvtsi2ssl %k[g], %[x]") V(s_cvtsi2ss64, "cvtsi2ssq %q[g], %[x]")
V(s_cvtsd2si32, "cvtsd2si %[s], %k[g]") V(s_cvtsd2si64, "cvtsd2si %[s], %q[g]")
V(s_cvttsd2si32, "cvttsd2si %[s], %k[g]") V(s_cvttsd2si64, "cvttsd2si %[s], %q[g]")
V(s_cvtss2si32, "cvtss2si %[s], %k[g]") V(s_cvtss2si64, "cvtss2si %[s], %q[g]")
V(s_cvttss2si32, "cvttss2si %[s], %k[g]") V(s_cvttss2si64, "cvttss2si %[s], %q[g]")
/* Integer SIMD. */
#define IOPS(X) X(paddb) X(paddw) X(paddd) X(paddq) X(psubb) X(psubw) X(psubd) X(psubq) \
	X(paddsb) X(paddsw) X(paddusb) X(paddusw) X(psubsb) X(psubsw) X(psubusb) X(psubusw) \
	X(pmullw) X(pmulhw) X(pmulhuw) X(pmuludq) X(pmaddwd) X(pavgb) X(pavgw) X(pmaxsw) X(pmaxub) \
	X(pminsw) X(pminub) X(psadbw) X(pcmpeqb) X(pcmpeqw) X(pcmpeqd) X(pcmpgtb) X(pcmpgtw) X(pcmpgtd) \
	X(pand) X(pandn) X(por) X(pxor) X(punpcklbw) X(punpcklwd) X(punpckldq) X(punpcklqdq) \
	X(punpckhbw) X(punpckhwd) X(punpckhdq) X(punpckhqdq) X(packsswb) X(packssdw) X(packuswb) \
	X(psllw) X(pslld) X(psllq) X(psrlw) X(psrld) X(psrlq) X(psraw) X(psrad)
IOPS(VOP)
V(s_psllw_3, "psllw $3, %[x]") V(s_pslld_31, "pslld $31, %[x]") V(s_pslld_32, "pslld $32, %[x]")
V(s_psrlq_1, "psrlq $1, %[x]") V(s_psrlq_64, "psrlq $64, %[x]") V(s_psrad_31, "psrad $31, %[x]")
V(s_psraw_16, "psraw $16, %[x]") V(s_pslldq_5, "pslldq $5, %[x]") V(s_psrldq_11, "psrldq $11, %[x]")
V(s_psrldq_16, "psrldq $16, %[x]")
V(s_pshufd_1b, "pshufd $0x1b, %[s], %[x]") V(s_pshuflw_b1, "pshuflw $0xb1, %[s], %[x]")
V(s_pshufhw_4e, "pshufhw $0x4e, %[s], %[x]") V(s_shufps_93, "shufps $0x93, %[s], %[x]")
V(s_shufpd_1, "shufpd $1, %[s], %[x]")
V(s_pmovmskb, "pmovmskb %[s], %k[g]") V(s_movmskps, "movmskps %[s], %k[g]") V(s_movmskpd, "movmskpd %[s], %k[g]")
V(s_movd_to, "movd %k[g], %[x]") V(s_movq_to, "movq %q[g], %[x]") V(s_movd_from, "movd %[s], %k[g]")
V(s_movq_from, "movq %[s], %q[g]") V(s_pinsrw_5, "pinsrw $5, %k[g], %[x]") V(s_pextrw_3, "pextrw $3, %[s], %k[g]")
/* Stores: the destination is memory holding a, the source register b. */
#define VS(name, text)                                                         \
	static void name(v2 *d, v2 s, uint32_t *mx, uint64_t *fl, uint64_t *g) \
	{                                                                      \
		v2 mem = *d;                                                   \
		(void)mx, (void)fl, (void)g;                                   \
		__asm__ volatile(text : [mm] "+m"(mem) : [s] "x"(s));          \
		*d = mem;                                                      \
	}
VS(s_movss_st, "movss %[s], %[mm]") VS(s_movsd_st, "movsd %[s], %[mm]") VS(s_movlps_st, "movlps %[s], %[mm]")
VS(s_movhps_st, "movhps %[s], %[mm]") VS(s_movd_st, "movd %[s], %[mm]") VS(s_movq_st, "movq %[s], %[mm]")
VS(s_movups_st, "movups %[s], %[mm]") VS(s_movntdq_st, "movntdq %[s], %[mm]")
/* Loads, and arithmetic with a memory source. */
V(s_movss_m, "movss %[sm], %[x]") V(s_movsd_m, "movsd %[sm], %[x]") V(s_movlps_m, "movlps %[sm], %[x]")
V(s_movhps_m, "movhps %[sm], %[x]") V(s_movlpd_m, "movlpd %[sm], %[x]") V(s_movhpd_m, "movhpd %[sm], %[x]")
V(s_movd_m, "movd %[sm], %[x]") V(s_movaps_m, "movaps %[sm], %[x]") V(s_movddup_m, "movddup %[sm], %[x]")
V(s_addsd_m, "addsd %[sm], %[x]") V(s_mulps_m, "mulps %[sm], %[x]") V(s_sqrtss_m, "sqrtss %[sm], %[x]")
V(s_cvtss2sd_m, "cvtss2sd %[sm], %[x]") V(s_ucomisd_m, "ucomisd %[sm], %[x]") V(s_cvttsd2si_m, "cvttsd2si %[sm], %q[g]")
V(s_lddqu, "lddqu %[sm], %[x]") V(s_movdqu_m, "movdqu %[sm], %[x]") V(s_movq_m, "movq %[sm], %[x]")

/* Operand kinds: float lanes, double lanes, integer vectors, an integer
 * in a general register. */
enum { K_F32, K_F64, K_INT, K_GPR };

struct sseform {
	const char *name;
	ssefn *fn;
	int kind;
	int fpmodes; /* runs in every MXCSR mode and prints it */
	uint64_t flmask;
};

#define FP(op, k) {#op, s_##op, k, 1, 0}
#define FP4(op) FP(op##ss, K_F32), FP(op##sd, K_F64), FP(op##ps, K_F32), FP(op##pd, K_F64)
#define IN(op) {#op, s_##op, K_INT, 0, 0},
static const struct sseform forms[] = {
	FP4(add), FP4(sub), FP4(mul), FP4(div), FP4(sqrt), FP4(min), FP4(max),
	{"comiss", s_comiss, K_F32, 1, 0x8d5}, {"ucomiss", s_ucomiss, K_F32, 1, 0x8d5},
	{"comisd", s_comisd, K_F64, 1, 0x8d5}, {"ucomisd", s_ucomisd, K_F64, 1, 0x8d5},
	FP(rcpss, K_F32), FP(rsqrtss, K_F32), FP(rcpps, K_F32), FP(rsqrtps, K_F32),
	FP(cvtss2sd, K_F32), FP(cvtsd2ss, K_F64), FP(cvtps2pd, K_F32), FP(cvtpd2ps, K_F64),
	FP(cvtdq2ps, K_INT), FP(cvtps2dq, K_F32), FP(cvttps2dq, K_F32), FP(cvtdq2pd, K_INT),
	FP(cvtpd2dq, K_F64), FP(cvttpd2dq, K_F64),
	FP(cvtsi2sd32, K_GPR), FP(cvtsi2sd64, K_GPR), FP(cvtsi2ss32, K_GPR), FP(cvtsi2ss64, K_GPR),
	FP(cvtsd2si32, K_F64), FP(cvtsd2si64, K_F64), FP(cvttsd2si32, K_F64), FP(cvttsd2si64, K_F64),
	FP(cvtss2si32, K_F32), FP(cvtss2si64, K_F32), FP(cvttss2si32, K_F32), FP(cvttss2si64, K_F32),
	FP(haddpd, K_F64), FP(haddps, K_F32), FP(hsubpd, K_F64), FP(hsubps, K_F32),
	FP(addsubpd, K_F64), FP(addsubps, K_F32),
	FP(cmpss_0, K_F32), FP(cmpss_1, K_F32), FP(cmpss_2, K_F32), FP(cmpss_3, K_F32),
	FP(cmpss_4, K_F32), FP(cmpss_5, K_F32), FP(cmpss_6, K_F32), FP(cmpss_7, K_F32),
	FP(cmpsd_0, K_F64), FP(cmpsd_1, K_F64), FP(cmpsd_2, K_F64), FP(cmpsd_3, K_F64),
	FP(cmpsd_4, K_F64), FP(cmpsd_5, K_F64), FP(cmpsd_6, K_F64), FP(cmpsd_7, K_F64),
	FP(cmpps_0, K_F32), FP(cmpps_1, K_F32), FP(cmpps_2, K_F32), FP(cmpps_3, K_F32),
	FP(cmpps_4, K_F32), FP(cmpps_5, K_F32), FP(cmpps_6, K_F32), FP(cmpps_7, K_F32),
	FP(cmppd_0, K_F64), FP(cmppd_1, K_F64), FP(cmppd_2, K_F64), FP(cmppd_3, K_F64),
	FP(cmppd_4, K_F64), FP(cmppd_5, K_F64), FP(cmppd_6, K_F64), FP(cmppd_7, K_F64),
	IOPS(IN)
	IN(andps) IN(andnps) IN(orps) IN(xorps) IN(andpd) IN(unpcklps) IN(unpckhpd) IN(movhlps) IN(movlhps)
	IN(movss) IN(movsd) IN(movddup) IN(movshdup) IN(movsldup)
	IN(psllw_3) IN(pslld_31) IN(pslld_32) IN(psrlq_1) IN(psrlq_64) IN(psrad_31) IN(psraw_16)
	IN(pslldq_5) IN(psrldq_11) IN(psrldq_16) IN(pshufd_1b) IN(pshuflw_b1) IN(pshufhw_4e)
	IN(shufps_93) IN(shufpd_1) IN(pmovmskb) IN(movmskps) IN(movmskpd) IN(movd_to) IN(movq_to)
	IN(movd_from) IN(movq_from) IN(pinsrw_5) IN(pextrw_3) IN(lddqu) IN(movdqu_m) IN(movq_m)
	IN(movss_st) IN(movsd_st) IN(movlps_st) IN(movhps_st) IN(movd_st) IN(movq_st) IN(movups_st) IN(movntdq_st)
	IN(movss_m) IN(movsd_m) IN(movlps_m) IN(movhps_m) IN(movlpd_m) IN(movhpd_m) IN(movd_m) IN(movaps_m) IN(movddup_m)
	FP(addsd_m, K_F64), FP(mulps_m, K_F32), FP(sqrtss_m, K_F32), FP(cvtss2sd_m, K_F32),
	{"ucomisd_m", s_ucomisd_m, K_F64, 1, 0x8d5}, FP(cvttsd2si_m, K_F64),
};

/* A 16-bit lane biased towards the saturation and sign boundaries. */
static uint64_t rnd_lanes(void)
{
	static const uint16_t e[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x0100, 0xff80};
	uint64_t v = 0;
	for (int k = 0; k < 4; k++) {
		uint64_t r = rnd();
		v |= ((r & 3) ? r >> 16 & 0xffff : e[(r >> 8) % 10]) << 16 * k;
	}
	return v;
}

/* Shift counts in the low quadword of an xmm source: in range, at and
 * beyond each lane width. */
static const uint64_t xcounts[] = {0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 0x100000001ULL};

#define NEDGE 12
#define NRAND 32

/* The edge values tried against each other: ±0, ±denormals, the smallest
 * normal, 1, the largest, infinity, and quiet and signalling NaNs (two
 * NaN operands: which one propagates). */
static const int sel[NEDGE] = {0, 1, 2, 3, 4, 6, 8, 10, 12, 13, 14, 15};

static void input(const struct sseform *x, int i, v2 *a, v2 *b, uint64_t *g)
{
	*g = rnd_int();
	switch (x->kind) {
	case K_F32: {
		uint32_t l[4][2];
		for (int k = 0; k < 4; k++)
			l[k][0] = rnd_f32(), l[k][1] = rnd_f32();
		if (i < NEDGE * NEDGE)
			l[0][0] = f32_edges[sel[i % NEDGE]], l[0][1] = f32_edges[sel[i / NEDGE]];
		*a = (v2){l[0][0] | (uint64_t)l[1][0] << 32, l[2][0] | (uint64_t)l[3][0] << 32};
		*b = (v2){l[0][1] | (uint64_t)l[1][1] << 32, l[2][1] | (uint64_t)l[3][1] << 32};
		break;
	}
	case K_F64:
		*a = (v2){rnd_f64(), rnd_f64()}, *b = (v2){rnd_f64(), rnd_f64()};
		if (i < NEDGE * NEDGE)
			(*a)[0] = f64_edges[sel[i % NEDGE]], (*b)[0] = f64_edges[sel[i / NEDGE]];
		break;
	default:
		*a = (v2){rnd_lanes(), rnd_lanes()}, *b = (v2){rnd_lanes(), rnd_lanes()};
		if (i < (int)(sizeof xcounts / sizeof xcounts[0]))
			(*b)[0] = xcounts[i];
		if (i < (int)N_INT_EDGES)
			*g = int_edges[i];
	}
}

int main(void)
{
	static const struct {
		const char *name;
		uint32_t mxcsr;
	} modes[] = {
		{"rn", 0x1f80}, {"rd", 0x3f80}, {"ru", 0x5f80}, {"rz", 0x7f80},
		{"rn.ftz", 0x9f80}, {"rn.daz", 0x1fc0}, {"rn.ftz.daz", 0x9fc0}, {"rz.ftz.daz", 0xffc0},
	};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		const struct sseform *x = &forms[f];
		int nmodes = x->fpmodes ? 8 : 1;
		int n = x->kind == K_INT || x->kind == K_GPR ? 96 : NEDGE * NEDGE + NRAND;
		for (int md = 0; md < nmodes; md++)
			for (int i = 0; i < n; i++) {
				v2 a, b, r;
				uint64_t g, go, fl;
				input(x, i, &a, &b, &g);
				uint32_t mx = modes[md].mxcsr;
				r = a, go = g;
				x->fn(&r, b, &mx, &fl, &go);
				pr("%s %s #%d a=%016llx:%016llx b=%016llx:%016llx", x->name, modes[md].name, i,
				   (unsigned long long)a[1], (unsigned long long)a[0], (unsigned long long)b[1],
				   (unsigned long long)b[0]);
				if (x->kind == K_GPR || go != g)
					pr(" g=%llx", (unsigned long long)g);
				pr(" : %016llx:%016llx", (unsigned long long)r[1], (unsigned long long)r[0]);
				if (go != g)
					pr(" g=%016llx", (unsigned long long)go);
				if (x->flmask)
					pr(" fl=%03llx", (unsigned long long)(fl & x->flmask));
				pr("\n");
				if (x->fpmodes)
					pr("%s %s #%d mxcsr=%08x\n", x->name, modes[md].name, i, mx);
			}
	}
	pr_flush();
	return 0;
}
