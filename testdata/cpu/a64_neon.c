/* a64_neon.c: Advanced SIMD integer, saturating (FPSR.QC), permute,
 * table, floating-point and crypto (AES, SHA-1, SHA-256, PMULL: all that
 * AT_HWCAP advertises under icount) instructions on pseudo-random
 * vectors:
 *
 *   FORM MODE #N a=HI:LO b=HI:LO d=HI:LO : RESULT
 *   FORM MODE #N fpsr=FPSR
 *
 * The operands are v1 (a), v2 (b) and v0 (d, the destination's value
 * before: accumulating and inserting forms read it); the result is v0.
 * FPSR is cleared before each form. Integer forms run in one mode; the
 * floating-point ones to nearest and toward zero with FZ and DN. */
#include "cpu.h"

typedef uint64_t v2 __attribute__((vector_size(16)));
typedef void nfn(v2 *d, const v2 *a, const v2 *b, uint64_t cr, uint64_t *sr);

#define N(name, text)                                                          \
	static void name(v2 *d, const v2 *a, const v2 *b, uint64_t cr, uint64_t *sr) \
	{                                                                      \
		uint64_t s;                                                    \
		__asm__ volatile("ldr q1, [%[a]]\n\tldr q2, [%[b]]\n\tldr q0, [%[d]]\n\tmsr fpcr, %[cr]\n\tmsr fpsr, xzr\n\t" \
				 text "\n\tmrs %[s], fpsr\n\tmsr fpcr, xzr\n\tstr q0, [%[d]]" \
				 : [s] "=&r"(s) : [a] "r"(a), [b] "r"(b), [d] "r"(d), [cr] "r"(cr) \
				 : "memory", "v0", "v1", "v2", "v3");           \
		*sr = s;                                                       \
	}
