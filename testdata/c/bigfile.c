// bigfile: reads or maps a large file, to measure what a guest's file
// I/O costs icount's host (CPU time, peak memory): `bigfile read FILE
// PIECE` reads FILE with read(2) in pieces of PIECE bytes into one buffer;
// `bigfile map FILE` maps it whole, private and read-only, and touches
// every page. Either prints the bytes seen and a checksum of the first
// 64-bit word of every 4 KiB page, the same both ways.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAGE 4096

// sum adds the first word of each page of p (n bytes, from file offset off).
static uint64_t sum(const unsigned char *p, size_t n, uint64_t off)
{
	uint64_t s = 0;
	for (size_t i = (PAGE - off % PAGE) % PAGE; i + 8 <= n; i += PAGE) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		s += w * ((off + i) / PAGE + 1);
	}
	return s;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "read") == 0 && argc < 4)) {
		fprintf(stderr, "usage: bigfile read FILE PIECE | bigfile map FILE\n");
		return 2;
	}
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	uint64_t total = 0, check = 0;
	if (strcmp(argv[1], "read") == 0) {
		size_t piece = strtoull(argv[3], NULL, 0);
		unsigned char *buf = malloc(piece);
		if (!buf || piece % PAGE) {
			fprintf(stderr, "bigfile: PIECE must be a multiple of %d\n", PAGE);
			return 1;
		}
		for (ssize_t n; (n = read(fd, buf, piece)) > 0; total += n)
			check += sum(buf, n, total);
	} else {
		struct stat st;
		fstat(fd, &st);
		total = st.st_size;
		unsigned char *p = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		check = sum(p, total, 0);
	}
	printf("%llu bytes, checksum %llx\n", (unsigned long long)total, (unsigned long long)check);
	return 0;
}
