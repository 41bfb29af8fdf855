/* sigill.h: running an instruction that may fault, and printing what
 * happened, without a child process: a handler for the fault's signals
 * records si_code and whether si_addr (SIGILL, SIGFPE, SIGTRAP: the
 * faulting instruction's address) or the saved PC matches the instruction,
 * and siglongjmps out.
 *
 *   FORM: ran                         the instruction completed
 *   FORM: SIGILL code=2 at=insn       it raised SIGILL (ILL_ILLOPN) at itself
 *
 * Only r10 of the general registers is used by TRY itself. */
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
 * trap_pc, and prints one line, written at once (a run that ends at the
 * next instruction has printed it). TRY2 runs setup first, insn being the
 * instruction that may fault. A trap's saved PC is printed relative to
 * the instruction (int3: at=insn+1). */
#define TRY2(name, setup, insn, ...)                                           \
	do {                                                                   \
		if (sigsetjmp(trap_jb, 1) == 0) {                              \
			__asm__ volatile(setup "\n\tlea 1f(%%rip), %%r10\n\tmov %%r10, %[pc]\n1:\t" insn \
					 : [pc] "=m"(trap_pc) : : "r10", "memory", ##__VA_ARGS__); \
			pr("%s: ran\n", name);                                 \
		} else if (trap_ip == trap_pc) {                               \
			pr("%s: %s code=%d at=insn\n", name, trap_name(trap_sig), trap_code); \
		} else {                                                       \
			pr("%s: %s code=%d at=insn%+lld\n", name, trap_name(trap_sig), trap_code, \
			   (long long)(trap_ip - trap_pc));                        \
		}                                                              \
		pr_flush();                                                    \
	} while (0)
#define TRY(name, insn, ...) TRY2(name, "", insn, ##__VA_ARGS__)
