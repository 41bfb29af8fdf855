/* sigsegv.c: handlers that catch faults and siglongjmp out of them, and
 * one on an alternate stack for a stack overflow. The program goes on
 * after each and prints what the handlers saw; the output is the same
 * natively and under icount, on x86-64 and arm64. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static sigjmp_buf env;
static volatile sig_atomic_t caught_sig, caught_code;
static void *volatile caught_addr;
static volatile uintptr_t handler_sp;

static void handler(int sig, siginfo_t *si, void *uc) {
	(void)uc;
	caught_sig = sig;
	caught_code = si->si_code;
	caught_addr = si->si_addr;
	int here;
	handler_sp = (uintptr_t)&here;
	siglongjmp(env, 1);
}

static void install(int sig, int flags) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0) {
		perror("sigaction");
		exit(1);
	}
}

static int volatile *volatile null_ptr;
static volatile int zero;

/* Faults reading address addr; returns whether the handler caught it. */
static int try_read(volatile int *addr) {
	if (sigsetjmp(env, 1) == 0) {
		int v = *addr;
		(void)v;
		return 0;
	}
	return 1;
}

static int try_write(volatile char *addr) {
	if (sigsetjmp(env, 1) == 0) {
		*addr = 1;
		return 0;
	}
	return 1;
}

static unsigned depth;
static volatile unsigned limit = ~0u; /* never reached: the stack ends first */

static unsigned recurse(unsigned n) {
	volatile char pad[512];
	pad[0] = (char)n;
	depth = n;
	if (n == limit)
		return 0;
	return recurse(n + 1) + pad[0];
}

int main(void) {
	install(SIGSEGV, 0);

	/* A null pointer, many times: each catch longjmps out and the mask
	 * that siglongjmp restores lets the next one in. */
	int catches = 0;
	for (int i = 0; i < 1000; i++)
		catches += try_read(null_ptr);
	printf("null reads caught: %d, last si_code %s, si_addr %s\n", catches,
	       caught_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other", caught_addr == NULL ? "NULL" : "other");

	/* An unmapped page in the middle of a mapping. */
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(m + pg, pg);
	int c = try_read((volatile int *)(m + pg + 8));
	printf("unmapped read caught: %d, si_code %s, si_addr %s\n", c,
	       caught_code == SEGV_MAPERR ? "SEGV_MAPERR" : "other", caught_addr == m + pg + 8 ? "the address read" : "other");

	/* A write to a read-only page. */
	mprotect(m, pg, PROT_READ);
	c = try_write(m + 100);
	printf("read-only write caught: %d, si_code %s, si_addr %s\n", c,
	       caught_code == SEGV_ACCERR ? "SEGV_ACCERR" : "other", caught_addr == m + 100 ? "the address written" : "other");

	/* Integer division by zero: SIGFPE on x86-64; arm64 does not trap, so
	 * there the program raises it. */
	install(SIGFPE, 0);
	volatile int q = 0;
	if (sigsetjmp(env, 1) == 0) {
#if defined(__x86_64__)
		q = 7 / zero;
#else
		q = 7 / (zero + 1);
		raise(SIGFPE);
#endif
	}
	int want_code = 0;
#if defined(__x86_64__)
	want_code = FPE_INTDIV;
#else
	want_code = SI_TKILL;
#endif
	printf("SIGFPE caught: %d, si_code as expected: %d\n", caught_sig == SIGFPE, caught_code == want_code);
	(void)q;

	/* A trap: ud2 on x86-64 (SIGILL), brk on arm64 (SIGTRAP). */
	install(SIGILL, 0);
	install(SIGTRAP, 0);
	caught_sig = 0;
	if (sigsetjmp(env, 1) == 0)
		__builtin_trap();
	printf("__builtin_trap caught: %d\n", caught_sig == SIGILL || caught_sig == SIGTRAP);

	/* A stack overflow, caught on an alternate stack (SA_ONSTACK). */
	size_t altsize = 64 * 1024;
	char *alt = malloc(altsize);
	stack_t ss = {.ss_sp = alt, .ss_size = altsize, .ss_flags = 0};
	if (sigaltstack(&ss, NULL) != 0) {
		perror("sigaltstack");
		return 1;
	}
	install(SIGSEGV, SA_ONSTACK);
	handler_sp = 0;
	if (sigsetjmp(env, 1) == 0)
		recurse(0);
	int on_alt = handler_sp > (uintptr_t)alt && handler_sp < (uintptr_t)alt + altsize;
	printf("stack overflow caught: %d, deep: %d, handler on the alternate stack: %d\n", caught_sig == SIGSEGV,
	       depth > 1000, on_alt);
	stack_t now;
	sigaltstack(NULL, &now);
	printf("after the handler: alternate stack %s\n", now.ss_flags == 0 ? "enabled, not in use" : "other");

	/* Still catching afterwards, with the mask siglongjmp restored. */
	printf("null read after all that caught: %d\n", try_read(null_ptr));
	sigset_t set;
	sigprocmask(SIG_BLOCK, NULL, &set);
	printf("SIGSEGV blocked at the end: %d\n", sigismember(&set, SIGSEGV));
	return 0;
}
