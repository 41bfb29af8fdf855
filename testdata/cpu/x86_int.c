/* x86_int.c: the integer instructions of x86-64 on edge and pseudo-random
 * inputs (cpu.h), each line one form and input:
 *
 *   FORM #N inputs... : results... fl=RFLAGS
 *
 * Each form runs with random input flags (set by popfq) so that flags an
 * instruction leaves unaffected are checked too. RFLAGS is printed masked
 * to the flags the instruction defines; flags Intel's SDM (vol. 2) calls
 * undefined for it are masked out, as the comment of each mask says. Built
 * with -mno-red-zone: the forms push and pop RFLAGS inside inline asm. */
#include "cpu.h"

#define FL_ALL   0x8d5ULL /* OF SF ZF AF PF CF */
#define FL_LOGIC 0x8c5ULL /* and/or/xor/test: AF undefined */
#define FL_MUL   0x801ULL /* mul/imul: SF ZF AF PF undefined */
#define FL_BT    0x041ULL /* bt*: CF; ZF unaffected; OF SF AF PF undefined */
#define FL_BSF   0x040ULL /* bsf/bsr: ZF; CF OF SF AF PF undefined */

#define NRAND 160 /* random inputs per form, besides the edge cases */

/* --- two-operand ALU forms: d op= s ---------------------------------- */
typedef void binfn(uint64_t *d, uint64_t s, uint64_t *fl);

#define BIN(name, m, W)                                                        \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W "[s], %" W \
				 "[v]\n\tpushfq\n\tpopq %[f]"                  \
				 : [v] "+r"(v), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*d = v, *fl = f;                                               \
	}
/* A memory destination, locked (pfx "lock ") or not. */
#define MEMBIN(name, pfx, m, W)                                                \
	static uint64_t name##_mem;                                            \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t f = *fl;                                              \
		name##_mem = *d;                                               \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" pfx m " %" W       \
				 "[s], %[v]\n\tpushfq\n\tpopq %[f]"            \
				 : [v] "+m"(name##_mem), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*d = name##_mem, *fl = f;                                      \
	}
#define LBIN(name, m, W) MEMBIN(name, "lock ", m, W)
#define MBIN(name, m, W) MEMBIN(name, "", m, W)
/* A memory source: d op= the memory s. */
#define BINM(name, m, W)                                                       \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		static uint64_t mem;                                           \
		uint64_t v = *d, f = *fl;                                      \
		mem = s;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %[s], %" W    \
				 "[v]\n\tpushfq\n\tpopq %[f]"                  \
				 : [v] "+r"(v), [f] "+r"(f) : [s] "m"(mem) : "cc"); \
		*d = v, *fl = f;                                               \
	}
/* One-operand forms (the source is unused). */
#define UN(name, m, W)                                                         \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		(void)s;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W            \
				 "[v]\n\tpushfq\n\tpopq %[f]"                  \
				 : [v] "+r"(v), [f] "+r"(f) : : "cc");         \
		*d = v, *fl = f;                                               \
	}
#define MEMUN(name, pfx, m)                                                    \
	static uint64_t name##_mem;                                            \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t f = *fl;                                              \
		(void)s;                                                       \
		name##_mem = *d;                                               \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" pfx m              \
				 " %[v]\n\tpushfq\n\tpopq %[f]"                \
				 : [v] "+m"(name##_mem), [f] "+r"(f) : : "cc"); \
		*d = name##_mem, *fl = f;                                      \
	}
#define LUN(name, m) MEMUN(name, "lock ", m)
#define MUN(name, m) MEMUN(name, "", m)

#define ALL4(M, op) M(op##8, #op "b", "b") M(op##16, #op "w", "w") M(op##32, #op "l", "k") M(op##64, #op "q", "q")
#define LALL4(M, op) M(l##op##8, #op "b", "b") M(l##op##16, #op "w", "w") M(l##op##32, #op "l", "k") M(l##op##64, #op "q", "q")
#define LUALL4(op) LUN(l##op##8, #op "b") LUN(l##op##16, #op "w") LUN(l##op##32, #op "l") LUN(l##op##64, #op "q")
#define MALL4(M, op) M(m##op##8, #op "b", "b") M(m##op##16, #op "w", "w") M(m##op##32, #op "l", "k") M(m##op##64, #op "q", "q")
#define RMALL4(op) BINM(ld_##op##8, #op "b", "b") BINM(ld_##op##16, #op "w", "w") BINM(ld_##op##32, #op "l", "k") BINM(ld_##op##64, #op "q", "q")
#define MUALL4(op) MUN(m##op##8, #op "b") MUN(m##op##16, #op "w") MUN(m##op##32, #op "l") MUN(m##op##64, #op "q")

