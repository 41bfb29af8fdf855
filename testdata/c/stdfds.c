/* The standard descriptors as the program was given them: run with one
 * of 0, 1, 2 closed (cmd/icount/edges_test.go closes it with a shell's
 * `exec N>&-`), it finds that one closed (EBADF) and the others open, and
 * its next open and dup take the lowest free numbers, as under Linux. It
 * prints its report to the file argv[1], opened after the checks, and
 * exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *ename(int e)
{
	switch (e) {
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	case EFAULT: return "EFAULT";
	default: return strerror(e);
	}
}

/* result formats a system call's result: the number, or the errno. */
static const char *result(long r, char *buf, size_t n)
{
	if (r < 0)
		return ename(errno);
	snprintf(buf, n, "%ld", r);
	return buf;
}

int main(int argc, char **argv)
{
	char lines[3][256], b1[32], b2[32], b3[32];
	char c;
	if (argc < 2)
		return 2;
	for (int fd = 0; fd < 3; fd++) {
		errno = 0;
		long getfd = fcntl(fd, F_GETFD);
		const char *g = result(getfd, b1, sizeof b1);
		errno = 0;
		long rd = read(fd, &c, 0);
		const char *r = result(rd, b2, sizeof b2);
		errno = 0;
		long wr = write(fd, &c, 0);
		const char *w = result(wr, b3, sizeof b3);
		snprintf(lines[fd], sizeof lines[fd], "fd %d: F_GETFD %s, read 0 bytes %s, write 0 bytes %s\n", fd, g, r, w);
	}
	int out = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return 3;
	int dupped = dup(out);
	int devnull = open("/dev/null", O_RDONLY);
	FILE *f = fdopen(dupped, "w");
	if (f == NULL)
		return 4;
	for (int fd = 0; fd < 3; fd++)
		fputs(lines[fd], f);
	fprintf(f, "open: %d, dup: %d, open /dev/null: %d\n", out, dupped, devnull);
	errno = 0;
	long w = write(2, "to stderr\n", 10);
	fprintf(f, "write to 2: %s\n", result(w, b1, sizeof b1));
	return fclose(f) == 0 ? 0 : 5;
}
