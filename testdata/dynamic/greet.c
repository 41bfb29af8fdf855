/* greet: the shared library of testdata/dynamic/origin.c, found through
 * the program's RUNPATH $ORIGIN/lib. */
#include <stdio.h>

int greet(const char *who) { return printf("hello from libgreet, %s\n", who); }