ALL4(BIN, add) ALL4(BIN, adc) ALL4(BIN, sub) ALL4(BIN, sbb) ALL4(BIN, and)
ALL4(BIN, or) ALL4(BIN, xor) ALL4(BIN, cmp) ALL4(BIN, test)
ALL4(UN, neg) ALL4(UN, not) ALL4(UN, inc) ALL4(UN, dec)
LALL4(LBIN, add) LALL4(LBIN, adc) LALL4(LBIN, sub) LALL4(LBIN, sbb)
LALL4(LBIN, and) LALL4(LBIN, or) LALL4(LBIN, xor) LALL4(LBIN, xadd)
LUALL4(neg) LUALL4(not) LUALL4(inc) LUALL4(dec)
MALL4(MBIN, add) MALL4(MBIN, adc) MALL4(MBIN, sub) MALL4(MBIN, sbb) MALL4(MBIN, and) MALL4(MBIN, or)
MALL4(MBIN, xor) MALL4(MBIN, cmp) MALL4(MBIN, test)
MUALL4(neg) MUALL4(not) MUALL4(inc) MUALL4(dec)
RMALL4(add) RMALL4(adc) RMALL4(sub) RMALL4(sbb) RMALL4(and) RMALL4(or) RMALL4(xor) RMALL4(cmp)
BINM(rimul16, "imulw", "w") BINM(rimul32, "imull", "k") BINM(rimul64, "imulq", "q")
BINM(rbsf32, "bsfl", "k") BINM(rbsr64, "bsrq", "q")
BIN(xadd8, "xaddb", "b") BIN(xadd16, "xaddw", "w") BIN(xadd32, "xaddl", "k") BIN(xadd64, "xaddq", "q")
BIN(imul16, "imulw", "w") BIN(imul32, "imull", "k") BIN(imul64, "imulq", "q")
BIN(bsf16, "bsfw", "w") BIN(bsf32, "bsfl", "k") BIN(bsf64, "bsfq", "q")
BIN(bsr16, "bsrw", "w") BIN(bsr32, "bsrl", "k") BIN(bsr64, "bsrq", "q")
BIN(bt16, "btw", "w") BIN(bt32, "btl", "k") BIN(bt64, "btq", "q")
BIN(bts16, "btsw", "w") BIN(bts32, "btsl", "k") BIN(bts64, "btsq", "q")
BIN(btr16, "btrw", "w") BIN(btr32, "btrl", "k") BIN(btr64, "btrq", "q")
BIN(btc16, "btcw", "w") BIN(btc32, "btcl", "k") BIN(btc64, "btcq", "q")
/* xchg with memory is locked implicitly: d is the register, s the memory. */
#define XCHGM(name, m, W)                                                      \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		static uint64_t mem;                                           \
		uint64_t v = *d;                                               \
		mem = s;                                                       \
		__asm__ volatile(m " %" W "[v], %[mm]" : [v] "+r"(v), [mm] "+m"(mem)); \
		*d = v ^ mem, (void)fl; /* both halves of the exchange */      \
	}
XCHGM(xchgm8, "xchgb", "b") XCHGM(xchgm16, "xchgw", "w") XCHGM(xchgm32, "xchgl", "k") XCHGM(xchgm64, "xchgq", "q")
/* Immediate forms. */
#define IMM(name, text)                                                        \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		(void)s;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" text "\n\tpushfq\n\tpopq %[f]" \
				 : [v] "+r"(v), [f] "+r"(f) : : "cc");         \
		*d = v, *fl = f;                                               \
	}
IMM(addq_m128, "addq $-128, %q[v]") IMM(subl_i32, "subl $0x7fffffff, %k[v]")
IMM(andq_m2, "andq $-2, %q[v]") IMM(orw_i8, "orw $0x80, %w[v]") IMM(xorb_i8, "xorb $0xff, %b[v]")
IMM(cmpl_m1, "cmpl $-1, %k[v]") IMM(testq_sign, "testq $-0x80000000, %q[v]")
IMM(adcb_1, "adcb $1, %b[v]") IMM(sbbq_0, "sbbq $0, %q[v]")
IMM(imul16_m3, "imulw $-3, %w[v], %w[v]") IMM(imul32_big, "imull $0x7ff1, %k[v], %k[v]")
IMM(imul64_m1, "imulq $-1, %q[v], %q[v]")
IMM(btsq_63, "btsq $63, %q[v]") IMM(btcl_31, "btcl $31, %k[v]") IMM(btrw_15, "btrw $15, %w[v]")
IMM(btl_40, "btl $40, %k[v]") IMM(btq_200, "btq $200, %q[v]")
IMM(bswap32, "bswapl %k[v]") IMM(bswap64, "bswapq %q[v]")
IMM(movsbw, "movsbw %b[v], %w[v]") IMM(movsbl, "movsbl %b[v], %k[v]") IMM(movsbq, "movsbq %b[v], %q[v]")
IMM(movswl, "movswl %w[v], %k[v]") IMM(movswq, "movswq %w[v], %q[v]") IMM(movslq, "movslq %k[v], %q[v]")
IMM(movzbw, "movzbw %b[v], %w[v]") IMM(movzbl, "movzbl %b[v], %k[v]") IMM(movzbq, "movzbq %b[v], %q[v]")
IMM(movzwl, "movzwl %w[v], %k[v]") IMM(movzwq, "movzwq %w[v], %q[v]") IMM(movl_zx, "movl %k[v], %k[v]")
IMM(cmc, "cmc") IMM(clc, "clc") IMM(stc, "stc")

struct binform {
	const char *name;
	binfn *fn;
	uint64_t mask;
	int unary; /* the source is unused */
};

