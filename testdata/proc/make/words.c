/* Counts the words of a string. */
#include <ctype.h>
#include "prog.h"

size_t count_words(const char *s)
{
	size_t n = 0;
	int in = 0;
	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			in = 0;
		else if (!in) {
			in = 1;
			n++;
		}
	}
	return n;
}
