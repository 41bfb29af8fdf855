/* The child program of spawn.c (cmd/icount/process_test.go): one small
 * static program, built for both arches, that the parent runs in several
 * ways. What it prints never depends on its pid or the host.
 *
 *   child echo WORDS...      prints "child (ARCH): WORDS"
 *   child upper              copies stdin to stdout in upper case
 *   child fd NAME FD ...     prints whether each descriptor FD is open
 *   child exit N             exits with status N
 *   child segv               dies of SIGSEGV
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH "x86-64"
#elif defined(__aarch64__)
#define ARCH "aarch64"
#else
#error "child.c: unknown arch"
#endif

static int *volatile nowhere; /* a null pointer the compiler cannot see */

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: child echo|upper|fd|exit|segv ...\n");
		return 2;
	}
	const char *mode = argv[1];
	if (strcmp(mode, "echo") == 0) {
		printf("child (%s):", ARCH);
		for (int i = 2; i < argc; i++)
			printf(" %s", argv[i]);
		printf("\n");
		return 0;
	}
	if (strcmp(mode, "upper") == 0) {
		int c;
		while ((c = getchar()) != EOF)
			putchar(toupper(c));
		return 0;
	}
	if (strcmp(mode, "fd") == 0) {
		for (int i = 2; i + 1 < argc; i += 2) {
			int fd = atoi(argv[i + 1]);
			printf("child: %s is %s\n", argv[i], fcntl(fd, F_GETFD) == -1 ? "closed" : "open");
		}
		return 0;
	}
	if (strcmp(mode, "exit") == 0 && argc == 3)
		return atoi(argv[2]);
	if (strcmp(mode, "segv") == 0) {
		/* No core file from the judge's run (the result is ignored where
		 * resource limits are not emulated). */
		struct rlimit none = {0, 0};
		setrlimit(RLIMIT_CORE, &none);
		*nowhere = 1;
		return 1;
	}
	fprintf(stderr, "child: bad arguments\n");
	return 2;
}
