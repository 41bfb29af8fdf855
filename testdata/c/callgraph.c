/*
 * callgraph: a test program for icount's attribution (built musl-static
 * and glibc-static).
 *
 * main calls setup once and body once; body calls mid 200 times, each mid
 * calls leaf 10 times, and body computes fib(15) recursively. Only main
 * calls into libc (printf), so the self cost of every function here depends
 * on this file alone: the tests compare it with callgrind's per-function Ir
 * exactly, and use --collect body to count the body without its setup.
 * No memcpy, memset, setjmp or other size-less assembly symbols are called
 * from these functions (valgrind gives their cost to the caller).
 */
#include <stdio.h>

__attribute__((noinline)) static unsigned leaf(unsigned x) {
	return (x * 2654435761u) ^ (x >> 7);
}

__attribute__((noinline)) static unsigned mid(unsigned x) {
	unsigned s = 0;
	for (unsigned i = 0; i < 10; i++)
		s += leaf(x + i);
	return s;
}

__attribute__((noinline)) static unsigned fib(unsigned n) {
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static volatile unsigned table[64];

__attribute__((noinline)) static unsigned setup(void) {
	unsigned s = 0;
	for (unsigned i = 0; i < 64; i++) {
		table[i] = i * i;
		s += table[i];
	}
	return s;
}

__attribute__((noinline)) static unsigned body(void) {
	unsigned s = 0;
	for (unsigned i = 0; i < 200; i++)
		s += mid(table[i % 64]);
	return s + fib(15);
}

int main(void) {
	unsigned a = setup();
	unsigned b = body();
	printf("setup %u body %u\n", a, b);
	return 0;
}
