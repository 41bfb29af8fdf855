/* x86_trap.c: what user-mode x86-64 code gets from instructions that
 * fault, and from system calls' register effects, one line each (see
 * sigill.h): divide errors (three in a row, each caught and longjmped out
 * of), ud2, int3, a misaligned movaps, privileged instructions (cli, sti,
 * in, out, hlt, mov from cr0, wbinvd: #GP, SIGSEGV with si_code
 * SI_KERNEL), pushfq's IF, rcx and r11 after syscall (the return
 * address and RFLAGS), divide errors (three in a row, each caught and
 * longjmped out of) and hlt, last: a run that stops at one of those has
 * printed everything before. */
#include "cpu.h"
#include "sigill.h"

int main(void)
{
	trap_install();
	TRY("ud2", "ud2");
	TRY("ud1", "ud1 %%eax, %%eax");
	TRY("int3", "int3");
	TRY("movaps-misaligned", "movaps 1(%%rsp), %%xmm0", "xmm0");
	TRY2("movaps-aligned", "movq %%rsp, %%rax\n\tandq $-16, %%rax", "movaps (%%rax), %%xmm0", "rax", "xmm0");
	TRY("cli", "cli");
	TRY("sti", "sti");
	TRY("in", "inb $0x80, %%al", "rax");
	TRY("out", "outb %%al, $0x80");
	TRY("mov-cr0", "movq %%cr0, %%rax", "rax");
	TRY("wbinvd", "wbinvd");
	/* Unmasked floating-point exceptions: #MF at the next x87
	 * instruction, #XM at the SSE one; SIGFPE with the exception's code. */
	TRY2("x87-unmasked-zerodiv", "fninit\n\tpushq $0x37b\n\tfldcw (%%rsp)\n\taddq $8, %%rsp\n\tfld1\n\tfldz",
	     "fdivrp\n\tfwait\n\tfstp %%st(0)", "st", "st(1)");
	__asm__ volatile("fninit" ::: "st", "st(1)");
	TRY2("x87-unmasked-invalid", "fninit\n\tpushq $0x37e\n\tfldcw (%%rsp)\n\taddq $8, %%rsp\n\tfld1\n\tfchs",
	     "fsqrt\n\tfwait\n\tfstp %%st(0)", "st", "st(1)");
	__asm__ volatile("fninit" ::: "st", "st(1)");
	TRY2("sse-unmasked-zerodiv", "pushq $0x1d80\n\tldmxcsr (%%rsp)\n\taddq $8, %%rsp\n\tpxor %%xmm1, %%xmm1\n\t"
	     "movl $1, %%eax\n\tcvtsi2sd %%eax, %%xmm0", "divsd %%xmm1, %%xmm0", "rax", "xmm0", "xmm1");
	TRY2("sse-unmasked-inexact", "pushq $0x0f80\n\tldmxcsr (%%rsp)\n\taddq $8, %%rsp\n\tmovl $3, %%eax\n\t"
	     "cvtsi2sd %%eax, %%xmm1\n\tmovl $1, %%eax\n\tcvtsi2sd %%eax, %%xmm0", "divsd %%xmm1, %%xmm0", "rax", "xmm0", "xmm1");
	{
		uint32_t mx = 0x1f80;
		__asm__ volatile("ldmxcsr %0" : : "m"(mx));
	}
	uint64_t fl;
	__asm__ volatile("pushfq\n\tpopq %0" : "=r"(fl));
	pr("pushfq-if %llx\n", (unsigned long long)(fl & 0x200));
	/* popfq at CPL 3 with IOPL 0: the arithmetic flags, DF, NT, AC and ID
	 * change; IF and IOPL do not. The old flags are restored at once
	 * (AC would make misaligned accesses fault). */
	uint64_t want = 0x247ed5, got;
	__asm__ volatile("pushfq\n\tpushq %[w]\n\tpopfq\n\tpushfq\n\tpopq %[g]\n\tpopfq" : [g] "=&r"(got) : [w] "r"(want) : "cc");
	pr("popfq-settable %llx\n", (unsigned long long)(got & 0x3fffff));
	want = 0;
	__asm__ volatile("pushfq\n\tpushq %[w]\n\tpopfq\n\tpushfq\n\tpopq %[g]\n\tpopfq" : [g] "=&r"(got) : [w] "r"(want) : "cc");
	pr("popfq-clearable %llx\n", (unsigned long long)(got & 0x3fffff));
	uint64_t rcx, r11, ret, flin = 0x8d7, ra;
	/* getpid; rcx must hold the address after syscall, r11 the RFLAGS */
	__asm__ volatile("pushq %[fi]\n\tpopfq\n\tlea 1f(%%rip), %[ra]\n\tsyscall\n1:\tmovq %%rcx, %[c]\n\tmovq %%r11, %[r]"
			 : "=a"(ret), [c] "=r"(rcx), [r] "=r"(r11), [ra] "=&r"(ra)
			 : "a"(39L), [fi] "r"(flin) : "rcx", "r11", "memory", "cc");
	pr("syscall-rcx %s\nsyscall-r11 %llx\n", rcx == ra ? "return-address" : "other",
	   (unsigned long long)(r11 & 0xfff));
	for (volatile int i = 1; i <= 3; i++) {
		char name[16] = "div0-#";
		name[6] = (char)('0' + i);
		TRY2(name, "xorl %%ecx, %%ecx\n\tmovl $1, %%eax\n\tcltd", "divl %%ecx", "rax", "rcx", "rdx", "cc");
	}
	TRY2("idiv-min-m1", "movl $0x80000000, %%eax\n\tmovl $-1, %%ecx\n\tcltd", "idivl %%ecx", "rax", "rcx", "rdx", "cc");
	TRY("hlt", "hlt");
	pr("done\n");
	pr_flush();
	return 0;
}
