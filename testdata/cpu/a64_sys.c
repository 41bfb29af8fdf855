/* a64_sys.c: what arm64 user-mode code sees of the system: AT_HWCAP and
 * AT_HWCAP2, the initial FPCR and FPSR, the ID and cache registers Linux
 * lets EL0 read (through HWCAP_CPUID's emulation), and what privileged
 * and hint instructions do (a handler catches the signal and siglongjmps
 * out; one line each):
 *
 *   FORM: ran VALUE | FORM: SIGILL at=insn | FORM: SIGTRAP code=1 at=insn
 *
 * SIGILL's si_code is not printed: Linux gives ILL_ILLOPC for an undefined
 * instruction (arch/arm64/kernel/traps.c, do_undefinstr), qemu-aarch64
 * ILL_ILLOPN. */
#include "cpu.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/auxv.h>
#include <ucontext.h>

static sigjmp_buf jb;
static volatile uintptr_t trap_pc;
static volatile int tsig, tcode;
static volatile uintptr_t tpc;

static void handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	tsig = sig, tcode = si->si_code, tpc = (uintptr_t)uc->uc_mcontext.pc;
	siglongjmp(jb, 1);
}

#define TRY(name, insn, ...)                                                   \
	do {                                                                   \
		uint64_t v = 0;                                                \
		if (sigsetjmp(jb, 1) == 0) {                                   \
			__asm__ volatile("adr x10, 1f\n\tstr x10, %[pc]\n1:\t" insn \
					 : [pc] "=m"(trap_pc), [v] "+r"(v) : : "x10", "v0", "memory", ##__VA_ARGS__); \
			pr("%s: ran %llx\n", name, (unsigned long long)v);     \
		} else {                                                       \
			if (tsig == SIGILL)                                    \
				pr("%s: SIGILL at=%s\n", name, tpc == trap_pc ? "insn" : "elsewhere"); \
			else                                                   \
				pr("%s: %s code=%d at=%s\n", name, tsig == SIGTRAP ? "SIGTRAP" \
				   : tsig == SIGSEGV ? "SIGSEGV" : tsig == SIGBUS ? "SIGBUS" : "?", tcode, \
				   tpc == trap_pc ? "insn" : "elsewhere");         \
		}                                                              \
		pr_flush();                                                    \
	} while (0)

int main(void)
{
	uint64_t fpcr, fpsr;
	__asm__ volatile("mrs %0, fpcr\n\tmrs %1, fpsr" : "=r"(fpcr), "=r"(fpsr));
	pr("init-fpcr %llx\ninit-fpsr %llx\n", (unsigned long long)fpcr, (unsigned long long)fpsr);
	pr("hwcap %lx\nhwcap2 %lx\n", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGILL, &sa, 0);
	sigaction(SIGTRAP, &sa, 0);
	sigaction(SIGSEGV, &sa, 0);
	sigaction(SIGBUS, &sa, 0);
	TRY("mrs-ctr_el0", "mrs %[v], ctr_el0");
	TRY("mrs-dczid_el0", "mrs %[v], dczid_el0");
	TRY("mrs-tpidr_el0-nonzero", "mrs %[v], tpidr_el0\n\tcmp %[v], #0\n\tcset %[v], ne");
	TRY("mrs-midr_el1", "mrs %[v], midr_el1");
	TRY("mrs-mpidr_el1", "mrs %[v], mpidr_el1");
	TRY("mrs-id_aa64pfr0_el1", "mrs %[v], id_aa64pfr0_el1");
	TRY("mrs-id_aa64isar0_el1", "mrs %[v], id_aa64isar0_el1");
	TRY("mrs-id_aa64mmfr0_el1", "mrs %[v], id_aa64mmfr0_el1");
	TRY("mrs-revidr_el1", "mrs %[v], revidr_el1");
	TRY("mrs-id_aa64zfr0_el1", "mrs %[v], s3_0_c0_c4_4");
	/* Linux does not emulate the AArch32 ID registers, nor CRm 0 but
	 * MIDR, MPIDR and REVIDR: undefined at EL0. */
	TRY("mrs-id_pfr0_el1", "mrs %[v], id_pfr0_el1");
	TRY("mrs-mvfr0_el1", "mrs %[v], mvfr0_el1");
	TRY("mrs-s3_0_c0_c0_1", "mrs %[v], s3_0_c0_c0_1");
	TRY("mrs-currentel", "mrs %[v], currentel");
	TRY("mrs-sctlr_el1", "mrs %[v], sctlr_el1");
	TRY("msr-daifset", "msr daifset, #2");
	TRY("mrs-daif", "mrs %[v], daif");
	TRY("udf", ".inst 0x00000000");
	TRY("brk", "brk #7");
	TRY("nop-yield-sev", "nop\n\tyield\n\tsevl");
	TRY("wfe", "sevl\n\twfe");
	TRY("dc-civac-cvau-ic-ivau", "mov %[v], sp\n\tdc civac, %[v]\n\tdc cvau, %[v]\n\tic ivau, %[v]\n\tdsb ish\n\tisb\n\tmov %[v], xzr");
	{
		/* dc zva zeroes the DCZID_EL0 block (64 bytes) holding the address */
		static unsigned char zbuf[512] __attribute__((aligned(256)));
		memset(zbuf, 0xab, sizeof zbuf);
		__asm__ volatile("dc zva, %0" : : "r"(zbuf + 200) : "memory");
		int first = -1, zeros = 0;
		for (int i = 0; i < 512; i++)
			if (zbuf[i] == 0)
				zeros++, first = first < 0 ? i : first;
		pr("dc-zva: first=%d zeros=%d\n", first, zeros);
	}
	/* Instructions of later architecture versions than the Cortex-A72's
	 * ARMv8.0 must raise SIGILL (the hint-space ones, paciasp, autiasp
	 * and bti, are NOPs there). */
	TRY("lse-ldaddal", ".arch_extension lse\n\tldaddal %[v], %[v], [sp]");
	TRY("lse-casal", ".arch_extension lse\n\tcasal %[v], %[v], [sp]");
	TRY("fp16-fadd", ".arch_extension fp16\n\tfadd h0, h0, h0");
	TRY("dotprod-sdot", ".arch armv8.2-a+dotprod\n\tsdot v0.4s, v0.16b, v0.16b");
	TRY("sha512h", ".arch armv8.2-a+sha3\n\tsha512h q0, q0, v0.2d");
	TRY("sha3-eor3", ".arch armv8.2-a+sha3\n\teor3 v0.16b, v0.16b, v0.16b, v0.16b");
	TRY("rdm-sqrdmlah", ".arch_extension rdma\n\tsqrdmlah v0.8h, v0.8h, v0.8h");
	TRY("rcpc-ldapr", ".arch_extension rcpc\n\tldapr %[v], [sp]");
	TRY("pauth-pacia", ".arch armv8.3-a\n\tpacia %[v], sp");
	TRY("jscvt-fjcvtzs", ".arch armv8.3-a\n\tfjcvtzs w9, d0", "x9");
	TRY("frint32z", ".arch armv8.5-a\n\tfrint32z d0, d0");
	TRY("flagm-cfinv", ".arch armv8.4-a\n\tcfinv");
	TRY("paciasp-autiasp-hint", "hint #25\n\thint #29");
	TRY("bti-hint", "hint #34");
	TRY("sb", ".arch armv8.5-a\n\tsb");
	TRY("hvc", "hvc #0");
	TRY("wfi", "wfi"); /* last: a run that stops here has printed the rest */
	pr("done\n");
	pr_flush();
	return 0;
}
