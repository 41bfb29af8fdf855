/* conformance.h: what the system-call conformance programs (fsops.c,
 * fileops2.c, ../proc/locks.c) share: how they start, in the directory
 * their argument names as the unprivileged user icount's guest is, and
 * how they print a result, an errno by its name (errname.h). */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
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

/* start moves to the directory argv[1] (if given) and, run as root,
 * becomes uid and gid 1000, as the judge runs the unprivileged user
 * icount's guest is; stdout is line-buffered, so that lines come out in
 * the order the processes print them. */
static void start(int argc, char **argv)
{
	if (argc > 1 && chdir(argv[1]) < 0) {
		perror(argv[1]);
		exit(1);
	}
	if (getuid() == 0) {
		if (chown(".", 1000, 1000) < 0 || setgroups(0, NULL) < 0 || setgid(1000) < 0 || setuid(1000) < 0) {
			perror("dropping privileges");
			exit(1);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
}