static const struct binform binforms[] = {
#define F4(op, mask, un) {#op "8", op##8, mask, un}, {#op "16", op##16, mask, un}, {#op "32", op##32, mask, un}, {#op "64", op##64, mask, un},
#define LF4(op, mask, un) {"lock-" #op "8", l##op##8, mask, un}, {"lock-" #op "16", l##op##16, mask, un}, \
	{"lock-" #op "32", l##op##32, mask, un}, {"lock-" #op "64", l##op##64, mask, un},
	F4(add, FL_ALL, 0) F4(adc, FL_ALL, 0) F4(sub, FL_ALL, 0) F4(sbb, FL_ALL, 0)
	F4(and, FL_LOGIC, 0) F4(or, FL_LOGIC, 0) F4(xor, FL_LOGIC, 0)
	F4(cmp, FL_ALL, 0) F4(test, FL_LOGIC, 0) F4(xadd, FL_ALL, 0)
	F4(neg, FL_ALL, 1) F4(not, FL_ALL, 1) /* not affects no flag */
	F4(inc, FL_ALL, 1) F4(dec, FL_ALL, 1) /* CF unaffected */
	LF4(add, FL_ALL, 0) LF4(adc, FL_ALL, 0) LF4(sub, FL_ALL, 0) LF4(sbb, FL_ALL, 0)
	LF4(and, FL_LOGIC, 0) LF4(or, FL_LOGIC, 0) LF4(xor, FL_LOGIC, 0) LF4(xadd, FL_ALL, 0)
	LF4(neg, FL_ALL, 1) LF4(not, FL_ALL, 1) LF4(inc, FL_ALL, 1) LF4(dec, FL_ALL, 1)
#define MF4(op, mask, un) {"mem-" #op "8", m##op##8, mask, un}, {"mem-" #op "16", m##op##16, mask, un}, \
	{"mem-" #op "32", m##op##32, mask, un}, {"mem-" #op "64", m##op##64, mask, un},
#define RF4(op, mask) {#op "8-load", ld_##op##8, mask, 0}, {#op "16-load", ld_##op##16, mask, 0}, \
	{#op "32-load", ld_##op##32, mask, 0}, {#op "64-load", ld_##op##64, mask, 0},
	MF4(add, FL_ALL, 0) MF4(adc, FL_ALL, 0) MF4(sub, FL_ALL, 0) MF4(sbb, FL_ALL, 0) MF4(and, FL_LOGIC, 0)
	MF4(or, FL_LOGIC, 0) MF4(xor, FL_LOGIC, 0) MF4(cmp, FL_ALL, 0) MF4(test, FL_LOGIC, 0)
	MF4(neg, FL_ALL, 1) MF4(not, FL_ALL, 1) MF4(inc, FL_ALL, 1) MF4(dec, FL_ALL, 1)
	RF4(add, FL_ALL) RF4(adc, FL_ALL) RF4(sub, FL_ALL) RF4(sbb, FL_ALL) RF4(and, FL_LOGIC) RF4(or, FL_LOGIC)
	RF4(xor, FL_LOGIC) RF4(cmp, FL_ALL)
	{"imul16-load", rimul16, FL_MUL, 0}, {"imul32-load", rimul32, FL_MUL, 0}, {"imul64-load", rimul64, FL_MUL, 0},
	{"bsf32-load", rbsf32, FL_BSF, 0}, {"bsr64-load", rbsr64, FL_BSF, 0},
	{"xchgm8", xchgm8, 0, 0}, {"xchgm16", xchgm16, 0, 0}, {"xchgm32", xchgm32, 0, 0}, {"xchgm64", xchgm64, 0, 0},
	{"imul16", imul16, FL_MUL, 0}, {"imul32", imul32, FL_MUL, 0}, {"imul64", imul64, FL_MUL, 0},
	/* bsf/bsr: the destination (printed whole) is the input d when the
	 * source is zero. */
	{"bsf16", bsf16, FL_BSF, 0}, {"bsf32", bsf32, FL_BSF, 0}, {"bsf64", bsf64, FL_BSF, 0},
	{"bsr16", bsr16, FL_BSF, 0}, {"bsr32", bsr32, FL_BSF, 0}, {"bsr64", bsr64, FL_BSF, 0},
	{"bt16", bt16, FL_BT, 0}, {"bt32", bt32, FL_BT, 0}, {"bt64", bt64, FL_BT, 0},
	{"bts16", bts16, FL_BT, 0}, {"bts32", bts32, FL_BT, 0}, {"bts64", bts64, FL_BT, 0},
	{"btr16", btr16, FL_BT, 0}, {"btr32", btr32, FL_BT, 0}, {"btr64", btr64, FL_BT, 0},
	{"btc16", btc16, FL_BT, 0}, {"btc32", btc32, FL_BT, 0}, {"btc64", btc64, FL_BT, 0},
	{"addq-m128", addq_m128, FL_ALL, 1}, {"subl-i32", subl_i32, FL_ALL, 1},
	{"andq-m2", andq_m2, FL_LOGIC, 1}, {"orw-i8", orw_i8, FL_LOGIC, 1}, {"xorb-i8", xorb_i8, FL_LOGIC, 1},
	{"cmpl-m1", cmpl_m1, FL_ALL, 1}, {"testq-sign", testq_sign, FL_LOGIC, 1},
	{"adcb-1", adcb_1, FL_ALL, 1}, {"sbbq-0", sbbq_0, FL_ALL, 1},
	{"imul16-m3", imul16_m3, FL_MUL, 1}, {"imul32-big", imul32_big, FL_MUL, 1}, {"imul64-m1", imul64_m1, FL_MUL, 1},
	{"btsq-63", btsq_63, FL_BT, 1}, {"btcl-31", btcl_31, FL_BT, 1}, {"btrw-15", btrw_15, FL_BT, 1},
	{"btl-40", btl_40, FL_BT, 1}, {"btq-200", btq_200, FL_BT, 1},
	{"bswap32", bswap32, FL_ALL, 1}, {"bswap64", bswap64, FL_ALL, 1}, /* no flag affected */
	{"movsbw", movsbw, FL_ALL, 1}, {"movsbl", movsbl, FL_ALL, 1}, {"movsbq", movsbq, FL_ALL, 1},
	{"movswl", movswl, FL_ALL, 1}, {"movswq", movswq, FL_ALL, 1}, {"movslq", movslq, FL_ALL, 1},
	{"movzbw", movzbw, FL_ALL, 1}, {"movzbl", movzbl, FL_ALL, 1}, {"movzbq", movzbq, FL_ALL, 1},
	{"movzwl", movzwl, FL_ALL, 1}, {"movzwq", movzwq, FL_ALL, 1}, {"movl-zx", movl_zx, FL_ALL, 1},
	{"cmc", cmc, FL_ALL, 1}, {"clc", clc, FL_ALL, 1}, {"stc", stc, FL_ALL, 1},
};

static void run_binforms(void)
{
	for (size_t f = 0; f < sizeof binforms / sizeof binforms[0]; f++) {
		const struct binform *b = &binforms[f];
		int n = 0;
		size_t pairs = b->unary ? N_INT_EDGES : N_INT_EDGES * N_INT_EDGES;
		for (size_t i = 0; i < pairs + NRAND; i++) {
			uint64_t d, s;
			if (i < pairs) {
				d = int_edges[i % N_INT_EDGES];
				s = int_edges[i / N_INT_EDGES];
			} else {
				d = rnd_int(), s = rnd_int();
			}
			uint64_t fl = rnd() & FL_ALL, r = d, fo = fl;
			b->fn(&r, s, &fo);
			pr("%s #%d d=%llx s=%llx f=%03llx : %016llx fl=%03llx\n", b->name, n++,
			       (unsigned long long)d, (unsigned long long)s, (unsigned long long)fl,
			       (unsigned long long)r, (unsigned long long)(fo & b->mask));
		}
	}
}

/* cbw/cwde/cdqe and cwd/cdq/cqo: sign extension within rax and into rdx;
 * no flag is affected. */
#define CBW(name, text)                                                        \
	static void name(uint64_t *a, uint64_t *d, uint64_t s, uint64_t *fl)   \
	{                                                                      \
		uint64_t ra = *a, rd = *d, f = *fl;                            \
		(void)s;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" text "\n\tpushfq\n\tpopq %[f]" \
				 : "+a"(ra), "+d"(rd), [f] "+r"(f) : : "cc");  \
		*a = ra, *d = rd, *fl = f;                                     \
	}
CBW(x_cbw, "cbtw") CBW(x_cwde, "cwtl") CBW(x_cdqe, "cltq") CBW(x_cwd, "cwtd") CBW(x_cdq, "cltd") CBW(x_cqo, "cqto")

static void run_cbw(void)
{
	static const struct {
		const char *name;
		void (*fn)(uint64_t *, uint64_t *, uint64_t, uint64_t *);
	} forms[] = {{"cbw", x_cbw}, {"cwde", x_cwde}, {"cdqe", x_cdqe}, {"cwd", x_cwd}, {"cdq", x_cdq}, {"cqo", x_cqo}};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
		for (int i = 0; i < 64; i++) {
			uint64_t a = i < (int)N_INT_EDGES ? int_edges[i] : rnd_int(), d = rnd(), fl = rnd() & FL_ALL;
			uint64_t ra = a, rd = d, fo = fl;
			forms[f].fn(&ra, &rd, 0, &fo);
			pr("%s #%d a=%llx d=%llx f=%03llx : %016llx %016llx fl=%03llx\n", forms[f].name, i, (unsigned long long)a,
			   (unsigned long long)d, (unsigned long long)fl, (unsigned long long)ra, (unsigned long long)rd,
			   (unsigned long long)(fo & FL_ALL));
		}
}

/* sahf/lahf: AH to the flags and back. */
static void run_sahf(void)
{
	for (int i = 0; i < 256; i++) {
		uint64_t v = (uint64_t)i << 8 | (rnd() & 0xff), f = rnd() & FL_ALL;
		__asm__ volatile("pushq %[f]\n\tpopfq\n\tsahf\n\tmovb $0, %%ah\n\tlahf\n\tpushfq\n\tpopq %[f]"
				 : "+a"(v), [f] "+r"(f) : : "cc");
		pr("sahf-lahf #%d ah=%02x : %016llx fl=%03llx\n", i, i, (unsigned long long)v,
		       (unsigned long long)(f & FL_ALL));
	}
}

/* --- shifts and rotates by %cl ------------------------------------------ */
typedef void shfn(uint64_t *d, uint64_t s, uint64_t c, uint64_t *fl);
#define SH(name, m, W)                                                         \
	static void name(uint64_t *d, uint64_t s, uint64_t c, uint64_t *fl)    \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		(void)s;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %%cl, %" W      \
				 "[v]\n\tpushfq\n\tpopq %[f]"                  \
				 : [v] "+r"(v), [f] "+r"(f) : "c"(c) : "cc");  \
		*d = v, *fl = f;                                               \
	}
#define SHD(name, m, W)                                                        \
	static void name(uint64_t *d, uint64_t s, uint64_t c, uint64_t *fl)    \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %%cl, %" W      \
				 "[s], %" W "[v]\n\tpushfq\n\tpopq %[f]"       \
				 : [v] "+r"(v), [f] "+r"(f) : [s] "r"(s), "c"(c) : "cc"); \
		*d = v, *fl = f;                                               \
	}
#define SH4(op) SH(op##8, #op "b", "b") SH(op##16, #op "w", "w") SH(op##32, #op "l", "k") SH(op##64, #op "q", "q")
SH4(shl) SH4(shr) SH4(sar) SH4(rol) SH4(ror) SH4(rcl) SH4(rcr)
SHD(shld16, "shldw", "w") SHD(shld32, "shldl", "k") SHD(shld64, "shldq", "q")
SHD(shrd16, "shrdw", "w") SHD(shrd32, "shrdl", "k") SHD(shrd64, "shrdq", "q")
/* Immediate counts: by 1 (the D0/D1 encodings) and by an immediate (C0/C1). */
#define SHI(name, text)                                                        \
	static void name(uint64_t *d, uint64_t s, uint64_t c, uint64_t *fl)    \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		(void)c;                                                       \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" text "\n\tpushfq\n\tpopq %[f]" \
				 : [v] "+r"(v), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*d = v, *fl = f;                                               \
	}
#define SHI4(op) SHI(op##8_i1, #op "b $1, %b[v]") SHI(op##16_i1, #op "w $1, %w[v]") SHI(op##32_i1, #op "l $1, %k[v]") \
	SHI(op##64_i1, #op "q $1, %q[v]") SHI(op##8_i9, #op "b $9, %b[v]") SHI(op##16_i17, #op "w $17, %w[v]") \
	SHI(op##32_i31, #op "l $31, %k[v]") SHI(op##64_i63, #op "q $63, %q[v]") SHI(op##32_i4, #op "l $4, %k[v]")
SHI4(shl) SHI4(shr) SHI4(sar) SHI4(rol) SHI4(ror) SHI4(rcl) SHI4(rcr)
SHI(shld16_i5, "shldw $5, %w[s], %w[v]") SHI(shld32_i31, "shldl $31, %k[s], %k[v]") SHI(shld64_i1, "shldq $1, %q[s], %q[v]")
SHI(shrd16_i15, "shrdw $15, %w[s], %w[v]") SHI(shrd32_i1, "shrdl $1, %k[s], %k[v]") SHI(shrd64_i63, "shrdq $63, %q[s], %q[v]")
SHI(rol64_i0, "rolq $0, %q[v]")

enum { K_SHIFT, K_SHLR, K_ROT, K_RC, K_SHD };
struct shform {
	const char *name;
	shfn *fn;
	int kind, width;
	int imm; /* the immediate count; -1: the count is in %cl */
};
static const struct shform shforms[] = {
#define S4(op, kind) {#op "8", op##8, kind, 8, -1}, {#op "16", op##16, kind, 16, -1}, {#op "32", op##32, kind, 32, -1}, \
	{#op "64", op##64, kind, 64, -1},
	S4(shl, K_SHLR) S4(shr, K_SHLR) S4(sar, K_SHIFT) S4(rol, K_ROT) S4(ror, K_ROT) S4(rcl, K_RC) S4(rcr, K_RC)
	{"shld16", shld16, K_SHD, 16, -1}, {"shld32", shld32, K_SHD, 32, -1}, {"shld64", shld64, K_SHD, 64, -1},
	{"shrd16", shrd16, K_SHD, 16, -1}, {"shrd32", shrd32, K_SHD, 32, -1}, {"shrd64", shrd64, K_SHD, 64, -1},
#define SI4(op, kind) {#op "8-i1", op##8_i1, kind, 8, 1}, {#op "16-i1", op##16_i1, kind, 16, 1}, \
	{#op "32-i1", op##32_i1, kind, 32, 1}, {#op "64-i1", op##64_i1, kind, 64, 1}, {#op "8-i9", op##8_i9, kind, 8, 9}, \
	{#op "16-i17", op##16_i17, kind, 16, 17}, {#op "32-i31", op##32_i31, kind, 32, 31}, \
	{#op "64-i63", op##64_i63, kind, 64, 63}, {#op "32-i4", op##32_i4, kind, 32, 4},
	SI4(shl, K_SHLR) SI4(shr, K_SHLR) SI4(sar, K_SHIFT) SI4(rol, K_ROT) SI4(ror, K_ROT) SI4(rcl, K_RC) SI4(rcr, K_RC)
	{"shld16-i5", shld16_i5, K_SHD, 16, 5}, {"shld32-i31", shld32_i31, K_SHD, 32, 31}, {"shld64-i1", shld64_i1, K_SHD, 64, 1},
	{"shrd16-i15", shrd16_i15, K_SHD, 16, 15}, {"shrd32-i1", shrd32_i1, K_SHD, 32, 1}, {"shrd64-i63", shrd64_i63, K_SHD, 64, 63},
	{"rol64-i0", rol64_i0, K_ROT, 64, 0},
};

/* The flags a shift or rotate by count c defines (SDM vol. 2, SAL/SAR/SHL/
 * SHR, RCL/RCR/ROL/ROR, SHLD, SHRD). The count is masked to 5 bits (6 for
 * 64-bit operands); a masked count of 0 affects no flag (all are kept).
 * Shifts: CF, SF, ZF, PF from the result, AF undefined, OF only for a
 * count of 1; CF undefined for shl/shr when the count is at least the
 * operand size. Rotates: only CF and OF, OF undefined unless the count is 1
 * (SF ZF AF PF are kept). shld/shrd: as shifts; a count greater than the
 * operand size (16-bit forms) leaves the result and flags undefined:
 * *result_defined is cleared. */
static uint64_t sh_mask(const struct shform *s, uint64_t c, int *result_defined)
{
	uint64_t mc = c & (s->width == 64 ? 63 : 31), m;
	*result_defined = 1;
	if (mc == 0)
		return FL_ALL;
	switch (s->kind) {
	case K_ROT:
	case K_RC:
		return mc == 1 ? FL_ALL : FL_ALL & ~0x800ULL;
	case K_SHD:
		if (mc > (uint64_t)s->width) {
			*result_defined = 0;
			return 0;
		}
		/* fall through */
	default:
		m = 0xc5 | (mc == 1 ? 0x800 : 0);
		if (s->kind == K_SHLR && mc >= (uint64_t)s->width)
			m &= ~1ULL;
		return m;
	}
}

static void run_shifts(void)
{
	for (size_t f = 0; f < sizeof shforms / sizeof shforms[0]; f++) {
		const struct shform *sf = &shforms[f];
		int n = 0;
		for (int i = 0; i < 32; i++) {
			uint64_t d = i < 12 ? int_edges[i + 3] : rnd_int(), s = rnd();
			size_t ncounts = sf->imm >= 0 ? 1 : N_SHIFT_COUNTS + 4;
			for (size_t j = 0; j < ncounts; j++) {
				uint64_t c = sf->imm >= 0 ? (uint64_t)sf->imm : j < N_SHIFT_COUNTS ? shift_counts[j] : rnd() & 0xff;
				uint64_t fl = rnd() & FL_ALL, r = d, fo = fl;
				int defined;
				uint64_t mask = sh_mask(sf, c, &defined);
				sf->fn(&r, s, c, &fo);
				if (!defined)
					r = 0;
				pr("%s #%d d=%llx s=%llx c=%llx f=%03llx : %016llx fl=%03llx\n", sf->name, n++,
				       (unsigned long long)d, (unsigned long long)s, (unsigned long long)(c & 0xff),
				       (unsigned long long)fl, (unsigned long long)r, (unsigned long long)(fo & mask));
			}
		}
	}
}

/* --- one-operand multiply and divide: rdx:rax --------------------------- */
typedef void mdfn(uint64_t *a, uint64_t *d, uint64_t s, uint64_t *fl);
#define MD(name, m, W)                                                         \
	static void name(uint64_t *a, uint64_t *d, uint64_t s, uint64_t *fl)   \
	{                                                                      \
		uint64_t ra = *a, rd = *d, f = *fl;                            \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W            \
				 "[s]\n\tpushfq\n\tpopq %[f]"                  \
				 : "+a"(ra), "+d"(rd), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*a = ra, *d = rd, *fl = f;                                     \
	}
#define MD4(op) MD(op##8, #op "b", "b") MD(op##16, #op "w", "w") MD(op##32, #op "l", "k") MD(op##64, #op "q", "q")
MD4(mul) MD4(div) MD4(idiv)
MD(imul8, "imulb", "b") MD(imul16_1, "imulw", "w") MD(imul32_1, "imull", "k") MD(imul64_1, "imulq", "q")

/* Whether a divide of rdx:rax (ax for 8 bits) by s fits (no #DE). */
static int div_ok(int sign, int w, uint64_t a, uint64_t d, uint64_t s)
{
	typedef unsigned __int128 u128;
	typedef __int128 s128;
	u128 mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
	u128 hi = w == 8 ? (a >> 8) & 0xff : d & mask, lo = a & mask;
	u128 num = hi << w | lo, den = s & mask;
	if (den == 0)
		return 0;
	if (!sign)
		return hi < den;
	/* sign-extend the 2w-bit dividend and w-bit divisor */
	s128 sn = (s128)(num << (128 - 2 * w)) >> (128 - 2 * w);
	s128 sd = (s128)(den << (128 - w)) >> (128 - w);
	s128 lim = (s128)1 << (w - 1);
	if (sd == -1)
		return sn >= -(lim - 1) && sn <= lim;
	s128 q = sn / sd;
	return q >= -lim && q < lim;
}

static void run_muldiv(void)
{
	static const struct {
		const char *name;
		mdfn *fn;
		int w, div, sign;
	} forms[] = {
		{"mul8", mul8, 8, 0, 0}, {"mul16", mul16, 16, 0, 0}, {"mul32", mul32, 32, 0, 0}, {"mul64", mul64, 64, 0, 0},
		{"imul1-8", imul8, 8, 0, 1}, {"imul1-16", imul16_1, 16, 0, 1}, {"imul1-32", imul32_1, 32, 0, 1}, {"imul1-64", imul64_1, 64, 0, 1},
		{"div8", div8, 8, 1, 0}, {"div16", div16, 16, 1, 0}, {"div32", div32, 32, 1, 0}, {"div64", div64, 64, 1, 0},
		{"idiv8", idiv8, 8, 1, 1}, {"idiv16", idiv16, 16, 1, 1}, {"idiv32", idiv32, 32, 1, 1}, {"idiv64", idiv64, 64, 1, 1},
	};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		int n = 0;
		for (size_t i = 0; i < N_INT_EDGES * N_INT_EDGES + 2 * NRAND; i++) {
			uint64_t a, d, s;
			if (i < N_INT_EDGES * N_INT_EDGES) {
				a = int_edges[i % N_INT_EDGES], s = int_edges[i / N_INT_EDGES];
				d = rnd() & 1 ? 0 : ~0ULL;
			} else {
				a = rnd_int(), s = rnd_int();
				switch (rnd() & 3) {
				case 0: d = 0; break;
				case 1: d = (int64_t)a < 0 ? ~0ULL : 0; break;
				case 2: d = rnd() >> (rnd() & 63); break;
				default: d = rnd();
				}
			}
			if (forms[f].div && !div_ok(forms[f].sign, forms[f].w, a, d, s))
				continue;
			uint64_t fl = rnd() & FL_ALL, ra = a, rd = d, fo = fl;
			forms[f].fn(&ra, &rd, s, &fo);
			/* div/idiv: every flag undefined */
			pr("%s #%d a=%llx d=%llx s=%llx : %016llx %016llx fl=%03llx\n", forms[f].name, n++,
			       (unsigned long long)a, (unsigned long long)d, (unsigned long long)s,
			       (unsigned long long)ra, (unsigned long long)rd,
			       (unsigned long long)(fo & (forms[f].div ? 0 : FL_MUL)));
		}
	}
}

/* --- cmpxchg: rax is compared with the destination ------------------------ */
#define CX(name, m, W)                                                         \
	static void name(uint64_t *a, uint64_t *d, uint64_t s, uint64_t *fl)   \
	{                                                                      \
		uint64_t ra = *a, v = *d, f = *fl;                             \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W "[s], %" W \
				 "[v]\n\tpushfq\n\tpopq %[f]"                  \
				 : "+a"(ra), [v] "+r"(v), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*a = ra, *d = v, *fl = f;                                      \
	}
#define CXM(name, m, W)                                                        \
	static void name(uint64_t *a, uint64_t *d, uint64_t s, uint64_t *fl)   \
	{                                                                      \
		static uint64_t mem;                                           \
		uint64_t ra = *a, f = *fl;                                     \
		mem = *d;                                                      \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W            \
				 "[s], %[v]\n\tpushfq\n\tpopq %[f]"            \
				 : "+a"(ra), [v] "+m"(mem), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*a = ra, *d = mem, *fl = f;                                    \
	}
CX(cx8, "cmpxchgb", "b") CX(cx16, "cmpxchgw", "w") CX(cx32, "cmpxchgl", "k") CX(cx64, "cmpxchgq", "q")
CXM(cxm8, "cmpxchgb", "b") CXM(cxm16, "cmpxchgw", "w") CXM(cxm32, "cmpxchgl", "k") CXM(cxm64, "cmpxchgq", "q")
CXM(lcxm8, "lock cmpxchgb", "b") CXM(lcxm16, "lock cmpxchgw", "w") CXM(lcxm32, "lock cmpxchgl", "k") CXM(lcxm64, "lock cmpxchgq", "q")

static void run_cmpxchg(void)
{
	static const struct {
		const char *name;
		mdfn *fn;
		int w;
	} forms[] = {
		{"cmpxchg8", cx8, 8}, {"cmpxchg16", cx16, 16}, {"cmpxchg32", cx32, 32}, {"cmpxchg64", cx64, 64},
		{"cmpxchg8-m", cxm8, 8}, {"cmpxchg16-m", cxm16, 16}, {"cmpxchg32-m", cxm32, 32}, {"cmpxchg64-m", cxm64, 64},
		{"lock-cmpxchg8-m", lcxm8, 8}, {"lock-cmpxchg16-m", lcxm16, 16}, {"lock-cmpxchg32-m", lcxm32, 32},
		{"lock-cmpxchg64-m", lcxm64, 64},
	};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		uint64_t mask = forms[f].w == 64 ? ~0ULL : ((uint64_t)1 << forms[f].w) - 1;
		for (int i = 0; i < 128; i++) {
			uint64_t a = rnd(), d = i < 16 ? int_edges[i] : rnd_int(), s = rnd();
			if (i & 1) /* equal: the exchange succeeds */
				a = (a & ~mask) | (d & mask);
			uint64_t fl = rnd() & FL_ALL, ra = a, rd = d, fo = fl;
			forms[f].fn(&ra, &rd, s, &fo);
			pr("%s #%d a=%llx d=%llx s=%llx : rax=%016llx dst=%016llx fl=%03llx\n", forms[f].name, i,
			       (unsigned long long)a, (unsigned long long)d, (unsigned long long)s,
			       (unsigned long long)ra, (unsigned long long)rd, (unsigned long long)(fo & FL_ALL));
		}
	}
	/* cmpxchg8b/16b: edx:eax (rdx:rax) with the memory, ecx:ebx (rcx:rbx)
	 * stored on success; only ZF is affected. */
	static uint64_t m16[2] __attribute__((aligned(16)));
	for (int i = 0; i < 128; i++) {
		uint64_t a = rnd(), d = rnd(), b = rnd(), c = rnd(), m0 = rnd(), m1 = rnd();
		int wide = i >= 64;
		if (i & 1) {
			if (wide)
				m0 = a, m1 = d;
			else
				m0 = (a & 0xffffffff) | d << 32;
		}
		m16[0] = m0, m16[1] = m1;
		uint64_t fl = rnd() & FL_ALL, fo = fl, ra = a, rd = d;
		if (wide)
			__asm__ volatile("pushq %[f]\n\tpopfq\n\tlock cmpxchg16b %[m]\n\tpushfq\n\tpopq %[f]"
					 : "+a"(ra), "+d"(rd), [m] "+m"(m16), [f] "+r"(fo) : "b"(b), "c"(c) : "cc");
		else
			__asm__ volatile("pushq %[f]\n\tpopfq\n\tlock cmpxchg8b %[m]\n\tpushfq\n\tpopq %[f]"
					 : "+a"(ra), "+d"(rd), [m] "+m"(m16[0]), [f] "+r"(fo) : "b"(b), "c"(c) : "cc");
		pr("%s #%d : rax=%016llx rdx=%016llx m=%016llx:%016llx fl=%03llx\n", wide ? "cmpxchg16b" : "cmpxchg8b",
		       i % 64, (unsigned long long)ra, (unsigned long long)rd, (unsigned long long)m16[1],
		       (unsigned long long)m16[0], (unsigned long long)(fo & FL_ALL));
	}
}

/* --- cmovcc and setcc on every condition --------------------------------- */
#define CC(name, text)                                                         \
	static void name(uint64_t *d, uint64_t s, uint64_t *fl)                \
	{                                                                      \
		uint64_t v = *d, f = *fl;                                      \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" text "\n\tpushfq\n\tpopq %[f]" \
				 : [v] "+r"(v), [f] "+r"(f) : [s] "r"(s) : "cc"); \
		*d = v, *fl = f;                                               \
	}
#define CCS(cc) CC(cmov64_##cc, "cmov" #cc "q %q[s], %q[v]") CC(cmov32_##cc, "cmov" #cc "l %k[s], %k[v]") \
	CC(cmov16_##cc, "cmov" #cc "w %w[s], %w[v]") CC(set_##cc, "set" #cc " %b[v]")
CCS(o) CCS(no) CCS(b) CCS(ae) CCS(e) CCS(ne) CCS(be) CCS(a) CCS(s) CCS(ns) CCS(p) CCS(np) CCS(l) CCS(ge) CCS(le) CCS(g)

static void run_cc(void)
{
#define CCF(cc) {"cmov" #cc "64", cmov64_##cc}, {"cmov" #cc "32", cmov32_##cc}, {"cmov" #cc "16", cmov16_##cc}, {"set" #cc, set_##cc},
	static const struct {
		const char *name;
		binfn *fn;
	} forms[] = {CCF(o) CCF(no) CCF(b) CCF(ae) CCF(e) CCF(ne) CCF(be) CCF(a) CCF(s) CCF(ns) CCF(p) CCF(np)
			     CCF(l) CCF(ge) CCF(le) CCF(g)};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
		for (int i = 0; i < 64; i++) {
			uint64_t d = rnd(), s = rnd(), fl = (uint64_t)(i & 0x3f), r = d;
			/* all 64 combinations of OF SF ZF AF PF CF */
			fl = (fl & 1) | (fl & 2) << 1 | (fl & 4) << 2 | (fl & 8) << 3 | (fl & 16) << 3 | (fl & 32) << 6;
			uint64_t fo = fl;
			forms[f].fn(&r, s, &fo);
			pr("%s #%d f=%03llx : %016llx fl=%03llx\n", forms[f].name, i, (unsigned long long)fl,
			       (unsigned long long)r, (unsigned long long)(fo & FL_ALL));
		}
}

/* --- bt* with a memory operand: the bit offset reaches outside the word --- */
static uint64_t btarr[16];
#define BTM(name, m, W)                                                        \
	static void name(uint64_t off, uint64_t *fl)                           \
	{                                                                      \
		uint64_t f = *fl;                                              \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" m " %" W "[o], %[b]\n\tpushfq\n\tpopq %[f]" \
				 : [f] "+r"(f), [b] "+m"(btarr[8]) : [o] "r"(off) : "cc", "memory"); \
		*fl = f;                                                       \
	}
#define BTM3(op) BTM(op##m16, #op "w", "w") BTM(op##m32, #op "l", "k") BTM(op##m64, #op "q", "q")
BTM3(bt) BTM3(bts) BTM3(btr) BTM3(btc)

static void run_btm(void)
{
#define BTF(op) {#op "16-m", op##m16}, {#op "32-m", op##m32}, {#op "64-m", op##m64},
	static const struct {
		const char *name;
		void (*fn)(uint64_t, uint64_t *);
	} forms[] = {BTF(bt) BTF(bts) BTF(btr) BTF(btc)};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
		for (int i = 0; i < 96; i++) {
			for (int k = 0; k < 16; k++)
				btarr[k] = rnd();
			int64_t off = (int64_t)(rnd() % 1024) - 512;
			uint64_t fl = rnd() & FL_ALL;
			forms[f].fn((uint64_t)off, &fl);
			uint64_t h = 0;
			for (int k = 0; k < 16; k++)
				h = (h ^ btarr[k]) * 0x100000001b3ULL;
			pr("%s #%d off=%lld : h=%016llx fl=%03llx\n", forms[f].name, i, (long long)off,
			       (unsigned long long)h, (unsigned long long)(fl & FL_BT));
		}
}

/* --- string instructions, with DF clear and set ----------------------------- */
static unsigned char sbuf[1024], dbuf[1024];
typedef void strfn(uint64_t r[4], uint64_t *fl);
#define STR(name, text)                                                        \
	static void name(uint64_t r[4], uint64_t *fl)                          \
	{                                                                      \
		uint64_t si = r[0], di = r[1], c = r[2], a = r[3], f = *fl;    \
		__asm__ volatile("pushq %[f]\n\tpopfq\n\t" text "\n\tpushfq\n\tcld\n\tpopq %[f]" \
				 : "+S"(si), "+D"(di), "+c"(c), "+a"(a), [f] "+r"(f) : : "cc", "memory"); \
		r[0] = si, r[1] = di, r[2] = c, r[3] = a, *fl = f;             \
	}
#define STR4(op) STR(op##b, #op "b") STR(op##w, #op "w") STR(op##l, #op "l") STR(op##q, #op "q")
STR4(movs) STR4(stos) STR4(lods) STR4(scas) STR4(cmps)
#define RSTR4(p, op) STR(p##op##b, #p " " #op "b") STR(p##op##w, #p " " #op "w") STR(p##op##l, #p " " #op "l") \
	STR(p##op##q, #p " " #op "q")
RSTR4(rep, movs) RSTR4(rep, stos) RSTR4(rep, lods) RSTR4(repe, scas) RSTR4(repne, scas) RSTR4(repe, cmps)
RSTR4(repne, cmps)

static void run_strings(void)
{
#define SF4(op, cmp) {#op "b", op##b, 1, cmp}, {#op "w", op##w, 2, cmp}, {#op "l", op##l, 4, cmp}, {#op "q", op##q, 8, cmp},
#define RSF4(p, op, cmp) {#p "-" #op "b", p##op##b, 1, cmp}, {#p "-" #op "w", p##op##w, 2, cmp}, \
	{#p "-" #op "l", p##op##l, 4, cmp}, {#p "-" #op "q", p##op##q, 8, cmp},
	static const struct {
		const char *name;
		strfn *fn;
		int size, cmp; /* cmp: the flags are the instruction's */
	} forms[] = {SF4(movs, 0) SF4(stos, 0) SF4(lods, 0) SF4(scas, 1) SF4(cmps, 1)
		     RSF4(rep, movs, 0) RSF4(rep, stos, 0) RSF4(rep, lods, 0) RSF4(repe, scas, 1) RSF4(repne, scas, 1)
		     RSF4(repe, cmps, 1) RSF4(repne, cmps, 1)};
	static const uint64_t counts[] = {0, 1, 3, 17, 60};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		int n = 0;
		for (int df = 0; df < 2; df++)
			for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
				for (int v = 0; v < 4; v++) {
					/* equal buffers, then some bytes differ and
					 * the byte rax holds appears here and there */
					for (int k = 0; k < 1024; k++)
						sbuf[k] = dbuf[k] = (unsigned char)(rnd() & 3);
					for (int k = 0; k < 6 * v; k++)
						dbuf[rnd() % 1024] ^= 1;
					uint64_t r[4] = {(uint64_t)(uintptr_t)(sbuf + 512), (uint64_t)(uintptr_t)(dbuf + 512),
							 counts[c], rnd() & 0x0303030303030303ULL};
					uint64_t fl = (rnd() & FL_ALL) | (df ? 0x400 : 0);
					forms[f].fn(r, &fl);
					uint64_t h = 0;
					for (int k = 0; k < 1024; k++)
						h = (h ^ dbuf[k]) * 0x100000001b3ULL;
					pr("%s #%d df=%d c=%llu : si=%+lld di=%+lld rcx=%llx rax=%016llx h=%016llx fl=%03llx\n",
					       forms[f].name, n++, df, (unsigned long long)counts[c],
					       (long long)(r[0] - (uint64_t)(uintptr_t)(sbuf + 512)),
					       (long long)(r[1] - (uint64_t)(uintptr_t)(dbuf + 512)), (unsigned long long)r[2],
					       (unsigned long long)r[3], (unsigned long long)h,
					       (unsigned long long)(fl & FL_ALL));
				}
	}
	(void)forms[0].cmp, (void)forms[0].size;
}

int main(void)
{
	run_binforms();
	run_sahf();
	run_cbw();
	run_shifts();
	run_muldiv();
	run_cmpxchg();
	run_cc();
	run_btm();
	run_strings();
	pr_flush();
	return 0;
}
