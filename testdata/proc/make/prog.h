/* What the three files of the program share. */
#ifndef PROG_H
#define PROG_H
#include <stddef.h>

size_t count_words(const char *s);
unsigned long sum_squares(unsigned long n);
#endif