#define N3(op, t) N(n_##op##_##t, #op " v0." #t ", v1." #t ", v2." #t)
#define N3BHS(op) N3(op, 16b) N3(op, 8h) N3(op, 4s)
#define N3ALL(op) N3BHS(op) N3(op, 2d)
N3ALL(add) N3ALL(sub) N3BHS(mul) N3BHS(mla) N3BHS(mls)
N3ALL(sqadd) N3ALL(uqadd) N3ALL(sqsub) N3ALL(uqsub) N3ALL(sshl) N3ALL(ushl) N3ALL(srshl) N3ALL(urshl)
N3ALL(sqshl) N3ALL(uqshl) N3ALL(sqrshl) N3ALL(cmeq) N3ALL(cmgt) N3ALL(cmhi) N3ALL(cmtst)
N3(sqdmulh, 8h) N3(sqdmulh, 4s) N3(sqrdmulh, 8h) N3(sqrdmulh, 4s)
N3BHS(smax) N3BHS(uminp) N3BHS(sabd) N3BHS(uhadd) N3BHS(srhadd) N3BHS(addp)
N3(pmul, 16b) N3(and, 16b) N3(bic, 16b) N3(orr, 16b) N3(eor, 16b) N3(bsl, 16b) N3(bit, 16b) N3(bif, 16b)
N3(uzp1, 16b) N3(uzp2, 8h) N3(zip1, 4s) N3(zip2, 2d) N3(trn1, 16b) N3(trn2, 4s)
N(n_smull_8h, "smull v0.8h, v1.8b, v2.8b") N(n_umull2_4s, "umull2 v0.4s, v1.8h, v2.8h")
N(n_umlal_2d, "umlal v0.2d, v1.2s, v2.2s") N(n_sqdmull_4s, "sqdmull v0.4s, v1.4h, v2.4h")
N(n_sqdmlal2_2d, "sqdmlal2 v0.2d, v1.4s, v2.4s") N(n_saddl_8h, "saddl v0.8h, v1.8b, v2.8b")
N(n_uaddw2_4s, "uaddw2 v0.4s, v1.4s, v2.8h") N(n_addhn_8b, "addhn v0.8b, v1.8h, v2.8h")
N(n_raddhn2_16b, "raddhn2 v0.16b, v1.8h, v2.8h") N(n_pmull_8h, "pmull v0.8h, v1.8b, v2.8b")
N(n_mul_elem_4s, "mul v0.4s, v1.4s, v2.s[3]") N(n_sqdmulh_elem_8h, "sqdmulh v0.8h, v1.8h, v2.h[5]")
N(n_shl_8h, "shl v0.8h, v1.8h, #3") N(n_sshr_4s, "sshr v0.4s, v1.4s, #31") N(n_ushr_2d, "ushr v0.2d, v1.2d, #64")
N(n_srshr_16b, "srshr v0.16b, v1.16b, #8") N(n_ssra_8h, "ssra v0.8h, v1.8h, #15") N(n_sli_4s, "sli v0.4s, v1.4s, #7")
N(n_sri_2d, "sri v0.2d, v1.2d, #33") N(n_sqshl_imm_16b, "sqshl v0.16b, v1.16b, #5")
N(n_uqshl_imm_8h, "uqshl v0.8h, v1.8h, #9") N(n_sqshlu_4s, "sqshlu v0.4s, v1.4s, #30")
N(n_shrn_8b, "shrn v0.8b, v1.8h, #4") N(n_rshrn2_8h, "rshrn2 v0.8h, v1.4s, #16")
N(n_sqshrn_4h, "sqshrn v0.4h, v1.4s, #3") N(n_uqrshrn_8b, "uqrshrn v0.8b, v1.8h, #1")
N(n_sqrshrun_2s, "sqrshrun v0.2s, v1.2d, #20") N(n_sshll_8h, "sshll v0.8h, v1.8b, #7")
N(n_ushll2_2d, "ushll2 v0.2d, v1.4s, #0") N(n_xtn_8b, "xtn v0.8b, v1.8h") N(n_sqxtn_4h, "sqxtn v0.4h, v1.4s")
N(n_uqxtn2_4s, "uqxtn2 v0.4s, v1.2d") N(n_sqxtun_8b, "sqxtun v0.8b, v1.8h")
N(n_abs_4s, "abs v0.4s, v1.4s") N(n_neg_2d, "neg v0.2d, v1.2d") N(n_sqabs_16b, "sqabs v0.16b, v1.16b")
N(n_sqneg_8h, "sqneg v0.8h, v1.8h") N(n_suqadd_4s, "suqadd v0.4s, v1.4s") N(n_usqadd_16b, "usqadd v0.16b, v1.16b")
N(n_cnt_16b, "cnt v0.16b, v1.16b") N(n_clz_4s, "clz v0.4s, v1.4s") N(n_cls_8h, "cls v0.8h, v1.8h")
N(n_rbit_16b, "rbit v0.16b, v1.16b") N(n_rev64_4s, "rev64 v0.4s, v1.4s") N(n_rev16_16b, "rev16 v0.16b, v1.16b")
N(n_not_16b, "not v0.16b, v1.16b") N(n_cmeq0_8h, "cmeq v0.8h, v1.8h, #0") N(n_cmlt0_4s, "cmlt v0.4s, v1.4s, #0")
N(n_addv_16b, "addv b0, v1.16b") N(n_uaddlv_8h, "uaddlv s0, v1.8h") N(n_smaxv_4s, "smaxv s0, v1.4s")
N(n_uminv_16b, "uminv b0, v1.16b") N(n_saddlp_4s, "saddlp v0.4s, v1.8h") N(n_uadalp_2d, "uadalp v0.2d, v1.4s")
N(n_ext_3, "ext v0.16b, v1.16b, v2.16b, #3") N(n_dup_elem_8h, "dup v0.8h, v1.h[6]") N(n_ins_s, "ins v0.s[2], v1.s[1]")
N(n_umov_dup, "umov w9, v1.b[13]\n\tdup v0.16b, w9") N(n_smov_dup, "smov x9, v1.h[3]\n\tdup v0.2d, x9")
N(n_tbl1, "tbl v0.16b, {v1.16b}, v2.16b") N(n_tbx1, "tbx v0.16b, {v1.16b}, v2.16b")
N(n_tbl2, "mov v3.16b, v0.16b\n\ttbl v0.16b, {v2.16b, v3.16b}, v1.16b")
N(n_sqadd_scalar_h, "sqadd h0, h1, h2") N(n_uqsub_scalar_d, "uqsub d0, d1, d2") N(n_sqdmulh_scalar_s, "sqdmulh s0, s1, s2")
N(n_sqshl_scalar_b, "sqshl b0, b1, #7") N(n_ushl_scalar_d, "ushl d0, d1, d2")
/* Floating point. */
#define NF(op) N3(op, 4s) N3(op, 2d)
NF(fadd) NF(fsub) NF(fmul) NF(fdiv) NF(fmax) NF(fmin) NF(fmaxnm) NF(fminnm) NF(fmla) NF(fmls) NF(fabd)
NF(faddp) NF(fmulx) NF(frecps) NF(frsqrts) NF(fcmeq) NF(fcmge) NF(facgt)
N(n_fsqrt_4s, "fsqrt v0.4s, v1.4s") N(n_frecpe_4s, "frecpe v0.4s, v1.4s") N(n_frsqrte_4s, "frsqrte v0.4s, v1.4s")
N(n_frecpe_2d, "frecpe v0.2d, v1.2d") N(n_frsqrte_2d, "frsqrte v0.2d, v1.2d") N(n_urecpe_4s, "urecpe v0.4s, v1.4s")
N(n_ursqrte_4s, "ursqrte v0.4s, v1.4s") N(n_frintn_4s, "frintn v0.4s, v1.4s") N(n_frintx_2d, "frintx v0.2d, v1.2d")
N(n_fcvtzs_4s, "fcvtzs v0.4s, v1.4s") N(n_fcvtau_2d, "fcvtau v0.2d, v1.2d") N(n_fcvtzs_fix_4s, "fcvtzs v0.4s, v1.4s, #12")
N(n_scvtf_4s, "scvtf v0.4s, v1.4s") N(n_ucvtf_2d, "ucvtf v0.2d, v1.2d") N(n_fcvtn_4s, "fcvtn v0.2s, v1.2d")
N(n_fcvtn2_8h, "fcvtn2 v0.8h, v1.4s") N(n_fcvtl_2d, "fcvtl v0.2d, v1.2s") N(n_fcvtl2_4s, "fcvtl2 v0.4s, v1.8h")
N(n_fcvtxn_2s, "fcvtxn v0.2s, v1.2d") N(n_fmaxnmv_4s, "fmaxnmv s0, v1.4s") N(n_fminv_4s, "fminv s0, v1.4s")
N(n_fmla_elem_2d, "fmla v0.2d, v1.2d, v2.d[1]") N(n_fabs_4s, "fabs v0.4s, v1.4s") N(n_fneg_2d, "fneg v0.2d, v1.2d")
/* Crypto. */
N(n_aese, "aese v0.16b, v1.16b") N(n_aesd, "aesd v0.16b, v1.16b") N(n_aesmc, "aesmc v0.16b, v1.16b")
N(n_aesimc, "aesimc v0.16b, v1.16b") N(n_sha1c, "sha1c q0, s1, v2.4s") N(n_sha1p, "sha1p q0, s1, v2.4s")
N(n_sha1m, "sha1m q0, s1, v2.4s") N(n_sha1h, "sha1h s0, s1") N(n_sha1su0, "sha1su0 v0.4s, v1.4s, v2.4s")
N(n_sha1su1, "sha1su1 v0.4s, v1.4s") N(n_sha256h, "sha256h q0, q1, v2.4s") N(n_sha256h2, "sha256h2 q0, q1, v2.4s")
N(n_sha256su0, "sha256su0 v0.4s, v1.4s") N(n_sha256su1, "sha256su1 v0.4s, v1.4s, v2.4s")
N(n_pmull_1q, "pmull v0.1q, v1.1d, v2.1d") N(n_pmull2_1q, "pmull2 v0.1q, v1.2d, v2.2d")

