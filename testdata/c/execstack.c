/*
 * execstack: code on the stack, as GCC's nested functions put it there: a
 * nested function whose address is taken is called through a trampoline
 * GCC writes into the enclosing function's stack frame, which needs the
 * executable stack `-z execstack` asks for (PT_GNU_STACK with PF_X). Each
 * call of the enclosing function writes a new trampoline over the last
 * one, in a page the program's own stores keep writing.
 */
#include <stdio.h>

/* apply sums f(0) .. f(n-1). */
static __attribute__((noinline)) long apply(long (*f)(long), int n) {
	long sum = 0;
	for (int i = 0; i < n; i++) sum += f(i);
	return sum;
}

/* scaled sums i * k + bias for i < n, through a nested function. */
static __attribute__((noinline)) long scaled(long k, long bias, int n) {
	long term(long i) { return i * k + bias; }
	return apply(term, n);
}

int main(void) {
	long total = 0;
	for (long r = 0; r < 200; r++) {
		long s = scaled(r, r % 7, 50);
		total += s;
		if (r % 40 == 0) printf("scaled(%ld): %ld\n", r, s);
	}
	printf("total: %ld\n", total);
	return 0;
}
