// mmapstress: what malloc-heavy programs do to their address space, and
// what the memory system calls promise. It keeps more than 5,000 separate
// mappings while it allocates and frees thousands of large blocks (musl's
// malloc maps each and unmaps it on free) and maps and unmaps thousands of
// pages directly, and checks that unmapped memory comes back as zeros,
// that partial munmap, mprotect, mremap and madvise(MADV_DONTNEED) keep
// their semantics, and that system calls refuse buffers the program may
// not access. Its output is the same natively and under icount.
//
// usage: mmapstress [ROUNDS [REGIONS]]   (defaults 4000 and 6000)
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static int failed;

static void check(int ok, const char *what) {
	if (!ok) {
		printf("FAILED: %s\n", what);
		failed = 1;
	}
}

static int zeros(const unsigned char *p, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (p[i]) return 0;
	return 1;
}

static void *map(size_t n, int prot) {
	void *p = mmap(NULL, n, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

// large_blocks allocates, touches and frees blocks above malloc's mapping
// threshold.
static void large_blocks(int rounds) {
	unsigned long sum = 0;
	for (int i = 0; i < rounds; i++) {
		size_t n = 256 * 1024 + (size_t)(i % 7) * PAGE;
		unsigned char *p = malloc(n);
		if (!p) {
			printf("malloc of %zu bytes failed in round %d\n", n, i);
			failed = 1;
			return;
		}
		p[0] = (unsigned char)i;
		p[n / 2] = (unsigned char)(i >> 8);
		p[n - 1] = 1;
		sum += p[0] + p[n / 2] + p[n - 1];
		free(p);
	}
	printf("malloc and free of %d large blocks: sum %lu\n", rounds, sum);
}

// map_unmap maps, touches and unmaps directly, each mapping fresh.
static void map_unmap(int rounds) {
	unsigned long sum = 0;
	int dirty = 0;
	for (int i = 0; i < rounds; i++) {
		size_t n = (size_t)(1 + i % 16) * PAGE;
		unsigned char *p = map(n, PROT_READ | PROT_WRITE);
		if (!p) {
			printf("mmap failed in round %d\n", i);
			failed = 1;
			return;
		}
		// A byte of each page: fresh memory reads zeros.
		for (size_t at = (size_t)i % PAGE; at < n; at += PAGE) {
			dirty += p[at] != 0;
			p[at] = 0x5a;
			sum += p[at];
		}
		munmap(p, n);
	}
	printf("mmap and munmap of %d mappings: sum %lu, %d not zero when mapped\n", rounds, sum, dirty);
}

// map_regions maps n separate one-page mappings, their permissions
// alternating so that none merges with its neighbour, and keeps them.
static unsigned char **map_regions(int n, int *got) {
	unsigned char **p = calloc((size_t)n + 1, sizeof *p);
	*got = 0;
	for (int i = 0; i < n; i++) {
		p[i] = map(PAGE, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE);
		if (!p[i]) break;
		++*got;
		if (i % 2 == 0) p[i][i % PAGE] = (unsigned char)i;
	}
	return p;
}

// unmap_regions checks and unmaps the mappings of map_regions: every
// other one, then the rest.
static void unmap_regions(unsigned char **p, int n, int got) {
	long sum = 0;
	for (int i = 0; i < got; i++) sum += p[i][i % PAGE];
	for (int i = 0; i < got; i += 2) munmap(p[i], PAGE);
	for (int i = 1; i < got; i += 2) munmap(p[i], PAGE);
	printf("%d separate mappings at once (of %d): sum %ld\n", got, n, sum);
	free(p);
}

// fresh_zeros checks that memory unmapped and mapped again reads as zeros,
// at the same address.
static void fresh_zeros(void) {
	size_t n = 16 * PAGE;
	unsigned char *p = map(n, PROT_READ | PROT_WRITE);
	memset(p, 0xa5, n);
	munmap(p, n);
	unsigned char *q = mmap(p, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	check(q == p, "MAP_FIXED at the address just unmapped");
	check(zeros(q, n), "a fresh mapping reads zeros");
	// MAP_FIXED over a mapping replaces its contents with zeros.
	memset(q, 0x11, n);
	unsigned char *r = mmap(q + 4 * PAGE, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	check(r == q + 4 * PAGE && zeros(r, 4 * PAGE) && q[4 * PAGE - 1] == 0x11 && q[8 * PAGE] == 0x11,
	      "MAP_FIXED over a mapping");
	munmap(q, n);
	printf("unmapped memory mapped again reads zeros\n");
}

// partial checks munmap of part of a mapping, mprotect and mremap.
static void partial(void) {
	unsigned char *p = map(3 * PAGE, PROT_READ | PROT_WRITE);
	memset(p, 7, 3 * PAGE);
	check(munmap(p + PAGE, PAGE) == 0, "munmap of the middle page");
	check(p[0] == 7 && p[2 * PAGE] == 7, "the pages around a hole");
	unsigned char *hole = mmap(p + PAGE, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	check(hole == p + PAGE && hole[0] == 0, "the hole maps again, zero");
	check(mprotect(p, 3 * PAGE, PROT_READ) == 0, "mprotect of three pages");
	check(mprotect(p, 3 * PAGE, PROT_READ | PROT_WRITE) == 0, "mprotect back");
	p[2 * PAGE] = 8;
	munmap(p, 3 * PAGE);

	unsigned char *m = map(PAGE, PROT_READ | PROT_WRITE);
	memset(m, 3, PAGE);
	unsigned char *g = mremap(m, PAGE, 64 * PAGE, MREMAP_MAYMOVE);
	check(g != MAP_FAILED && g[0] == 3 && g[PAGE - 1] == 3 && zeros(g + PAGE, 63 * PAGE), "mremap grows");
	g = mremap(g, 64 * PAGE, 2 * PAGE, 0);
	check(g != MAP_FAILED && g[0] == 3, "mremap shrinks");
	memset(g, 9, 2 * PAGE);
	check(madvise(g, 2 * PAGE, MADV_DONTNEED) == 0 && zeros(g, 2 * PAGE), "madvise(MADV_DONTNEED) zeroes");
	munmap(g, 2 * PAGE);
	printf("partial munmap, mprotect, mremap and madvise keep their semantics\n");
}

// buffers checks that system calls refuse buffers the program may not
// access as they need, with EFAULT.
static void buffers(void) {
	int fds[2];
	unsigned char *ro = map(PAGE, PROT_READ), *none = map(PAGE, PROT_NONE);
	check(pipe(fds) == 0, "pipe");
	check(write(fds[1], none, 1) == -1 && errno == EFAULT, "write from a buffer with no access");
	check(write(fds[1], "xy", 2) == 2, "write to a pipe");
	check(read(fds[0], ro, 1) == -1 && errno == EFAULT, "read into a read-only buffer");
	close(fds[0]);
	close(fds[1]);
	munmap(ro, PAGE);
	munmap(none, PAGE);
	printf("system calls refuse buffers the program may not access\n");
}

// far maps memory far from everything else, where no host memory lies
// behind guest addresses yet, and runs on it.
static void far(void) {
	unsigned char *want = (unsigned char *)0x200000000000, *p;
	p = mmap(want, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	check(p == want, "a mapping far from the others");
	if (p != want) return;
	for (int i = 0; i < 1 << 20; i += PAGE) p[i] = (unsigned char)(i >> 12);
	unsigned long sum = 0;
	for (int i = 0; i < 1 << 20; i += PAGE) sum += p[i];
	munmap(p, 1 << 20);
	printf("a mapping far from the others: sum %lu\n", sum);
}

int main(int argc, char **argv) {
	int rounds = argc > 1 ? atoi(argv[1]) : 4000;
	int regions = argc > 2 ? atoi(argv[2]) : 6000;
	// The mappings stay while the others come and go.
	int got;
	unsigned char **kept = map_regions(regions, &got);
	large_blocks(rounds);
	map_unmap(rounds);
	unmap_regions(kept, regions, got);
	fresh_zeros();
	partial();
	buffers();
	far();
	return failed;
}
