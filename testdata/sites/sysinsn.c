/* sysinsn.c (arm64): system instructions at EL0, as Linux runs user
   programs, each under a SIGILL handler that siglongjmps out. wfi and wfe
   return at once; the cache maintenance EL0 may do runs; the rest are
   undefined at EL0: SIGILL with si_addr and the saved pc at the
   instruction. Linux sends si_code ILL_ILLOPC (1) for them; qemu-aarch64's
   user mode sends ILL_ILLOPN (2) (cmd/icount/sites_test.go). */
#include "catch.h"

static char line[256] __attribute__((aligned(256))); /* what the cache maintenance works on */

/* TRY runs one instruction at the global label at_NAME, x0 pointing at line. */
#define TRY(name, insn)                                                                              \
	do {                                                                                             \
		extern char at_##name[];                                                                     \
		if (!sigsetjmp(jb, 1)) {                                                                     \
			__asm__ volatile("mov x0, %0\n.globl at_" #name "\nat_" #name ":\n\t" insn ::"r"(line)     \
			                 : "x0", "x1", "memory");                                              \
			printf("%-14s ran\n", #name);                                                            \
		} else {                                                                                     \
			printf("%-14s signal %d code %d at the instruction: %s %s\n", #name, signo, code,         \
			       addr == (void *)at_##name ? "yes" : "no", pc == (unsigned long long)at_##name ? "yes" : "no"); \
		}                                                                                            \
	} while (0)

int main(void) {
	catch_signal(SIGILL);
	TRY(wfi, "wfi");
	TRY(wfe, "wfe");
	TRY(dc_zva, "dc zva, x0");
	TRY(dc_cvau, "dc cvau, x0");
	TRY(dc_cvac, "dc cvac, x0");
	TRY(dc_civac, "dc civac, x0");
	TRY(ic_ivau, "ic ivau, x0");
	TRY(msr_daifset, "msr daifset, #2");
	TRY(msr_daifclr, "msr daifclr, #2");
	TRY(mrs_daif, "mrs x1, daif");
	TRY(msr_spsel, "msr spsel, #1");
	TRY(mrs_sctlr, "mrs x1, sctlr_el1");
	TRY(mrs_currentel, "mrs x1, currentel");
	TRY(msr_vbar, "msr vbar_el1, xzr");
	TRY(mrs_pmccntr, "mrs x1, pmccntr_el0");
	TRY(mrs_cntv_ctl, "mrs x1, cntv_ctl_el0");
	TRY(msr_tpidrro, "msr tpidrro_el0, xzr");
	TRY(dc_ivac, "dc ivac, x0");
	TRY(dc_isw, "dc isw, xzr");
	TRY(ic_iallu, "ic iallu");
	TRY(tlbi, "tlbi vmalle1");
	TRY(at, "at s1e1r, x0");
	TRY(eret, "eret");
	TRY(hlt, "hlt #0");
	return 0;
}
