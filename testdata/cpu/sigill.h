/* sigill.h: running an instruction that may fault, and printing what
 * happened, without a child process: a handler for the fault's signals
 * records si_code and whether si_addr (SIGILL, SIGFPE, SIGTRAP: the
 * faulting instruction's address) or the saved PC matches the instruction,
 * and siglongjmps out.
 *
 *   FORM: ran                         the instruction completed
 *   FORM: SIGILL code=2 at=insn       it raised SIGILL (ILL_ILLOPN) at itself */
#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

static sigjmp_buf trap_jb;
static volatile uintptr_t trap_pc; /* the instruction TRY runs */
static volatile int trap_sig, trap_code;
static volatile uintptr_t trap_addr, trap_ip;

static void trap_handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	trap_sig = sig, trap_code = si->si_code, trap_addr = (uintptr_t)si->si_addr;
	trap_ip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	siglongjmp(trap_jb, 1);
}

static void trap_install(void)
{
	static const int sigs[] = {SIGILL, SIGSEGV, SIGFPE, SIGTRAP, SIGBUS};
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = trap_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, 0);
}

static const char *trap_name(int sig)
{
	switch (sig) {
	case SIGILL: return "SIGILL";
	case SIGSEGV: return "SIGSEGV";
	case SIGFPE: return "SIGFPE";
	case SIGTRAP: return "SIGTRAP";
	case SIGBUS: return "SIGBUS";
	}
	return "?";
}

/* TRY runs insn (asm text, with clobbers) after recording its address in
 * trap_pc, and prints one line. */
#define TRY(name, insn, ...)                                                   \
	do {                                                                   \
		if (sigsetjmp(trap_jb, 1) == 0) {                              \
			__asm__ volatile("lea 1f(%%rip), %%rax\n\tmov %%rax, %[pc]\n1:\t" insn \
					 : [pc] "=m"(trap_pc) : : "rax", "memory", ##__VA_ARGS__); \
			pr("%s: ran\n", name);                                 \
		} else {                                                       \
			pr("%s: %s code=%d at=%s\n", name, trap_name(trap_sig), trap_code, \
			   trap_ip == trap_pc ? "insn" : "elsewhere");             \
		}                                                              \
	} while (0)
