/* A program written for callgrind: valgrind/callgrind.h's client requests
 * leave out the start-up (CALLGRIND_ZERO_STATS) and end three named parts
 * (CALLGRIND_DUMP_STATS_AT): "sort", "hash" and "fib". Work between
 * CALLGRIND_TOGGLE_COLLECT's and between CALLGRIND_STOP_INSTRUMENTATION
 * and CALLGRIND_START_INSTRUMENTATION is left out of them. Pure
 * computation, no library calls inside the parts: its instructions are
 * the same under callgrind and icount (cmd/icount/parts_test.go). */
#include <stdio.h>
#include <valgrind/callgrind.h>

static volatile unsigned long sink;

#define N 1500

static unsigned data[N];

/* fill writes a fixed pseudo-random sequence (xorshift32) into a. */
__attribute__((noinline)) static void fill(unsigned *a, int n)
{
	unsigned x = 2463534242u;
	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		a[i] = x % 100000;
	}
}

/* sort sorts a by insertion. */
__attribute__((noinline)) static void sort(unsigned *a, int n)
{
	for (int i = 1; i < n; i++) {
		unsigned v = a[i];
		int j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* hash is the 64-bit FNV-1a hash of n bytes at p. */
__attribute__((noinline)) static unsigned long hash(const unsigned char *p, int n)
{
	unsigned long h = 14695981039346656037ul;
	for (int i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ul;
	}
	return h;
}

__attribute__((noinline)) static unsigned long fib(int n)
{
	return n < 2 ? (unsigned long)n : fib(n - 1) + fib(n - 2);
}

/* noise is work no part counts. */
__attribute__((noinline)) static void noise(void)
{
	sink += hash((const unsigned char *)data, sizeof data / 2);
}

int main(void)
{
	int under = RUNNING_ON_VALGRIND;

	CALLGRIND_ZERO_STATS;
	fill(data, N);
	sort(data, N);
	CALLGRIND_DUMP_STATS_AT("sort");

	sink += hash((const unsigned char *)data, sizeof data);
	CALLGRIND_TOGGLE_COLLECT;
	noise();
	CALLGRIND_TOGGLE_COLLECT;
	sink += hash((const unsigned char *)data, sizeof data);
	CALLGRIND_DUMP_STATS_AT("hash");

	sink += fib(18);
	CALLGRIND_STOP_INSTRUMENTATION;
	noise();
	CALLGRIND_START_INSTRUMENTATION;
	sink += fib(16);
	CALLGRIND_DUMP_STATS_AT("fib");

	printf("running on valgrind: %d, median %u, sink %lu\n", under, data[N / 2], sink);
	return 0;
}
