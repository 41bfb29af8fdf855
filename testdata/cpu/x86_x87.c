/* x86_x87.c: the x87 instructions a compiler or libm emits, on edge and
 * pseudo-random 80-bit inputs, in every precision-control (24, 53 and 64
 * bits; PC=01 is reserved) and rounding mode (to nearest, down, up, to
 * zero), with all exceptions masked. Two lines per form, mode and input:
 *
 *   FORM pcP.RC #N a=SE:MANT [b=SE:MANT] : results   (80-bit as exponent:mantissa)
 *   FORM pcP.RC #N fsw=XXXX
 *
 * so that a difference in the status word and one in the value are told
 * apart. Each form starts from fninit and loads its control word; st0 is
 * a, st1 is b. The status word is read right after the instruction and
 * masked to the bits the SDM (vol. 2) defines for it: the exception
 * flags, SF, ES, B, TOP and C1 always; C0, C2 and C3 only where the
 * instruction defines them (fprem/fprem1: the quotient bits and C2
 * "incomplete"; fsin/fcos/fsincos/fptan: C2 "out of range"; fxam, ftst,
 * fcom, fucom, fcompp: all); they are undefined for the other arithmetic
 * forms. fcomi, fucomi and fucomip also print RFLAGS (ZF PF CF from the
 * comparison, OF SF AF cleared). */
#include "cpu.h"

typedef struct {
	uint64_t m;
	uint16_t se;
} __attribute__((packed)) f80;

#define SW_ARITH 0xbaffu /* C0, C2, C3 undefined */
#define SW_TRIG  0xbeffu /* C2: out of range; C0, C3 undefined */
#define SW_ALL   0xffffu

typedef void x87fn(const f80 *a, const f80 *b, f80 *r, uint16_t *sw, uint16_t cw, uint64_t *fl);

#define LOAD1 "fldt %[a]\n\t"
#define LOAD2 "fldt %[b]\n\tfldt %[a]\n\t"
#define ST0 ""
#define ST1 "\n\tfstpt %[r0]"
#define ST2 "\n\tfstpt %[r0]\n\tfstpt %[r1]"
#define X(name, load, body, store)                                             \
	static void name(const f80 *a, const f80 *b, f80 *r, uint16_t *sw, uint16_t cw, uint64_t *fl) \
	{                                                                      \
		uint64_t f = 0;                                                \
		__asm__ volatile("fninit\n\tfldcw %[cw]\n\t" load body "\n\tpushfq\n\tpopq %[f]\n\tfnstsw %[sw]" store \
				 : [r0] "=m"(r[0]), [r1] "=m"(r[1]), [sw] "=m"(*sw), [f] "=r"(f) \
				 : [a] "m"(*a), [b] "m"(*b), [cw] "m"(cw)       \
				 : "cc", "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)"); \
		*fl = f;                                                       \
	}

