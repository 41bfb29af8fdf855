/*
 * crunch: a test program for icount (built musl-static and glibc-static).
 *
 *   crunch [IN OUT] < TEXT
 *
 * Computes a prime sieve, a merge sort, a matrix product and a few hashes.
 * The numbers to sort are every run of decimal digits found on stdin (an
 * empty stdin gives a fixed pseudo-random list instead). With IN and OUT,
 * hashes the bytes of the file IN (Adler-32, FNV-1a, a byte histogram) and
 * writes to OUT the sorted numbers and the first primes.
 *
 * Deterministic: no clock, no randomness from the system, does not print
 * argv[0]; output is a few KB at most whatever the input.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIEVE_MAX 300000
#define MAT 48

static unsigned char composite[SIEVE_MAX + 1];

static size_t sieve(void) {
	size_t count = 0;
	for (size_t i = 2; i <= SIEVE_MAX; i++) {
		if (composite[i])
			continue;
		count++;
		for (size_t j = i * i; j <= SIEVE_MAX; j += i)
			composite[j] = 1;
	}
	return count;
}

static void merge_sort(uint64_t *a, uint64_t *tmp, size_t n) {
	if (n < 2)
		return;
	if (n <= 8) { /* insertion sort for short runs */
		for (size_t i = 1; i < n; i++) {
			uint64_t v = a[i];
			size_t j = i;
			while (j > 0 && a[j - 1] > v) {
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
		return;
	}
	size_t h = n / 2;
	merge_sort(a, tmp, h);
	merge_sort(a + h, tmp, n - h);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
	while (i < h)
		tmp[k++] = a[i++];
	while (j < n)
		tmp[k++] = a[j++];
	memcpy(a, tmp, n * sizeof *a);
}

static uint64_t *numbers;
static size_t nnum, capnum;

static void push(uint64_t v) {
	if (nnum == capnum) {
		capnum = capnum ? capnum * 2 : 256;
		uint64_t *nb = realloc(numbers, capnum * sizeof *nb);
		if (!nb) {
			fputs("crunch: out of memory\n", stderr);
			exit(2);
		}
		numbers = nb;
	}
	numbers[nnum++] = v;
}

static void read_numbers(void) {
	int c, in = 0;
	uint64_t v = 0;
	while ((c = getchar()) != EOF) {
		if (c >= '0' && c <= '9') {
			v = v * 10 + (uint64_t)(c - '0');
			in = 1;
		} else if (in) {
			push(v);
			v = 0;
			in = 0;
		}
	}
	if (in)
		push(v);
	if (nnum == 0) { /* a fixed list from a linear congruential generator */
		uint64_t x = 12345;
		for (int i = 0; i < 5000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			push(x >> 44);
		}
	}
}

static uint64_t matrix(void) {
	static int32_t a[MAT][MAT], b[MAT][MAT], c[MAT][MAT];
	for (int i = 0; i < MAT; i++)
		for (int j = 0; j < MAT; j++) {
			a[i][j] = (i * 7 + j * 3) % 31 - 15;
			b[i][j] = (i * 5 + j * 11) % 29 - 14;
		}
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < MAT; i++)
			for (int j = 0; j < MAT; j++) {
				int32_t s = 0;
				for (int k = 0; k < MAT; k++)
					s += a[i][k] * b[k][j];
				c[i][j] = s;
			}
		for (int i = 0; i < MAT; i++)
			for (int j = 0; j < MAT; j++)
				a[i][j] = c[i][j] % 97;
	}
	uint64_t h = 0;
	for (int i = 0; i < MAT; i++)
		for (int j = 0; j < MAT; j++)
			h = h * 31 + (uint32_t)c[i][j];
	return h;
}

static int hash_file(const char *in, const char *out) {
	FILE *f = fopen(in, "rb");
	if (!f) {
		perror(in);
		return 1;
	}
	uint32_t a = 1, b = 0, fnv = 2166136261u;
	unsigned long hist[256] = {0};
	size_t n = 0;
	unsigned char buf[1000]; /* an odd size, so reads do not align with pages */
	size_t got;
	while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
		for (size_t i = 0; i < got; i++) {
			a = (a + buf[i]) % 65521;
			b = (b + a) % 65521;
			fnv = (fnv ^ buf[i]) * 16777619u;
			hist[buf[i]]++;
		}
		n += got;
	}
	fclose(f);
	printf("file in: %zu bytes, adler32 %08x, fnv1a %08x\n", n, (b << 16) | a, fnv);
	int common = 0;
	for (int i = 1; i < 256; i++)
		if (hist[i] > hist[common])
			common = i;
	printf("most common byte: 0x%02x (%lu times)\n", common, hist[common]);

	FILE *o = fopen(out, "w");
	if (!o) {
		perror(out);
		return 1;
	}
	fprintf(o, "# %zu numbers, sorted\n", nnum);
	for (size_t i = 0; i < nnum; i++)
		fprintf(o, "%llu\n", (unsigned long long)numbers[i]);
	fputs("# primes below 2000\n", o);
	for (size_t i = 2; i < 2000; i++)
		if (!composite[i])
			fprintf(o, "%zu\n", i);
	if (fclose(o) != 0) {
		perror(out);
		return 1;
	}
	puts("file out: written");
	return 0;
}

int main(int argc, char **argv) {
	size_t primes = sieve();
	size_t last = SIEVE_MAX;
	while (composite[last])
		last--;
	printf("primes below %d: %zu, largest %zu\n", SIEVE_MAX, primes, last);
	fputs("twin primes near the top:", stdout);
	int shown = 0;
	for (size_t i = SIEVE_MAX - 2; i > 2 && shown < 5; i--)
		if (!composite[i] && !composite[i + 2]) {
			printf(" (%zu,%zu)", i, i + 2);
			shown++;
		}
	putchar('\n');

	read_numbers();
	uint64_t *tmp = malloc(nnum * sizeof *tmp);
	if (!tmp) {
		fputs("crunch: out of memory\n", stderr);
		return 2;
	}
	merge_sort(numbers, tmp, nnum);
	free(tmp);
	uint64_t sum = 0, prod = 1;
	for (size_t i = 0; i < nnum; i++) {
		sum += numbers[i];
		prod = prod * (numbers[i] | 1) + i;
	}
	printf("numbers: %zu, min %llu, median %llu, max %llu, sum %llu, mix %016llx\n", nnum,
	       (unsigned long long)numbers[0], (unsigned long long)numbers[nnum / 2],
	       (unsigned long long)numbers[nnum - 1], (unsigned long long)sum,
	       (unsigned long long)prod);
	size_t show = nnum < 12 ? nnum : 12;
	fputs("smallest:", stdout);
	for (size_t i = 0; i < show; i++)
		printf(" %llu", (unsigned long long)numbers[i]);
	putchar('\n');

	printf("matrix hash: %016llx\n", (unsigned long long)matrix());

	int rc = 0;
	if (argc >= 3)
		rc = hash_file(argv[1], argv[2]);
	else
		puts("no files given");
	return rc;
}
