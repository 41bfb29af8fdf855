/* cpustate.c: the CPU state a program starts with and what the kernel's
 * side of the CPU does, as a program sees it; the output is the same
 * natively and under icount (arm64: as under qemu-aarch64 -cpu cortex-a72).
 * x86-64: the FPU control word, MXCSR and RFLAGS at entry (Linux: 0x37f,
 * 0x1f80, IF set), fxsave storing XMM registers and MXCSR (CR4.OSFXSR),
 * RCX and R11 after a syscall, long double arithmetic at 64-bit precision,
 * and a divide error caught five times in a row (each a SIGFPE).
 * arm64: AT_HWCAP and the ID registers Linux lets a program read. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

static sigjmp_buf env;
static volatile sig_atomic_t caught_sig, caught_code;

static void handler(int sig, siginfo_t *si, void *uc) {
	(void)uc;
	caught_sig = sig;
	caught_code = si->si_code;
	siglongjmp(env, 1);
}

#ifdef __x86_64__
/* RFLAGS but for the arithmetic flags (CF PF AF ZF SF OF: what the last
 * instruction left, which depends on addresses) and RF. */
static unsigned long system_flags(uint64_t fl) { return (unsigned long)(fl & ~(0x8d5ul | 0x10000ul)); }

static void entry_state(uint16_t cw, uint32_t mx, uint64_t fl) {
	printf("entry: fcw %#x mxcsr %#x rflags %#lx\n", cw, mx, system_flags(fl));
}

static void arch_checks(void) {
	static uint8_t area[512] __attribute__((aligned(16)));
	memset(area, 0xa5, sizeof area);
	__asm__ volatile("movq $0x123456789abcdef0, %%rax\n\tmovq %%rax, %%xmm3\n\tfxsave %0" : "=m"(area)::"rax", "xmm3");
	uint64_t x3;
	uint32_t mx;
	uint16_t cw;
	memcpy(&x3, area + 160 + 3 * 16, 8);
	memcpy(&mx, area + 24, 4);
	memcpy(&cw, area, 2);
	printf("fxsave: fcw %#x mxcsr %#x xmm3 %#lx\n", cw, mx, (unsigned long)x3);
	/* fxrstor loads XMM registers and MXCSR back. */
	uint64_t seven = 7;
	memcpy(area + 160 + 3 * 16, &seven, 8);
	mx = 0x1f80 | 0x6000; /* round toward zero */
	memcpy(area + 24, &mx, 4);
	uint64_t got;
	uint32_t now;
	__asm__ volatile("fxrstor %2\n\tmovq %%xmm3, %0\n\tstmxcsr %1\n\tmovl $0x1f80, -4(%%rsp)\n\tldmxcsr -4(%%rsp)"
	                 : "=r"(got), "=m"(now)
	                 : "m"(area)
	                 : "xmm3");
	printf("fxrstor: xmm3 %lu mxcsr %#x\n", (unsigned long)got, now);

	uint64_t rcx, r11, rip;
	__asm__ volatile("movl $39, %%eax\n\tsyscall\n1:\n\tleaq 1b(%%rip), %2\n\tmovq %%rcx, %0\n\tmovq %%r11, %1"
	                 : "=r"(rcx), "=r"(r11), "=r"(rip)::"rax", "rcx", "r11", "memory");
	printf("syscall: rcx is the return address: %s, r11 %#lx\n", rcx == rip ? "yes" : "no", system_flags(r11));

	volatile long double third = 1.0L;
	third /= 3;
	printf("long double: %.20Lg\n", third);
}
#else
#define ID(name, enc)                                                                                              \
	do {                                                                                                       \
		unsigned long v;                                                                                   \
		__asm__ volatile("mrs %0, " enc : "=r"(v));                                                        \
		printf("%s %#lx\n", name, v);                                                                      \
	} while (0)

static void arch_checks(void) {
	printf("hwcap %#lx hwcap2 %#lx\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
	ID("MIDR_EL1", "S3_0_C0_C0_0");
	ID("MPIDR_EL1", "S3_0_C0_C0_5");
	ID("REVIDR_EL1", "S3_0_C0_C0_6");
	ID("ID_AA64PFR0_EL1", "S3_0_C0_C4_0");
	ID("ID_AA64PFR1_EL1", "S3_0_C0_C4_1");
	ID("ID_AA64ZFR0_EL1", "S3_0_C0_C4_4");
	ID("ID_AA64DFR0_EL1", "S3_0_C0_C5_0");
	ID("ID_AA64DFR1_EL1", "S3_0_C0_C5_1");
	ID("ID_AA64ISAR0_EL1", "S3_0_C0_C6_0");
	ID("ID_AA64ISAR1_EL1", "S3_0_C0_C6_1");
	ID("ID_AA64MMFR0_EL1", "S3_0_C0_C7_0");
	ID("ID_AA64MMFR1_EL1", "S3_0_C0_C7_1");
	ID("ID_AA64MMFR2_EL1", "S3_0_C0_C7_2");
}
#endif

int main(void) {
#ifdef __x86_64__
	uint16_t cw;
	uint32_t mx;
	uint64_t fl;
	/* Before anything else of the program touches them. */
	__asm__ volatile("fnstcw %0\n\tstmxcsr %1\n\tpushfq\n\tpopq %2" : "=m"(cw), "=m"(mx), "=r"(fl));
	entry_state(cw, mx, fl);
#endif
	arch_checks();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGFPE, &sa, NULL);
	for (int i = 0; i < 5; i++) {
		caught_sig = caught_code = 0;
		volatile int zero = 0, r = 1;
		if (!sigsetjmp(env, 1)) r = 7 / zero; /* arm64: 0, no trap */
		printf("divide %d: result %d signal %d code %d\n", i, r, caught_sig, caught_code);
	}
	return 0;
}