X(x_fadd, LOAD2, "fadd %%st(1), %%st", ST1)
X(x_fsub, LOAD2, "fsub %%st(1), %%st", ST1)
X(x_fsubr, LOAD2, "fsubr %%st(1), %%st", ST1)
X(x_fmul, LOAD2, "fmul %%st(1), %%st", ST1)
X(x_fdiv, LOAD2, "fdiv %%st(1), %%st", ST1)
X(x_fdivr, LOAD2, "fdivr %%st(1), %%st", ST1)
X(x_fadd_m64, LOAD1, "faddl %[b]", ST1)  /* a + the double in b's low 8 bytes */
X(x_fmul_m32, LOAD1, "fmuls %[b]", ST1)  /* a * the float in b's low 4 bytes */
X(x_fprem, LOAD2, "fprem", ST1)
X(x_fprem1, LOAD2, "fprem1", ST1)
X(x_fscale, LOAD2, "fscale", ST1)
X(x_fpatan, LOAD2, "fpatan", ST1)   /* atan(b / a) */
X(x_fyl2x, LOAD2, "fyl2x", ST1)     /* b * log2(a) */
X(x_fyl2xp1, LOAD2, "fyl2xp1", ST1) /* b * log2(a + 1) */
X(x_fcomi, LOAD2, "fcomi %%st(1), %%st", ST0)
X(x_fucomi, LOAD2, "fucomi %%st(1), %%st", ST0)
X(x_fcom, LOAD2, "fcom %%st(1)", ST0)
X(x_fucom, LOAD2, "fucom %%st(1)", ST0)
X(x_fsqrt, LOAD1, "fsqrt", ST1)
X(x_frndint, LOAD1, "frndint", ST1)
X(x_fxtract, LOAD1, "fxtract", ST2) /* significand, exponent */
X(x_fsin, LOAD1, "fsin", ST1)
X(x_fcos, LOAD1, "fcos", ST1)
X(x_fsincos, LOAD1, "fsincos", ST2) /* cos, sin */
X(x_fptan, LOAD1, "fptan", ST2)     /* 1, tan */
X(x_f2xm1, LOAD1, "f2xm1", ST1)
X(x_fabs, LOAD1, "fabs", ST1)
X(x_fchs, LOAD1, "fchs", ST1)
X(x_fxam, LOAD1, "fxam", ST0)
X(x_ftst, LOAD1, "ftst", ST0)
X(x_fcompp, LOAD2, "fcompp", ST0)
X(x_fucomip, LOAD2, "fucomip %%st(1), %%st", ST1) /* pops a: b remains */
X(x_fxch, LOAD2, "fxch", ST2)
X(x_fsubp_m, LOAD2, "fsubrp", ST1)  /* st1 = st0 - st1, popped */
X(x_fidiv_m32, LOAD1, "fidivl %[b]", ST1) /* a / the int32 in b's low 4 bytes */
X(x_fistp16, LOAD1, "fistps %[r0]", ST0)
X(x_fistp32, LOAD1, "fistpl %[r0]", ST0)
X(x_fistp64, LOAD1, "fistpll %[r0]", ST0)
X(x_fist16, LOAD1, "fists %[r0]", ST0)
X(x_fist32, LOAD1, "fistl %[r0]", ST0)
X(x_fisttp16, LOAD1, "fisttps %[r0]", ST0)
X(x_fisttp32, LOAD1, "fisttpl %[r0]", ST0)
X(x_fisttp64, LOAD1, "fisttpll %[r0]", ST0)
X(x_fstp32, LOAD1, "fstps %[r0]", ST0)
X(x_fstp64, LOAD1, "fstpl %[r0]", ST0)
X(x_fst64, LOAD1, "fstl %[r0]", ST0)
X(x_fld32, "", "flds %[a]", ST1)
X(x_fld64, "", "fldl %[a]", ST1)
X(x_fld80, "", "fldt %[a]", ST1)
X(x_fild16, "", "filds %[a]", ST1)
X(x_fild32, "", "fildl %[a]", ST1)
X(x_fild64, "", "fildll %[a]", ST1)
X(x_fld1_add, "", "fld1\n\tfldpi\n\tfaddp", ST1)  /* 1 + pi: the constants, rounded */
X(x_fldl2e, "", "fldl2e", ST1)
X(x_fldln2, "", "fldln2", ST1)

/* Input domains. */
enum { D_ANY, D_UNIT, D_SMALL, D_F32, D_F64, D_INT };

/* 80-bit edge values: ±0, ±denormals, ±smallest normal, ±1, ±max, ±inf,
 * quiet and signalling NaNs with payloads, the indefinite, halves, 2^63
 * and 2^64, and pi/2 near its double rounding. */
static const f80 f80_edges[] = {
	{0, 0}, {0, 0x8000}, {1, 0}, {0x7fffffffffffffffULL, 0x8000}, {0x8000000000000000ULL, 1},
	{0x8000000000000000ULL, 0x3fff}, {0x8000000000000000ULL, 0xbfff}, {0xffffffffffffffffULL, 0x7ffe},
	{0x8000000000000000ULL, 0x7fff}, {0x8000000000000000ULL, 0xffff}, {0xc000000000000000ULL, 0xffff},
	{0xc000000000001234ULL, 0x7fff}, {0x8000000000000001ULL, 0x7fff}, {0xa000000000005678ULL, 0xffff},
	{0x8000000000000000ULL, 0x3ffe}, {0xc000000000000000ULL, 0x3fff}, {0xc000000000000000ULL, 0xc000},
	{0x8000000000000000ULL, 0x403e}, {0x8000000000000000ULL, 0x403f}, {0xc90fdaa22168c235ULL, 0x3fff},
	{0x8000000000000001ULL, 0xc03e}, {0xfffffffffffffc00ULL, 0x3ffd},
};
#define N_F80_EDGES (sizeof f80_edges / sizeof f80_edges[0])

