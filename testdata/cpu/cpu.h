/* cpu.h: what every program of the differential CPU suite (testdata/cpu)
 * shares: a fixed-seed PRNG, the edge values every operand class is tried
 * on, and the hex printing of results.
 *
 * Each program prints one line per instruction form and input, starting
 * with a stable name of the form (and the mode it ran in) and the input's
 * index, so that cmd/icount/cpu_test.go's table of known differences can
 * name lines by prefix. Only integers are printed (results as bit
 * patterns): no libc floating-point code runs, so a difference is the
 * instruction's and not printf's. Lines are formatted by pr, a small
 * printf of integers and strings, not by libc's printf: libc's costs some
 * 4,000 instructions a line, and icount runs every program. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* splitmix64 with a fixed seed: the same inputs on every run. */
static uint64_t rng_state = 0x1c0a7e5eedULL;
static __attribute__((unused)) uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A random value biased towards the interesting: every byte width's
 * extremes, small numbers, and fully random bits. */
static __attribute__((unused)) uint64_t rnd_int(void)
{
	uint64_t r = rnd();
	switch (r & 7) {
	case 0: return rnd() & 0xff;
	case 1: return (uint64_t)(int64_t)(int8_t)rnd();
	case 2: return rnd() & 0xffff;
	case 3: return rnd() & 0xffffffff;
	case 4: return (uint64_t)(int64_t)(int32_t)rnd();
	default: return rnd();
	}
}

/* Integer edge values: 0, 1, -1 and each width's extremes. */
static const uint64_t int_edges[] = {
	0, 1, 2, 0xffffffffffffffffULL, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffULL, 0x8000000000000000ULL,
	0x0123456789abcdefULL,
};
#define N_INT_EDGES (sizeof int_edges / sizeof int_edges[0])

/* Shift and rotate counts: 0, 1, each width's boundary, 64+ and
 * "negative" ones (the hardware masks them). */
static const uint64_t shift_counts[] = {
	0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 0xffffffffffffffffULL, 0xffffffe0ULL,
};
#define N_SHIFT_COUNTS (sizeof shift_counts / sizeof shift_counts[0])

/* Single-precision edge bit patterns: ±0, ±denormals, ±min normal, ±1,
 * ±max, ±inf, quiet and signalling NaNs with payloads. */
static const uint32_t f32_edges[] = {
	0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000,
	0x3f800000, 0xbf800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
	0x7fc00000, 0xffc00001, 0x7fa00005, 0xff800001, 0x4b000000, 0x4f000000,
	0xcf000000, 0x5f000000, 0x3effffff, 0x3f000000, 0x3fc00000, 0x40200000,
};
#define N_F32_EDGES (sizeof f32_edges / sizeof f32_edges[0])

/* Double-precision edge bit patterns, as f32_edges, plus the integer
 * conversion boundaries. */
static const uint64_t f64_edges[] = {
	0x0000000000000000ULL, 0x8000000000000000ULL, 0x0000000000000001ULL, 0x800fffffffffffffULL,
	0x0010000000000000ULL, 0x8010000000000000ULL, 0x3ff0000000000000ULL, 0xbff0000000000000ULL,
	0x7fefffffffffffffULL, 0xffefffffffffffffULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
	0x7ff8000000000000ULL, 0xfff8000000000001ULL, 0x7ff4000000000005ULL, 0xfff0000000000001ULL,
	0x41dfffffffc00000ULL, 0x41e0000000000000ULL, 0xc1e0000000000000ULL, 0x43e0000000000000ULL,
	0xc3e0000000000000ULL, 0x3fe0000000000000ULL, 0x3ff8000000000000ULL, 0x4004000000000000ULL,
	0x3fdfffffffffffffULL, 0x36a0000000000000ULL,
};
#define N_F64_EDGES (sizeof f64_edges / sizeof f64_edges[0])

/* A random float bit pattern: mostly normal numbers of moderate
 * magnitude, sometimes any exponent, sometimes an edge value. */
static __attribute__((unused)) uint32_t rnd_f32(void)
{
	uint64_t r = rnd();
	uint32_t sign = (r >> 63) << 31, man = (uint32_t)r & 0x7fffff;
	switch ((r >> 40) & 7) {
	case 0: return f32_edges[(r >> 44) % N_F32_EDGES];
	case 1: return sign | (uint32_t)((r >> 44) & 0xff) << 23 | man;
	case 2: return sign | man >> ((r >> 50) & 15); /* denormal */
	default: return sign | (uint32_t)(127 - 24 + ((r >> 44) % 48)) << 23 | man;
	}
}

/* A random double bit pattern, as rnd_f32. */
static __attribute__((unused)) uint64_t rnd_f64(void)
{
	uint64_t r = rnd(), m = rnd() & 0xfffffffffffffULL;
	uint64_t sign = r & 0x8000000000000000ULL;
	switch (r & 7) {
	case 0: return f64_edges[(r >> 8) % N_F64_EDGES];
	case 1: return sign | ((r >> 8) & 0x7ff) << 52 | m;
	case 2: return sign | m >> ((r >> 20) & 31); /* denormal */
	default: return sign | (uint64_t)(1023 - 60 + ((r >> 8) % 130)) << 52 | m;
	}
}

/* The output buffer pr fills; written to stdout (fd 1) when full and at
 * exit (pr_flush). */
static char pr_buf[1 << 16];
static size_t pr_len;

static __attribute__((unused)) void pr_flush(void)
{
	size_t off = 0;
	while (off < pr_len) {
		ssize_t n = write(1, pr_buf + off, pr_len - off);
		if (n <= 0)
			exit(99);
		off += (size_t)n;
	}
	pr_len = 0;
}

/* pr formats like printf, for the conversions this suite uses: %s, %c,
 * %d, %u and %x with the flags '0' and '+', a width, and the length
 * modifiers l, ll and h (ignored: the value is read as its type). */
static __attribute__((unused, format(printf, 1, 2))) void pr(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (pr_len > sizeof pr_buf - 512)
		pr_flush();
	char *o = pr_buf + pr_len;
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			*o++ = *p;
			continue;
		}
		p++;
		int zero = 0, plus = 0, width = 0, longs = 0;
		for (;; p++) {
			if (*p == '0')
				zero = 1;
			else if (*p == '+')
				plus = 1;
			else
				break;
		}
		while (*p >= '0' && *p <= '9')
			width = width * 10 + (*p++ - '0');
		while (*p == 'l' || *p == 'h')
			longs += *p++ == 'l';
		if (*p == 's') {
			for (const char *s = va_arg(ap, const char *); *s; s++)
				*o++ = *s;
			continue;
		}
		if (*p == 'c') {
			*o++ = (char)va_arg(ap, int);
			continue;
		}
		uint64_t v;
		int neg = 0;
		if (*p == 'd') {
			int64_t sv = longs ? va_arg(ap, long long) : va_arg(ap, int);
			neg = sv < 0;
			v = neg ? -(uint64_t)sv : (uint64_t)sv;
		} else {
			v = longs ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned int);
		}
		char tmp[24];
		int n = 0;
		if (*p == 'x')
			do
				tmp[n++] = "0123456789abcdef"[v & 15], v >>= 4;
			while (v);
		else
			do
				tmp[n++] = (char)('0' + v % 10), v /= 10;
			while (v);
		if (neg)
			*o++ = '-';
		else if (plus)
			*o++ = '+';
		for (int k = n; k < width; k++)
			*o++ = zero ? '0' : ' ';
		while (n)
			*o++ = tmp[--n];
	}
	pr_len = (size_t)(o - pr_buf);
	va_end(ap);
}