/* Structure loads and stores on a buffer holding a, b, d and a ^ b; the
 * result is v0, combined with v1 where the form loads more registers
 * (subtracted: swapped registers would show). */
static v2 nbuf[4];
#define NM(name, text)                                                         \
	static void name(v2 *d, const v2 *a, const v2 *b, uint64_t cr, uint64_t *sr) \
	{                                                                      \
		nbuf[0] = *a, nbuf[1] = *b, nbuf[2] = *d, nbuf[3] = *a ^ *b;    \
		__asm__ volatile("ldr q1, [%[a]]\n\tldr q2, [%[b]]\n\tldr q0, [%[d]]\n\t" text "\n\tstr q0, [%[d]]" \
				 : : [a] "r"(a), [b] "r"(b), [d] "r"(d), [m] "r"(nbuf) : "memory", "v0", "v1", "v2", "v3"); \
		(void)cr, *sr = 0;                                             \
	}
NM(n_ld2_8h, "ld2 {v0.8h, v1.8h}, [%[m]]\n\tsub v0.8h, v0.8h, v1.8h")
NM(n_ld3_16b, "ld3 {v0.16b, v1.16b, v2.16b}, [%[m]]\n\tsub v0.16b, v0.16b, v1.16b\n\tsub v0.16b, v0.16b, v2.16b")
NM(n_ld4_4s, "ld4 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[m]]\n\tsub v0.4s, v0.4s, v3.4s")
NM(n_ld1r_8h, "ld1r {v0.8h}, [%[m]]") NM(n_ld1_lane_s, "add x9, %[m], #20\n\tld1 {v0.s}[2], [x9]")
NM(n_ld1_2reg, "ld1 {v0.2d, v1.2d}, [%[m]]\n\tsub v0.2d, v0.2d, v1.2d")
NM(n_st2_4s, "st2 {v1.4s, v2.4s}, [%[m]]\n\tldr q0, [%[m], #16]")
NM(n_st3_8h, "mov v3.16b, v0.16b\n\tst3 {v1.8h, v2.8h, v3.8h}, [%[m]]\n\tldr q0, [%[m], #24]")
NM(n_st1_lane_b, "st1 {v1.b}[9], [%[m]]\n\tldr q0, [%[m]]")
NM(n_st4_lane_h, "mov v3.16b, v0.16b\n\tmov v0.16b, v1.16b\n\tmov v1.16b, v2.16b\n\tmov v2.16b, v3.16b\n\t"
	"st4 {v0.h, v1.h, v2.h, v3.h}[5], [%[m]]\n\tldr q0, [%[m]]")
