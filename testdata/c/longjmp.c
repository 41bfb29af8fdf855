/*
 * longjmp: a test program for icount's call tracking (built glibc-static).
 * dive recurses 30 deep and longjmps back to body, 100 times; the call tree
 * must not drift: after each longjmp the stack is back in body.
 */
#include <setjmp.h>
#include <stdio.h>

static jmp_buf env;
static volatile unsigned sink;

__attribute__((noinline)) static void dive(int n) {
	sink += n;
	if (n == 0)
		longjmp(env, 1);
	dive(n - 1);
	sink -= n; /* not reached: keeps dive from being a tail call */
}

__attribute__((noinline)) static unsigned after(unsigned x) {
	return x * 3 + 1;
}

__attribute__((noinline)) static unsigned body(void) {
	volatile unsigned s = 0; /* volatile: it lives across setjmp */
	for (int i = 0; i < 100; i++) {
		if (!setjmp(env))
			dive(30);
		s += after(sink);
	}
	return s;
}

int main(void) {
	printf("longjmp %u\n", body());
	return 0;
}
