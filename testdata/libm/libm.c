/*
 * libm: libm end to end, for icount's fidelity tests
 * (cmd/icount/libm_test.go). Built glibc-static, glibc-dynamic (lazy
 * binding), musl-static for amd64 and glibc static and dynamic for arm64.
 *
 * Calls about 60 libm functions in double, float and long double over a
 * fixed grid of inputs (signed zeros, denormals, infinities, NaNs with
 * payloads, the largest values, values next to 1 and next to multiples of
 * pi/2) and prints one line per call: the arguments and the result with %a
 * (%La for long double), a NaN as its sign and bits, and errno:
 *
 *   sin(0x1p+0) = 0x1.aed548f090ceep-1 e=0
 *
 * lgamma's sign is printed as lgamma_sign(x) = -1 or 1, and the arithmetic of
 * the rounding section as add(x, y), mul(x, y) and div(x, y), with the type's
 * suffix.
 *
 * Lines starting "fe " give the floating-point exception flags that
 * fetestexcept() sees after a call (the double functions, fma, and the
 * arithmetic of the rounding-mode section), so that a run on a CPU that sets
 * no flags can be told apart line by line. The "round" section repeats the
 * rounding functions, sqrt, exp, fma, addition, multiplication and division
 * in each of the four rounding modes.
 *
 * Deterministic: no clock, no input, the same output on every run.
 * Every call is a direct call of the libm function (no function pointers to
 * libm), so that a dynamically linked build resolves each one through its
 * PLT on first use (lazy binding).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A quiet NaN with a payload (and the sign bit if neg), of each type. */
static double nan_payload_d(int neg) {
	uint64_t b = 0x7ff8000000000123ull | (neg ? 1ull << 63 : 0);
	double d;
	memcpy(&d, &b, sizeof d);
	return d;
}

static float nan_payload_f(int neg) {
	uint32_t b = 0x7fc00123u | (neg ? 1u << 31 : 0);
	float f;
	memcpy(&f, &b, sizeof f);
	return f;
}

static long double nan_payload_l(int neg) {
	long double l = (long double)nan_payload_d(neg); /* converting keeps the payload's top bits */
	return l;
}

/* Printing: %a, and a NaN as its sign and bit pattern. Each call returns one
 * of a ring of buffers, so a line can hold several. */
static char ring[8][128];
static int ringi;

static char *buf(void) { return ring[ringi++ % 8]; }

static char *pd(double x) {
	char *b = buf();
	if (isnan(x)) {
		uint64_t u;
		memcpy(&u, &x, sizeof u);
		snprintf(b, 128, "nan:%016llx", (unsigned long long)u);
	} else {
		snprintf(b, 128, "%a", x);
	}
	return b;
}

static char *pf(float x) {
	char *b = buf();
	if (isnan(x)) {
		uint32_t u;
		memcpy(&u, &x, sizeof u);
		snprintf(b, 128, "nan:%08x", u);
	} else {
		snprintf(b, 128, "%a", (double)x);
	}
	return b;
}

static char *pl(long double x) {
	char *b = buf();
	if (isnan(x)) {
		/* The significant bytes only (x87's 80-bit format has padding). */
		unsigned char u[sizeof x];
		int n = LDBL_MANT_DIG == 64 ? 10 : (int)sizeof x;
		memcpy(u, &x, sizeof x);
		int k = snprintf(b, 128, "nan:");
		for (int i = n - 1; i >= 0; i--)
			k += snprintf(b + k, 128 - k, "%02x", u[i]);
	} else {
		snprintf(b, 128, "%La", x);
	}
	return b;
}

/* The exception flags after a call, as "fe" lines. */
static void fe(const char *what) {
	int f = fetestexcept(FE_ALL_EXCEPT);
	printf("fe %s:%s%s%s%s%s%s\n", what, f ? "" : " none",
	       f & FE_INVALID ? " invalid" : "", f & FE_DIVBYZERO ? " divbyzero" : "",
	       f & FE_OVERFLOW ? " overflow" : "", f & FE_UNDERFLOW ? " underflow" : "",
	       f & FE_INEXACT ? " inexact" : "");
}

static void before(void) {
	errno = 0;
	feclearexcept(FE_ALL_EXCEPT);
}

#define N(a) ((int)(sizeof a / sizeof a[0]))

/* The input grids of each type T with suffix S: the unary grid G1 and the
 * smaller grid G2 of binary and ternary functions. */
