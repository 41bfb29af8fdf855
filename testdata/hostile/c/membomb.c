/* membomb.c: allocates memory and touches every page until malloc fails,
   in blocks of 4 KiB to 4 MiB (the heap and mmap both). Under a memory
   limit (icount run --max-memory) malloc returns NULL and the program
   says how much it got and exits 1; without one it would take the
   machine's memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
	size_t total = 0;
	for (unsigned i = 0;; i++) {
		size_t n = (size_t)4096 << (i % 11);
		char *p = malloc(n);
		if (!p) {
			printf("malloc(%zu) failed after %zu MiB\n", n, total >> 20);
			return 1;
		}
		memset(p, 0xa5, n);
		total += n;
	}
}
