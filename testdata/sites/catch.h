/* catch.h: the handler the site programs run their instructions under. It
   records what the kernel said of the signal (its number, si_code, si_addr,
   and from the saved context the pc and, on x86-64, trapno and the error
   code) and siglongjmps back to the sigsetjmp of the instruction tried. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf jb;
static volatile int signo, code;
static void *volatile addr;
static volatile unsigned long long pc, trapno, err;

static void handler(int sig, siginfo_t *si, void *ctx) {
	ucontext_t *uc = ctx;
	signo = sig;
	code = si->si_code;
	addr = si->si_addr;
#ifdef __x86_64__
	pc = uc->uc_mcontext.gregs[REG_RIP];
	trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
	err = uc->uc_mcontext.gregs[REG_ERR];
#else
	pc = uc->uc_mcontext.pc;
#endif
	siglongjmp(jb, 1);
}

/* catch_signal installs the handler for sig (re-entered without waiting:
   each instruction tried may raise it again). */
static void catch_signal(int sig) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(sig, &sa, NULL);
}
