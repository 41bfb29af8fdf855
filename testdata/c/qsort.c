/*
 * qsort: a test program for where icount finds debug information (built
 * glibc-dynamic: cmd/icount/debuginfo_test.go).
 *
 * Sorts 20,000 pseudo-random ints with libc's qsort and prints a checksum
 * of the sorted array. glibc's qsort is a merge sort (msort_with_tmp, a
 * local function its shared library's symbol table does not keep: only
 * its separate debug file, from libc6-dbg, names it), calling cmp_int for
 * every comparison. Neither depends on the CPU's features, so icount's
 * counts of both equal callgrind's.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 20000

static int values[N];

__attribute__((noinline)) static int cmp_int(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int main(void) {
	unsigned seed = 12345;
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		values[i] = (int)(seed >> 8) % 100000;
	}
	qsort(values, N, sizeof values[0], cmp_int);
	unsigned long sum = 0;
	for (int i = 0; i < N; i++)
		sum = sum * 31 + (unsigned)values[i];
	printf("%d %d %lu\n", values[0], values[N - 1], sum);
	return 0;
}