static f80 rnd_f80(int dom)
{
	uint64_t r = rnd();
	f80 v;
	uint16_t sign = (uint16_t)((r >> 63) << 15);
	v.m = rnd() | 0x8000000000000000ULL;
	switch (dom) {
	case D_UNIT: /* |x| <= 1: f2xm1's domain */
		v.se = sign | (uint16_t)(0x3fff - 1 - (r >> 8) % 40);
		break;
	case D_SMALL: /* |x| < 1 - sqrt(2)/2: fyl2xp1's domain */
		v.se = sign | (uint16_t)(0x3fff - 3 - (r >> 8) % 40);
		break;
	case D_F32:
		v.m = rnd_f32(), v.se = 0;
		break;
	case D_F64:
		v.m = rnd_f64(), v.se = 0;
		break;
	case D_INT:
		v.m = rnd_int(), v.se = 0;
		break;
	default:
		switch ((r >> 8) & 7) {
		case 0: return f80_edges[(r >> 16) % N_F80_EDGES];
		case 1: v.se = (uint16_t)(r >> 16); break; /* any exponent */
		case 2: v.se = sign, v.m >>= (r >> 20) & 63; break; /* denormal */
		default: v.se = sign | (uint16_t)(0x3fff - 70 + (r >> 16) % 140);
		}
	}
	return v;
}

struct x87form {
	const char *name;
	x87fn *fn;
	int nargs, dom;
	unsigned swmask;
	int res; /* results: 0, 1 or 2 80-bit values; -1: an integer */
	uint64_t flmask; /* the RFLAGS it defines (fcomi) */
};

static const struct x87form forms[] = {
	{"fadd", x_fadd, 2, D_ANY, SW_ARITH, 1, 0},
	{"fsub", x_fsub, 2, D_ANY, SW_ARITH, 1, 0},
	{"fsubr", x_fsubr, 2, D_ANY, SW_ARITH, 1, 0},
	{"fmul", x_fmul, 2, D_ANY, SW_ARITH, 1, 0},
	{"fdiv", x_fdiv, 2, D_ANY, SW_ARITH, 1, 0},
	{"fdivr", x_fdivr, 2, D_ANY, SW_ARITH, 1, 0},
	{"fadd-m64", x_fadd_m64, 2, D_ANY, SW_ARITH, 1, 0},
	{"fmul-m32", x_fmul_m32, 2, D_ANY, SW_ARITH, 1, 0},
	{"fprem", x_fprem, 2, D_ANY, SW_ALL, 1, 0},
	{"fprem1", x_fprem1, 2, D_ANY, SW_ALL, 1, 0},
	{"fscale", x_fscale, 2, D_ANY, SW_ARITH, 1, 0},
	{"fpatan", x_fpatan, 2, D_ANY, SW_ARITH, 1, 0},
	{"fyl2x", x_fyl2x, 2, D_ANY, SW_ARITH, 1, 0},
	{"fyl2xp1", x_fyl2xp1, 2, D_SMALL, SW_ARITH, 1, 0},
	/* fcomi/fucomi: ZF PF CF from the comparison, OF SF AF cleared */
	{"fcomi", x_fcomi, 2, D_ANY, SW_ARITH, 0, 0x8d5},
	{"fucomi", x_fucomi, 2, D_ANY, SW_ARITH, 0, 0x8d5},
	{"fcom", x_fcom, 2, D_ANY, SW_ALL, 0, 0},
	{"fucom", x_fucom, 2, D_ANY, SW_ALL, 0, 0},
	{"fsqrt", x_fsqrt, 1, D_ANY, SW_ARITH, 1, 0},
	{"frndint", x_frndint, 1, D_ANY, SW_ARITH, 1, 0},
	{"fxtract", x_fxtract, 1, D_ANY, SW_ARITH, 2, 0},
	{"fsin", x_fsin, 1, D_ANY, SW_TRIG, 1, 0},
	{"fcos", x_fcos, 1, D_ANY, SW_TRIG, 1, 0},
	{"fsincos", x_fsincos, 1, D_ANY, SW_TRIG, 2, 0},
	{"fptan", x_fptan, 1, D_ANY, SW_TRIG, 2, 0},
	{"f2xm1", x_f2xm1, 1, D_UNIT, SW_ARITH, 1, 0},
	{"fabs", x_fabs, 1, D_ANY, SW_ARITH, 1, 0},
	{"fchs", x_fchs, 1, D_ANY, SW_ARITH, 1, 0},
	{"fxam", x_fxam, 1, D_ANY, SW_ALL, 0, 0},
	{"ftst", x_ftst, 1, D_ANY, SW_ALL, 0, 0},
	{"fcompp", x_fcompp, 2, D_ANY, SW_ALL, 0, 0},
	{"fucomip", x_fucomip, 2, D_ANY, SW_ARITH, 1, 0x8d5},
	{"fxch", x_fxch, 2, D_ANY, SW_ARITH, 2, 0},
	{"fsubrp", x_fsubp_m, 2, D_ANY, SW_ARITH, 1, 0},
	{"fidiv-m32", x_fidiv_m32, 2, D_ANY, SW_ARITH, 1, 0},
	{"fistp16", x_fistp16, 1, D_ANY, SW_ARITH, -1, 0},
	{"fistp32", x_fistp32, 1, D_ANY, SW_ARITH, -1, 0},
	{"fistp64", x_fistp64, 1, D_ANY, SW_ARITH, -1, 0},
	{"fist16", x_fist16, 1, D_ANY, SW_ARITH, -1, 0},
	{"fist32", x_fist32, 1, D_ANY, SW_ARITH, -1, 0},
	{"fisttp16", x_fisttp16, 1, D_ANY, SW_ARITH, -1, 0},
	{"fisttp32", x_fisttp32, 1, D_ANY, SW_ARITH, -1, 0},
	{"fisttp64", x_fisttp64, 1, D_ANY, SW_ARITH, -1, 0},
	{"fstp32", x_fstp32, 1, D_ANY, SW_ARITH, -1, 0},
	{"fstp64", x_fstp64, 1, D_ANY, SW_ARITH, -1, 0},
	{"fst64", x_fst64, 1, D_ANY, SW_ARITH, -1, 0},
	{"fld32", x_fld32, 1, D_F32, SW_ARITH, 1, 0},
	{"fld64", x_fld64, 1, D_F64, SW_ARITH, 1, 0},
	{"fld80", x_fld80, 1, D_ANY, SW_ARITH, 1, 0},
	{"fild16", x_fild16, 1, D_INT, SW_ARITH, 1, 0},
	{"fild32", x_fild32, 1, D_INT, SW_ARITH, 1, 0},
	{"fild64", x_fild64, 1, D_INT, SW_ARITH, 1, 0},
	{"fld1-fldpi-faddp", x_fld1_add, 0, D_ANY, SW_ARITH, 1, 0},
	{"fldl2e", x_fldl2e, 0, D_ANY, SW_ARITH, 1, 0},
	{"fldln2", x_fldln2, 0, D_ANY, SW_ARITH, 1, 0},
};

