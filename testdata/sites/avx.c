/* avx.c: a C program built with -mavx (cmd/icount/sites_test.go). The
   emulated CPU does not advertise AVX: its first VEX-encoded instruction
   is refused as a CPU without AVX refuses it (#UD: SIGILL), and nothing
   after it runs. Natively (on a CPU with AVX) it prints 3 and exits 0. */
#include <stdio.h>

__attribute__((noinline)) double mix(double a, double b, double c) { return a * b + c; }

int main(int argc, char **argv) {
	(void)argv;
	double x = mix(argc, 2.5, 0.5);
	printf("%g\n", x);
	return 0;
}
