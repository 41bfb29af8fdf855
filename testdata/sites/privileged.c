/* privileged.c: every privileged x86-64 instruction a user program may
   meet, each run under a SIGSEGV handler that siglongjmps out. A CPU at
   CPL 3 refuses each with a general protection fault, which Linux delivers
   as SIGSEGV with si_code SI_KERNEL (0x80), si_addr 0, trapno 13 and error
   code 0, with the saved RIP at the instruction. Prints what the handler
   saw: the output must be the same natively and under icount. (An AMD
   processor refuses sysexit in 64-bit mode as undefined, SIGILL: the
   handler catches that too.) */
#include "catch.h"

static char table[16]; /* what lgdt, lidt and invlpg point at */

/* TRY runs setup, then one instruction at the global label at_NAME. */
#define TRY(name, setup, insn)                                                                            \
	do {                                                                                                  \
		extern char at_##name[];                                                                          \
		if (!sigsetjmp(jb, 1)) {                                                                          \
			__asm__ volatile(setup "\n.globl at_" #name "\nat_" #name ":\n\t" insn ::"a"(table), "d"(0x80) \
			                 : "memory", "rcx", "rsi", "rdi");                                           \
			printf("%-8s ran\n", #name);                                                                  \
		} else {                                                                                          \
			printf("%-8s signal %d code %#x addr %p trapno %llu err %llu at the instruction: %s\n", #name, \
			       signo, code, addr, trapno, err, pc == (unsigned long long)at_##name ? "yes" : "no");    \
		}                                                                                                 \
	} while (0)

int main(void) {
	catch_signal(SIGSEGV);
	catch_signal(SIGILL);
	TRY(hlt, "", "hlt");
	TRY(cli, "", "cli");
	TRY(sti, "", "sti");
	TRY(inb, "", "in (%%dx), %%al");
	TRY(inl, "", "in $0x80, %%eax");
	TRY(outb, "", "out %%al, (%%dx)");
	TRY(outw, "", "out %%ax, $0x80");
	TRY(insb, "lea table(%%rip), %%rdi", "insb");
	TRY(repinsb, "lea table(%%rip), %%rdi\n\tmov $1, %%ecx", "rep insb");
	TRY(outsw, "lea table(%%rip), %%rsi", "outsw");
	TRY(lgdt, "", "lgdt (%%rax)");
	TRY(lidt, "", "lidt (%%rax)");
	TRY(lldt, "", "lldt %%dx");
	TRY(ltr, "", "ltr %%dx");
	TRY(lmsw, "", "lmsw %%dx");
	TRY(movcr0, "", "mov %%cr0, %%rcx");
	TRY(movcr3, "", "mov %%rcx, %%cr3");
	TRY(movdr7, "", "mov %%db7, %%rcx");
	TRY(wrmsr, "", "wrmsr");
	TRY(rdmsr, "", "rdmsr");
	TRY(invlpg, "", "invlpg (%%rax)");
	TRY(invd, "", "invd");
	TRY(wbinvd, "", "wbinvd");
	TRY(clts, "", "clts");
	TRY(swapgs, "", "swapgs");
	TRY(sysret, "", "sysretq");
	TRY(sysexit, "", ".byte 0x0f, 0x35");
	TRY(rdpmc, "xor %%ecx, %%ecx", "rdpmc");
	return 0;
}
