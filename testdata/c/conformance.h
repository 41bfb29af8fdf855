/* conformance.h: what the system-call conformance programs (fsops.c,
 * fileops2.c, fsmore.c, ids.c, vm.c, procs.c, ../proc/locks.c) share: how
 * they start, in the directory their argument names as the unprivileged
 * user icount's guest is, how they print a result, an errno by its name
 * (errname.h), and a bad pointer. */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errname.h"

/* show prints what a call returned: ok, or the errno's name. */
static void show(const char *what, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: ok\n", what);
}

/* number prints what a call returned: its value, or the errno's name. */
static inline void number(const char *what, long rc)
{
	if (rc < 0)
		printf("%s: %s\n", what, ename(errno));
	else
		printf("%s: %ld\n", what, rc);
}

/* unmapped is a page nothing is mapped at, just now: a bad pointer. */
static inline void *unmapped(void)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(p, 4096);
	return p;
}

/* start moves to the directory argv[1], if given, or else works in its
 * working directory, which must then be empty (it makes and removes files
 * there, and run as root gives the directory to uid 1000: run by hand in
 * a checkout, it would litter it); and, run as root, it becomes uid and
 * gid 1000, as the judge runs the unprivileged user icount's guest is.
 * stdout is line-buffered, so that lines come out in the order the
 * processes print them. */
static void start(int argc, char **argv)
{
	if (argc > 1 && chdir(argv[1]) < 0) {
		perror(argv[1]);
		exit(1);
	}
	DIR *d = argc > 1 ? NULL : opendir(".");
	for (struct dirent *e; d && (e = readdir(d)) != NULL;)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			fprintf(stderr, "%s: run in an empty directory: it makes and removes files there\n", argv[0]);
			exit(2);
		}
	if (d)
		closedir(d);
	if (getuid() == 0) {
		if (chown(".", 1000, 1000) < 0 || setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0) {
			perror("dropping privileges");
			exit(1);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
}