NM(n_ldp_q, "ldp q0, q1, [%[m], #16]\n\tsub v0.2d, v0.2d, v1.2d")

struct form {
	const char *name;
	nfn *fn;
	int fp; /* floating point: lanes of floats (4s) or doubles (2d) */
};
#define F(n) {#n, n_##n, 0},
#define FF(n, k) {#n, n_##n, k},
#define F3(op, t) F(op##_##t)
#define F3BHS(op) F3(op, 16b) F3(op, 8h) F3(op, 4s)
#define F3ALL(op) F3BHS(op) F3(op, 2d)
#define FNF(op) FF(op##_4s, 4) FF(op##_2d, 2)
static const struct form forms[] = {
	F3ALL(add) F3ALL(sub) F3BHS(mul) F3BHS(mla) F3BHS(mls)
	F3ALL(sqadd) F3ALL(uqadd) F3ALL(sqsub) F3ALL(uqsub) F3ALL(sshl) F3ALL(ushl) F3ALL(srshl) F3ALL(urshl)
	F3ALL(sqshl) F3ALL(uqshl) F3ALL(sqrshl) F3ALL(cmeq) F3ALL(cmgt) F3ALL(cmhi) F3ALL(cmtst)
	F(sqdmulh_8h) F(sqdmulh_4s) F(sqrdmulh_8h) F(sqrdmulh_4s)
	F3BHS(smax) F3BHS(uminp) F3BHS(sabd) F3BHS(uhadd) F3BHS(srhadd) F3BHS(addp)
	F(pmul_16b) F(and_16b) F(bic_16b) F(orr_16b) F(eor_16b) F(bsl_16b) F(bit_16b) F(bif_16b)
	F(uzp1_16b) F(uzp2_8h) F(zip1_4s) F(zip2_2d) F(trn1_16b) F(trn2_4s)
	F(smull_8h) F(umull2_4s) F(umlal_2d) F(sqdmull_4s) F(sqdmlal2_2d) F(saddl_8h) F(uaddw2_4s) F(addhn_8b)
	F(raddhn2_16b) F(pmull_8h) F(mul_elem_4s) F(sqdmulh_elem_8h)
	F(shl_8h) F(sshr_4s) F(ushr_2d) F(srshr_16b) F(ssra_8h) F(sli_4s) F(sri_2d) F(sqshl_imm_16b) F(uqshl_imm_8h)
	F(sqshlu_4s) F(shrn_8b) F(rshrn2_8h) F(sqshrn_4h) F(uqrshrn_8b) F(sqrshrun_2s) F(sshll_8h) F(ushll2_2d)
	F(xtn_8b) F(sqxtn_4h) F(uqxtn2_4s) F(sqxtun_8b)
	F(abs_4s) F(neg_2d) F(sqabs_16b) F(sqneg_8h) F(suqadd_4s) F(usqadd_16b) F(cnt_16b) F(clz_4s) F(cls_8h)
	F(rbit_16b) F(rev64_4s) F(rev16_16b) F(not_16b) F(cmeq0_8h) F(cmlt0_4s)
	F(addv_16b) F(uaddlv_8h) F(smaxv_4s) F(uminv_16b) F(saddlp_4s) F(uadalp_2d)
	F(ext_3) F(dup_elem_8h) F(ins_s) F(umov_dup) F(smov_dup) F(tbl1) F(tbx1) F(tbl2)
	F(sqadd_scalar_h) F(uqsub_scalar_d) F(sqdmulh_scalar_s) F(sqshl_scalar_b) F(ushl_scalar_d)
	FNF(fadd) FNF(fsub) FNF(fmul) FNF(fdiv) FNF(fmax) FNF(fmin) FNF(fmaxnm) FNF(fminnm) FNF(fmla) FNF(fmls)
	FNF(fabd) FNF(faddp) FNF(fmulx) FNF(frecps) FNF(frsqrts) FNF(fcmeq) FNF(fcmge) FNF(facgt)
	FF(fsqrt_4s, 4) FF(frecpe_4s, 4) FF(frsqrte_4s, 4) FF(frecpe_2d, 2) FF(frsqrte_2d, 2) F(urecpe_4s) F(ursqrte_4s)
	FF(frintn_4s, 4) FF(frintx_2d, 2) FF(fcvtzs_4s, 4) FF(fcvtau_2d, 2) FF(fcvtzs_fix_4s, 4) F(scvtf_4s)
	F(ucvtf_2d) FF(fcvtn_4s, 2) FF(fcvtn2_8h, 4) FF(fcvtl_2d, 4) FF(fcvtl2_4s, 0) FF(fcvtxn_2s, 2)
	FF(fmaxnmv_4s, 4) FF(fminv_4s, 4) FF(fmla_elem_2d, 2) FF(fabs_4s, 4) FF(fneg_2d, 2)
	F(aese) F(aesd) F(aesmc) F(aesimc) F(sha1c) F(sha1p) F(sha1m) F(sha1h) F(sha1su0) F(sha1su1)
	F(sha256h) F(sha256h2) F(sha256su0) F(sha256su1) F(pmull_1q) F(pmull2_1q)
	F(ld2_8h) F(ld3_16b) F(ld4_4s) F(ld1r_8h) F(ld1_lane_s) F(ld1_2reg) F(st2_4s) F(st3_8h) F(st1_lane_b)
	F(st4_lane_h) F(ldp_q)
};

