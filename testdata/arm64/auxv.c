/*
 * auxv: what an arm64 program sees of its start-up under icount (built
 * glibc-static for arm64 only): the auxiliary vector entries the kernel
 * gives arm64 (AT_HWCAP with only what the emulated cortex-a72 executes,
 * AT_HWCAP2, AT_PLATFORM "aarch64"), the alignment of the initial stack
 * pointer (argv lies just above argc, where the stack pointer pointed), the
 * thread pointer glibc set up in TPIDR_EL0, and the fixed identity.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <unistd.h>

int main(int argc, char **argv) {
	uintptr_t sp = (uintptr_t)argv - sizeof(long);
	uintptr_t tp;
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
	printf("argc=%d sp%%16=%lu\n", argc, (unsigned long)(sp % 16));
	printf("hwcap=%#lx hwcap2=%#lx platform=%s\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2),
	       (const char *)getauxval(AT_PLATFORM));
	printf("pagesz=%lu random=%s tls=%s\n", getauxval(AT_PAGESZ), getauxval(AT_RANDOM) ? "yes" : "no",
	       tp != 0 ? "yes" : "no");
	printf("pid=%d uid=%d gid=%d\n", (int)getpid(), (int)getuid(), (int)getgid());
	return 0;
}
