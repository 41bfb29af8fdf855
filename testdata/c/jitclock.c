/*
 * jitclock: x86-64 code that reads the TSC from machine code the program
 * writes into executable memory itself (as a JIT does), called twice.
 *
 * icount finds rdtsc when code is loaded, mapped, made executable or
 * written by a system call; these bytes are stored by the program's own
 * instructions into a mapping that was executable from the start, so the
 * first call reads the host's counter, and icount hooks the rdtsc when it
 * first translates it: the second call reads the guest's clock. Under
 * `icount run --fixed-clock --clock-start 1s` the second value is the
 * first read of the clock, 1 s at 2 GHz: 2000000000.
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
	printf("first %s\nsecond %llu\n", first ? "read" : "zero", (unsigned long long)second);
	return 0;
}