#define GRID1(T, S, MAXV, MINV, TMINV, EPS, NANP)                                       \
	static T g1##S[] = {                                                               \
		0, -0.0, TMINV, -TMINV, MINV, MINV / 3, -MINV / 5, MAXV, -MAXV,                \
		INFINITY, -INFINITY, NAN, -NAN,                                                \
		1, -1, 1 - EPS / 2, 1 + EPS, -1 + EPS / 2, 0.5, -0.5, 0.1, 0.75, 1.5, 2, -2,   \
		3, 10, -3.5, 0.25, 7.0 / 8, 100, -100, 1e4, 88.5, 709.5, -745.5, 11356.0,      \
		(T)1.57079632679489661923132169163975144L, (T)-1.57079632679489661923132169163975144L, \
		(T)3.14159265358979323846264338327950288L, (T)4.71238898038468985769396507491925432L, \
		(T)6.28318530717958647692528676655900576L, (T)(1e6L * 3.14159265358979323846264338327950288L), \
		(T)1e22L, (T)1e300L, 0x1p-30, -0x1p-60, 1e-300, 0x1.6p+52 + 0.5,               \
	};                                                                                 \
	static T g2##S[] = {                                                               \
		0, -0.0, TMINV, MINV, 1, -1, 0.5, 2, -2.5, 3, 10, (T)1e30L, MAXV, 1 + EPS,     \
		(T)3.14159265358979323846264338327950288L, INFINITY, -INFINITY, NAN,           \
	};                                                                                 \
	/* The NaNs of the grids get payloads: positive first, then negative. */        \
	static void init##S(void) {                                                        \
		int n = 0;                                                                     \
		for (int i = 0; i < N(g1##S); i++)                                             \
			if (isnan(g1##S[i])) g1##S[i] = NANP(n++);                                 \
		for (int i = 0; i < N(g2##S); i++)                                             \
			if (isnan(g2##S[i])) g2##S[i] = NANP(0);                                   \
	}

/* The unary functions of every type: name, suffix. */
#define UNARY(X, S, P, FE)                                                                    \
	X(sin, S, P, FE) X(cos, S, P, FE) X(tan, S, P, FE) X(asin, S, P, FE) X(acos, S, P, FE) X(atan, S, P, FE) X(sinh, S, P, FE)          \
	X(cosh, S, P, FE) X(tanh, S, P, FE) X(asinh, S, P, FE) X(acosh, S, P, FE) X(atanh, S, P, FE) X(exp, S, P, FE) X(exp2, S, P, FE)     \
	X(exp10, S, P, FE) X(expm1, S, P, FE) X(log, S, P, FE) X(log2, S, P, FE) X(log10, S, P, FE) X(log1p, S, P, FE) X(sqrt, S, P, FE)    \
	X(cbrt, S, P, FE) X(erf, S, P, FE) X(erfc, S, P, FE) X(tgamma, S, P, FE) X(lgamma, S, P, FE) X(floor, S, P, FE) X(ceil, S, P, FE)   \
	X(round, S, P, FE) X(trunc, S, P, FE) X(rint, S, P, FE) X(nearbyint, S, P, FE) X(logb, S, P, FE) X(fabs, S, P, FE)

/* The binary functions of every type. */
#define BINARY(X, S, P, FE)                                                                   \
	X(atan2, S, P, FE) X(pow, S, P, FE) X(hypot, S, P, FE) X(fmod, S, P, FE) X(remainder, S, P, FE) X(fdim, S, P, FE)            \
	X(fmax, S, P, FE) X(fmin, S, P, FE) X(nextafter, S, P, FE) X(copysign, S, P, FE)

/* One section per type: T, suffix S (empty for double), printer P, and
 * whether to print exception flags (FE). */
#define SECTION(T, S, P, FE, MAXV, MINV, TMINV, EPS)                                                         \
	static void unary##S(void) {                                                       \
		for (int i = 0; i < N(g1##S); i++) {                                           \
			T x = g1##S[i], r;                                                         \
			UNARY(CALL1, S, P, FE)                                                            \
			int ex; long lr; long long llr; T ir;                                      \
			before(); r = frexp##S(x, &ex);                                            \
			printf("frexp%s(%s) = %s %d e=%d\n", #S, P(x), P(r), ex, errno);          \
			before(); r = modf##S(x, &ir);                                             \
			printf("modf%s(%s) = %s %s e=%d\n", #S, P(x), P(r), P(ir), errno);        \
			before(); ex = ilogb##S(x);                                                \
			printf("ilogb%s(%s) = %d e=%d\n", #S, P(x), ex, errno);                   \
			if (FE) fe("ilogb");                                                       \
			before(); lr = lrint##S(x);                                                \
			printf("lrint%s(%s) = %ld e=%d\n", #S, P(x), lr, errno);                  \
			if (FE) fe("lrint");                                                       \
			before(); llr = llrint##S(x);                                              \
			printf("llrint%s(%s) = %lld e=%d\n", #S, P(x), llr, errno);               \
			before(); lr = lround##S(x);                                               \
			printf("lround%s(%s) = %ld e=%d\n", #S, P(x), lr, errno);                 \
			before(); llr = llround##S(x);                                             \
			printf("llround%s(%s) = %lld e=%d\n", #S, P(x), llr, errno);              \
			before(); T s, c; sincos##S(x, &s, &c);                                    \
			printf("sincos%s(%s) = %s %s e=%d\n", #S, P(x), P(s), P(c), errno);       \
			before(); r = lgamma##S(x);                                                \
			printf("lgamma%s_sign(%s) = %d\n", #S, P(x), signgam);                 \
			static const int exps[] = {0, 1, -1, 10, -1074, 1023, 2000, -2000, -16445}; \
			for (int k = 0; k < N(exps); k++) {                                        \
				before(); r = ldexp##S(x, exps[k]);                                    \
				printf("ldexp%s(%s, %d) = %s e=%d\n", #S, P(x), exps[k], P(r), errno); \
				before(); r = scalbn##S(x, exps[k]);                                   \
				printf("scalbn%s(%s, %d) = %s e=%d\n", #S, P(x), exps[k], P(r), errno);\
			}                                                                          \
			(void)r;                                                                   \
		}                                                                              \
	}                                                                                  \
	static void binary##S(void) {                                                      \
		for (int i = 0; i < N(g2##S); i++)                                             \
			for (int j = 0; j < N(g2##S); j++) {                                       \
				T x = g2##S[i], y = g2##S[j], r;                                       \
				BINARY(CALL2, S, P, FE)                                                       \
				int q;                                                                 \
				before(); r = remquo##S(x, y, &q);                                     \
				printf("remquo%s(%s, %s) = %s %d e=%d\n", #S, P(x), P(y), P(r), q & 7, errno); \
				before(); r = nexttoward##S(x, (long double)y);                        \
				printf("nexttoward%s(%s, %s) = %s e=%d\n", #S, P(x), P(y), P(r), errno); \
			}                                                                          \
	}                                                                                  \
	static void ternary##S(void) {                                                     \
		static const T extra[][3] = {                                                  \
			{1 + EPS, 1 - EPS, -1}, {1 + EPS, 1 + EPS, -1 - 2 * EPS},                  \
			{MAXV, 2, -MAXV}, {MINV, MINV, 0}, {MINV, 0.5, -0.0},                      \
			{0.1, 10, -1}, {-0.0, 0, -0.0}, {3, 1.0 / 3, -1}, {TMINV, 0.5, TMINV},     \
		};                                                                             \
		for (int i = 0; i < N(g2##S); i++)                                             \
			for (int j = 0; j < N(g2##S); j += 2)                                      \
				for (int k = 0; k < N(g2##S); k += 3)                                  \
					fma1##S(g2##S[i], g2##S[j], g2##S[k]);                             \
		for (int i = 0; i < N(extra); i++)                                             \
			fma1##S(extra[i][0], extra[i][1], extra[i][2]);                            \
	}                                                                                  \
	static void rounding##S(void) {                                                    \
		static const int modes[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}; \
		static const char *names[] = {"nearest", "upward", "downward", "towardzero"};  \
		for (int m = 0; m < 4; m++) {                                                  \
			fesetround(modes[m]);                                                      \
			for (int i = 0; i < N(g2##S); i++) {                                       \
				volatile T x = g2##S[i], r;                                            \
				before(); r = rint##S(x);                                              \
				printf("round %s rint%s(%s) = %s\n", names[m], #S, P(x), P(r));        \
				before(); r = nearbyint##S(x);                                         \
				printf("round %s nearbyint%s(%s) = %s\n", names[m], #S, P(x), P(r));   \
				before(); long lr = lrint##S(x);                                       \
				printf("round %s lrint%s(%s) = %ld\n", names[m], #S, P(x), lr);        \
				before(); r = sqrt##S(x);                                              \
				printf("round %s sqrt%s(%s) = %s\n", names[m], #S, P(x), P(r));        \
				before(); r = exp##S(x);                                               \
				printf("round %s exp%s(%s) = %s\n", names[m], #S, P(x), P(r));         \
				for (int j = 0; j < N(g2##S); j += 3) {                                \
					volatile T y = g2##S[j];                                           \
					before(); r = x + y;                                               \
					printf("round %s add%s(%s, %s) = %s\n", names[m], #S, P(x), P(y), P(r));     \
					if (FE) fe("add");                                                 \
					before(); r = x * y;                                               \
					printf("round %s mul%s(%s, %s) = %s\n", names[m], #S, P(x), P(y), P(r));     \
					if (FE) fe("mul");                                                 \
					before(); r = x / y;                                               \
					printf("round %s div%s(%s, %s) = %s\n", names[m], #S, P(x), P(y), P(r));     \
					if (FE) fe("div");                                                 \
					before(); r = fma##S(x, y, (T)0.1L);                               \
					printf("round %s fma%s(%s, %s, 0.1) = %s\n", names[m], #S, P(x), P(y), P(r)); \
				}                                                                      \
			}                                                                          \
		}                                                                              \
		fesetround(FE_TONEAREST);                                                      \
	}

/* One call of a unary or binary function, its line and (for double) its
 * flags. */
#define CALL1(F, S, P, FE)                                                                  \
	before(); r = F##S(x);                                                             \
	printf(#F "%s(%s) = %s e=%d\n", #S, P(x), P(r), errno);                            \
	if (FE) fe(#F);
#define CALL2(F, S, P, FE)                                                                  \
	before(); r = F##S(x, y);                                                          \
	printf(#F "%s(%s, %s) = %s e=%d\n", #S, P(x), P(y), P(r), errno);                  \
	if (FE) fe(#F);

GRID1(double, , DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON, nan_payload_d)
GRID1(float, f, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, FLT_EPSILON, nan_payload_f)
GRID1(long double, l, LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN, LDBL_EPSILON, nan_payload_l)

/* fma of each type, with its flags for every type (glibc's software fma
 * depends on the inexact flag). */
static void fma1(double x, double y, double z) {
	before();
	double r = fma(x, y, z);
	printf("fma(%s, %s, %s) = %s e=%d\n", pd(x), pd(y), pd(z), pd(r), errno);
	fe("fma");
}

static void fma1f(float x, float y, float z) {
	before();
	float r = fmaf(x, y, z);
	printf("fmaf(%s, %s, %s) = %s e=%d\n", pf(x), pf(y), pf(z), pf(r), errno);
	fe("fmaf");
}

static void fma1l(long double x, long double y, long double z) {
	before();
	long double r = fmal(x, y, z);
	printf("fmal(%s, %s, %s) = %s e=%d\n", pl(x), pl(y), pl(z), pl(r), errno);
	fe("fmal");
}

SECTION(double, , pd, 1, DBL_MAX, DBL_MIN, DBL_TRUE_MIN, DBL_EPSILON)
SECTION(float, f, pf, 0, FLT_MAX, FLT_MIN, FLT_TRUE_MIN, FLT_EPSILON)
SECTION(long double, l, pl, 0, LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN, LDBL_EPSILON)

/* The Bessel functions, double only (C's long double ones are not in musl). */
static void bessel(void) {
	for (int i = 0; i < N(g1); i++) {
		double x = g1[i], r;
		before(); r = j0(x);
		printf("j0(%s) = %s e=%d\n", pd(x), pd(r), errno);
		before(); r = j1(x);
		printf("j1(%s) = %s e=%d\n", pd(x), pd(r), errno);
		before(); r = y0(x);
		printf("y0(%s) = %s e=%d\n", pd(x), pd(r), errno);
		before(); r = y1(x);
		printf("y1(%s) = %s e=%d\n", pd(x), pd(r), errno);
		for (int n = -1; n <= 5; n += 3) {
			before(); r = jn(n, x);
			printf("jn(%d, %s) = %s e=%d\n", n, pd(x), pd(r), errno);
			before(); r = yn(n, x);
			printf("yn(%d, %s) = %s e=%d\n", n, pd(x), pd(r), errno);
		}
	}
}

int main(void) {
	printf("libm: double %d float %d long double %d mantissa bits\n", DBL_MANT_DIG, FLT_MANT_DIG, LDBL_MANT_DIG);
	init(); initf(); initl();
	unary(); binary(); ternary(); rounding();
	unaryf(); binaryf(); ternaryf(); roundingf();
	unaryl(); binaryl(); ternaryl(); roundingl();
	bessel();
	return 0;
}
