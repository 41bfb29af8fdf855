/* conformance.h: what the system-call conformance programs (fsops.c,
 * fileops2.c, ../proc/locks.c) share: how they start, in the directory
 * their argument names as the unprivileged user icount's guest is, and
 * how they print a result, an errno by its name. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define ERRNAME(e) {e, #e}
static const struct {
	int e;
	const char *name;
} errnames[] = {
	ERRNAME(EPERM), ERRNAME(ENOENT), ERRNAME(ESRCH), ERRNAME(EINTR), ERRNAME(EIO), ERRNAME(E2BIG),
	ERRNAME(ENOEXEC), ERRNAME(EBADF), ERRNAME(ECHILD), ERRNAME(EAGAIN), ERRNAME(ENOMEM), ERRNAME(EACCES),
	ERRNAME(EFAULT), ERRNAME(EBUSY), ERRNAME(EEXIST), ERRNAME(EXDEV), ERRNAME(ENODEV), ERRNAME(ENOTDIR),
	ERRNAME(EISDIR), ERRNAME(EINVAL), ERRNAME(EMFILE), ERRNAME(ENOTTY), ERRNAME(EFBIG), ERRNAME(ENOSPC),
	ERRNAME(ESPIPE), ERRNAME(EROFS), ERRNAME(EMLINK), ERRNAME(EPIPE), ERRNAME(ERANGE), ERRNAME(EDEADLK),
	ERRNAME(ENAMETOOLONG), ERRNAME(ENOLCK), ERRNAME(ENOSYS), ERRNAME(ENOTEMPTY), ERRNAME(ELOOP),
	ERRNAME(ENODATA), ERRNAME(EOVERFLOW), ERRNAME(EOPNOTSUPP), ERRNAME(ETIMEDOUT),
};

/* ename is e's name, or "errno N" for one not listed. */
static const char *ename(int e)
{
	for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
		if (errnames[i].e == e)
			return errnames[i].name;
	static char buf[32];
	snprintf(buf, sizeof buf, "errno %d", e);
	return buf;
}

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