/* A vector of lanes biased to the saturation boundaries (integer) or to
 * edge values (floating point); shift-count bytes small and negative. */
static v2 vec(int fp)
{
	static const uint16_t e[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0xfff8, 0x0010};
	uint64_t w[2];
	for (int j = 0; j < 2; j++) {
		if (fp == 4)
			w[j] = rnd_f32() | (uint64_t)rnd_f32() << 32;
		else if (fp == 2)
			w[j] = rnd_f64();
		else {
			w[j] = 0;
			for (int k = 0; k < 4; k++) {
				uint64_t r = rnd();
				w[j] |= (r & 3 ? r >> 20 & 0xffff : e[(r >> 8) % 10]) << 16 * k;
			}
		}
	}
	return (v2){w[0], w[1]};
}

#define NVEC 128

int main(void)
{
	static const struct {
		const char *name;
		uint64_t fpcr;
	} modes[] = {{"rn", 0}, {"rz.fz.dn", 3 << 24 | 3 << 22}};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
		for (int md = 0; md < (forms[f].fp ? 2 : 1); md++)
			for (int i = 0; i < NVEC; i++) {
				v2 a = vec(forms[f].fp), b = vec(i & 1 ? forms[f].fp : 0), d = vec(forms[f].fp), r = d;
				if (i < 16) /* small and negative shift counts, table indexes */
					b = (v2){0x0102030405060708ULL * (uint64_t)i, 0xf8f9fafbfcfdfeffULL + (uint64_t)i * 0x0101};
				uint64_t sr;
				forms[f].fn(&r, &a, &b, modes[md].fpcr, &sr);
				pr("%s %s #%d a=%016llx:%016llx b=%016llx:%016llx d=%016llx:%016llx : %016llx:%016llx\n"
				   "%s %s #%d fpsr=%08llx\n",
				   forms[f].name, modes[md].name, i, (unsigned long long)a[1], (unsigned long long)a[0],
				   (unsigned long long)b[1], (unsigned long long)b[0], (unsigned long long)d[1],
				   (unsigned long long)d[0], (unsigned long long)r[1], (unsigned long long)r[0],
				   forms[f].name, modes[md].name, i, (unsigned long long)sr);
			}
	pr_flush();
	return 0;
}
