/*
 * unwind: every way a C program leaves frames without returning, in loops,
 * for icount's calling-context tree (cmd/icount/unwind_test.go).
 *
 *   unwind MODE
 *
 * Each of 200 rounds, all in one frame of rounds(), calls work(i) and then
 * goes dive(16) deep, where it leaves the dive by MODE:
 *   return      returns (the same work with no unusual exit);
 *   longjmp     longjmp to the round's setjmp;
 *   signal      raises SIGUSR1, whose handler siglongjmps out (it never
 *               returns);
 *   ucontext    the dive runs on a context of its own stack (makecontext),
 *               and swapcontext goes back to the round's;
 * and at the end prints a checksum. The work and the dive do the same
 * instructions in every mode: only the exit differs.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#define ROUNDS 200
#define DEPTH 16

static volatile unsigned sink;
static enum { RETURN, LONGJMP, SIGNAL, UCONTEXT } mode;
static jmp_buf jb;
static sigjmp_buf sjb;
static ucontext_t round_ctx, dive_ctx;
static char dive_stack[64 << 10];

__attribute__((noinline)) static void work(int i) {
	for (int j = 0; j < 20; j++)
		sink += (unsigned)(i * j) ^ sink >> 3;
}

__attribute__((noinline)) static void leave(void) {
	switch (mode) {
	case RETURN:
		return;
	case LONGJMP:
		longjmp(jb, 1);
	case SIGNAL:
		raise(SIGUSR1);
		return; /* not reached: the handler leaves by siglongjmp */
	case UCONTEXT:
		swapcontext(&dive_ctx, &round_ctx);
		return; /* not reached: the dive is never resumed */
	}
}

__attribute__((noinline)) static void dive(int n) {
	sink += (unsigned)n;
	if (n == 0)
		leave();
	else
		dive(n - 1);
	sink -= (unsigned)n; /* keeps dive from being a tail call */
}

static void handler(int sig) {
	(void)sig;
	siglongjmp(sjb, 1);
}

static void dive_entry(void) { dive(DEPTH); }

/* rounds runs every round in one frame, which the exits leave behind
   each time: frames they left would pile up under it. */
__attribute__((noinline)) static void rounds(void) {
	for (int i = 0; i < ROUNDS; i++) {
		work(i);
		switch (mode) {
		case RETURN:
			dive(DEPTH);
			break;
		case LONGJMP:
			if (!setjmp(jb))
				dive(DEPTH);
			break;
		case SIGNAL:
			if (!sigsetjmp(sjb, 1))
				dive(DEPTH);
			break;
		case UCONTEXT:
			getcontext(&dive_ctx);
			dive_ctx.uc_stack.ss_sp = dive_stack;
			dive_ctx.uc_stack.ss_size = sizeof dive_stack;
			dive_ctx.uc_link = NULL;
			makecontext(&dive_ctx, dive_entry, 0);
			swapcontext(&round_ctx, &dive_ctx);
			break;
		}
	}
}

int main(int argc, char **argv) {
	const char *names[] = {"return", "longjmp", "signal", "ucontext"};
	if (argc != 2)
		return 2;
	for (int m = 0; m < 4; m++)
		if (!strcmp(argv[1], names[m]))
			mode = m;
	if (strcmp(argv[1], names[mode]))
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	rounds();
	printf("%s %u\n", names[mode], sink);
	return 0;
}