#define NRAND 64
#define NEDGE2 12 /* binary forms: the first NEDGE2 edges against each other */

int main(void)
{
	static const char *pcs[] = {"pc24", "pc53", "pc64"};
	static const unsigned pcbits[] = {0, 2, 3};
	static const char *rcs[] = {"rn", "rd", "ru", "rz"};
	for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
		const struct x87form *x = &forms[f];
		for (int pc = 0; pc < 3; pc++)
			for (int rc = 0; rc < 4; rc++) {
				uint16_t cw = (uint16_t)(0x7f | pcbits[pc] << 8 | rc << 10);
				int n;
				switch (x->nargs) {
				case 0: n = 1; break;
				case 1: n = (x->dom == D_ANY ? (int)N_F80_EDGES : 0) + NRAND; break;
				default: n = (x->dom == D_ANY ? NEDGE2 * NEDGE2 : 0) + NRAND;
				}
				for (int i = 0; i < n; i++) {
					f80 a, b, r[2] = {{0, 0}, {0, 0}};
					int edges = x->dom == D_ANY ? (x->nargs == 1 ? (int)N_F80_EDGES : NEDGE2 * NEDGE2) : 0;
					if (i < edges && x->nargs == 1)
						a = f80_edges[i], b = a;
					else if (i < edges)
						a = f80_edges[i % NEDGE2], b = f80_edges[i / NEDGE2];
					else
						a = rnd_f80(x->dom), b = rnd_f80(x->dom == D_SMALL ? D_ANY : x->dom);
					uint16_t sw;
					uint64_t fl;
					x->fn(&a, &b, r, &sw, cw, &fl);
					pr("%s %s.%s #%d a=%04x:%016llx", x->name, pcs[pc], rcs[rc], i, a.se,
					   (unsigned long long)a.m);
					if (x->nargs == 2)
						pr(" b=%04x:%016llx", b.se, (unsigned long long)b.m);
					pr(" :");
					if (x->res < 0)
						pr(" %016llx", (unsigned long long)r[0].m);
					for (int k = 0; k < x->res; k++)
						pr(" %04x:%016llx", r[k].se, (unsigned long long)r[k].m);
					if (x->flmask)
						pr(" fl=%03llx", (unsigned long long)(fl & x->flmask));
					pr("\n%s %s.%s #%d fsw=%04x\n", x->name, pcs[pc], rcs[rc], i, sw & x->swmask);
				}
			}
	}
	pr_flush();
	return 0;
}
