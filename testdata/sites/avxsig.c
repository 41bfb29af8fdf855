/* avxsig.c: VEX- and EVEX-encoded instructions under a SIGILL handler that
   siglongjmps out. A CPU without AVX refuses each with #UD, which Linux
   delivers as SIGILL with si_code ILL_ILLOPN (2), si_addr and the saved
   RIP at the instruction, trapno 6. Under icount (whose CPU has no AVX)
   the output is fixed; natively this machine has AVX and runs them. */
#include "catch.h"

/* TRY runs one instruction at the global label at_NAME; xmm0 is 1.0 and
   xmm1 2.0 before it, and the low double of xmm0 is printed after. */
#define TRY(name, insn)                                                                                     \
	do {                                                                                                    \
		extern char at_##name[];                                                                            \
		double one = 1.0, two = 2.0, out = 0;                                                               \
		if (!sigsetjmp(jb, 1)) {                                                                            \
			__asm__ volatile("movsd %1, %%xmm0\n\tmovsd %2, %%xmm1\n.globl at_" #name "\nat_" #name ":\n\t" \
			                 insn "\n\tmovsd %%xmm0, %0"                                                    \
			                 : "=m"(out)                                                                    \
			                 : "m"(one), "m"(two)                                                           \
			                 : "xmm0", "xmm1", "xmm2", "memory");                                           \
			printf("%-12s ran: xmm0 %g\n", #name, out);                                                     \
		} else {                                                                                            \
			printf("%-12s signal %d code %d trapno %llu at the instruction: %s %s\n", #name, signo, code,   \
			       trapno, addr == (void *)at_##name ? "yes" : "no",                                        \
			       pc == (unsigned long long)at_##name ? "yes" : "no");                                   \
		}                                                                                                   \
	} while (0)

int main(void) {
	catch_signal(SIGILL);
	TRY(vaddsd, "vaddsd %%xmm1, %%xmm1, %%xmm0"); /* Unicorn: xmm0 + xmm1 = 3 */
	TRY(vxorps, "vxorps %%xmm1, %%xmm1, %%xmm0");
	TRY(vmovsd, "vmovsd %%xmm1, %%xmm1, %%xmm0");
	TRY(vzeroupper, "vzeroupper");
	TRY(vaddpd256, "vaddpd %%ymm1, %%ymm0, %%ymm0");
	TRY(vfmadd, "vfmadd231sd %%xmm1, %%xmm1, %%xmm0");
	TRY(vpbroadcast, "vpbroadcastq %%xmm1, %%xmm0");
	TRY(andn, "andn %%eax, %%eax, %%eax");
	TRY(evex, "vaddpd %%zmm1, %%zmm0, %%zmm0");
	TRY(segvex, ".byte 0x2e, 0xc5, 0xf3, 0x58, 0xc1"); /* cs vaddsd */
	return 0;
}
