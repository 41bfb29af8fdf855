/* System-call numbers Linux has no call for: Linux answers ENOSYS, which
 * libc and runtimes probe new calls by, and reads the number as a 32-bit
 * int (its upper half is ignored). cmd/icount/edges_test.go compares the
 * output natively (or under qemu-aarch64) and under icount. With an
 * argument N the program only makes system call N, with no arguments,
 * and prints its result (the test gives a call icount does not emulate,
 * which must stop the run naming it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A number in a gap of the arch's table, and one Linux keeps in its table
 * with no call behind it (nfsservctl, removed in Linux 3.1). */
#ifdef __x86_64__
#define GAP 400
#define REMOVED 180
#else
#define GAP 300
#define REMOVED 42
#endif

static void call(const char *what, long nr)
{
	errno = 0;
	long r = syscall(nr, 0, 0, 0, 0, 0, 0);
	printf("%s: %ld %s\n", what, r, r < 0 ? strerror(errno) : "ok");
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		call(argv[1], atol(argv[1]));
		return 0;
	}
	call("999", 999);
	call("-1", -1);
	call("gap", GAP);
	call("removed", REMOVED);
	call("1<<31", 1L << 31);
	call("0x7fffffff", 0x7fffffff);
	long pid = syscall((1L << 32) | SYS_getpid);
	printf("getpid with the upper half set: %s\n", pid == getpid() ? "getpid" : "other");
	call("999 with the upper half set", (1L << 32) | 999);
	return 0;
}
