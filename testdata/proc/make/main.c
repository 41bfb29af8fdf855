/* The program make builds: prints a word count and a sum. */
#include <stdio.h>
#include "prog.h"

int main(void)
{
	printf("%zu words, sum of squares %lu\n", count_words("the quick brown fox jumps"), sum_squares(100));
	return 0;
}
