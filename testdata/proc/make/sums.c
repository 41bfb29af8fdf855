/* Sums the squares of 1..n. */
#include "prog.h"

unsigned long sum_squares(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 1; i <= n; i++)
		s += i * i;
	return s;
}
