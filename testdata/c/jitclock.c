/*
 * jitclock: x86-64 code that reads the TSC from machine code the program
 * writes into executable memory itself (as a JIT does), called twice.
 *
 * icount hooks an rdtsc when the block holding it is first seen, before it
 * runs, wherever its code came from: these bytes are stored by the
 * program's own instructions into a mapping that was executable from the
 * start, and both calls read the guest's clock. Under `icount run
 * --fixed-clock --clock-start 1s` (each read 1 s later than the one
 * before) the values are 1 s and 2 s at 2 GHz: 2000000000 and 4000000000.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
	/* rdtsc; shl $32, %rdx; or %rdx, %rax; ret */
	static const uint8_t code[] = {0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3};
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) return 1;
	memcpy(p, code, sizeof code);
	uint64_t (*tsc)(void) = (uint64_t (*)(void))p;
	uint64_t first = tsc();
	uint64_t second = tsc();
	printf("first %llu\nsecond %llu\n", (unsigned long long)first, (unsigned long long)second);
	return 0;
}
