/* The credential and session calls (kernel/ids.go, sys_pgrp.go): the ids
 * of the unprivileged user icount's guest is, the set*id calls that keep
 * them and those that would change them, bad pointers, and sessions and
 * process groups made by a forked child, resource limits set and read
 * back. Every line is a call and its
 * result, a value the guest shares with uid 1000 natively, a relation
 * ("== pid") or the errno's name; nothing printed depends on the host.
 * cmd/icount/syscalls_test.go compares it natively and under icount. Run
 * as root, it first becomes uid and gid 1000, which icount's guest is.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/fsuid.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "conformance.h"

static void *bad; /* an unmapped page */

static void ids(void)
{
	number("getuid", getuid());
	number("geteuid", geteuid());
	number("getgid", getgid());
	number("getegid", getegid());
	uid_t r, e, s;
	gid_t gr, ge, gs;
	show("getresuid", syscall(SYS_getresuid, &r, &e, &s));
	printf("  %u %u %u\n", r, e, s);
	show("getresgid", syscall(SYS_getresgid, &gr, &ge, &gs));
	printf("  %u %u %u\n", gr, ge, gs);
	show("getresuid bad pointer", syscall(SYS_getresuid, &r, bad, &s));
	show("getresuid NULL", syscall(SYS_getresuid, NULL, &e, &s));
	show("getresgid bad pointer", syscall(SYS_getresgid, &gr, &ge, bad));
	show("getresgid NULL", syscall(SYS_getresgid, NULL, NULL, NULL));

	show("setuid own", syscall(SYS_setuid, 1000));
	show("setuid 0", syscall(SYS_setuid, 0));
	show("setuid -1", syscall(SYS_setuid, -1));
	show("setgid own", syscall(SYS_setgid, 1000));
	show("setgid 0", syscall(SYS_setgid, 0));
	show("setgid -1", syscall(SYS_setgid, -1));
	show("setreuid keep", syscall(SYS_setreuid, -1, -1));
	show("setreuid own", syscall(SYS_setreuid, 1000, 1000));
	show("setreuid 0", syscall(SYS_setreuid, 0, -1));
	show("setreuid -1 0", syscall(SYS_setreuid, -1, 0));
	show("setregid keep", syscall(SYS_setregid, -1, -1));
	show("setregid own", syscall(SYS_setregid, 1000, 1000));
	show("setregid 0", syscall(SYS_setregid, 0, -1));
	show("setresuid keep", syscall(SYS_setresuid, -1, -1, -1));
	show("setresuid own", syscall(SYS_setresuid, 1000, 1000, 1000));
	show("setresuid real 0", syscall(SYS_setresuid, 0, -1, -1));
	show("setresuid effective 0", syscall(SYS_setresuid, -1, 0, -1));
	show("setresuid saved 0", syscall(SYS_setresuid, -1, -1, 0));
	show("setresgid keep", syscall(SYS_setresgid, -1, -1, -1));
	show("setresgid own", syscall(SYS_setresgid, 1000, 1000, 1000));
	show("setresgid real 0", syscall(SYS_setresgid, 0, -1, -1));
	show("setresgid saved 0", syscall(SYS_setresgid, -1, -1, 0));
	number("setfsuid own", syscall(SYS_setfsuid, 1000));
	number("setfsuid 0 (refused: the old one)", syscall(SYS_setfsuid, 0));
	number("setfsuid -1 (a query)", syscall(SYS_setfsuid, -1));
	number("setfsgid own", syscall(SYS_setfsgid, 1000));
	number("setfsgid 0", syscall(SYS_setfsgid, 0));
	show("getresuid after", syscall(SYS_getresuid, &r, &e, &s));
	printf("  %u %u %u\n", r, e, s);

	gid_t list[4];
	number("getgroups count", syscall(SYS_getgroups, 0, NULL));
	number("getgroups 4", syscall(SYS_getgroups, 4, list));
	number("getgroups -1", syscall(SYS_getgroups, -1, list));
	number("getgroups bad pointer", syscall(SYS_getgroups, 4, bad));
	show("setgroups none", syscall(SYS_setgroups, 0, NULL));
	show("setgroups -1", syscall(SYS_setgroups, -1, list));
}

/* sessions has a forked child, never a group leader, make a session of
 * its own, and both look at it. */
static void sessions(void)
{
	pid_t me = getpid();
	printf("getpgid 0 == getpgrp: %d\n", syscall(SYS_getpgid, 0) == getpgrp());
	printf("getpgid self == getpgrp: %d\n", syscall(SYS_getpgid, me) == getpgrp());
	show("getpgid -1", syscall(SYS_getpgid, -1));
	show("getpgid no process", syscall(SYS_getpgid, 0x3fffffff));
	printf("getsid 0 == getsid self: %d\n", syscall(SYS_getsid, 0) == syscall(SYS_getsid, me));
	show("getsid -1", syscall(SYS_getsid, -1));
	show("getsid no process", syscall(SYS_getsid, 0x3fffffff));
	show("setpgid no process", syscall(SYS_setpgid, 0x3fffffff, 0));
	show("setpgid -1", syscall(SYS_setpgid, 0, -1));

	int ready[2], done[2];
	if (pipe(ready) < 0 || pipe(done) < 0) {
		perror("pipe");
		exit(1);
	}
	pid_t parent_sid = syscall(SYS_getsid, 0), parent_pgrp = getpgrp();
	pid_t child = fork();
	if (child == 0) {
		pid_t self = getpid();
		close(done[1]);
		printf("child: getppid == parent: %d\n", getppid() == me);
		printf("child: getpgid == parent's group: %d\n", syscall(SYS_getpgid, 0) == parent_pgrp);
		printf("child: getsid == parent's session: %d\n", syscall(SYS_getsid, 0) == parent_sid);
		long sid = syscall(SYS_setsid);
		printf("child: setsid == pid: %d\n", sid == self);
		printf("child: getsid == pid: %d\n", syscall(SYS_getsid, 0) == self);
		printf("child: getpgrp == pid: %d\n", getpgrp() == self);
		show("child: setsid again", syscall(SYS_setsid));
		show("child: setpgid 0 0 as session leader", syscall(SYS_setpgid, 0, 0));
		show("child: setpgid into the parent's group", syscall(SYS_setpgid, 0, parent_pgrp));
		printf("child: getsid of the parent == its session: %d\n", syscall(SYS_getsid, me) == parent_sid);
		char c = 1;
		if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	char c;
	if (read(ready[0], &c, 1) != 1) {
		perror("read");
		exit(1);
	}
	printf("parent: getsid of the child == child: %d\n", syscall(SYS_getsid, child) == child);
	printf("parent: getpgid of the child == child: %d\n", syscall(SYS_getpgid, child) == child);
	show("parent: setpgid of a child in another session", syscall(SYS_setpgid, child, child));
	close(done[1]);
	int status;
	waitpid(child, &status, 0);
	printf("child exit: %d\n", WEXITSTATUS(status));
	show("getsid of the reaped child", syscall(SYS_getsid, child));
	pid_t second = fork();
	if (second == 0) {
		/* A child may move into a group of its own. */
		show("second child: setpgid 0 0", syscall(SYS_setpgid, 0, 0));
		printf("second child: getpgrp == pid: %d\n", getpgrp() == getpid());
		_exit(0);
	}
	waitpid(second, &status, 0);
	show("setpgid of the reaped child", syscall(SYS_setpgid, second, second));
}

/* readlimit prints resource's limits as getrlimit and /proc/self/limits
 * give them, relative to lowered: whether each is what was set. */
static void readlimit(const char *what, int resource, rlim_t cur, rlim_t max, const char *row)
{
	struct rlimit rl;
	int rc = getrlimit(resource, &rl);
	printf("%s: getrlimit %s, cur set %d, max set %d", what, rc < 0 ? ename(errno) : "ok", rl.rlim_cur == cur,
	       rl.rlim_max == max);
	FILE *f = fopen("/proc/self/limits", "r");
	char line[256], want[128];
	snprintf(want, sizeof want, "%-25s %-20llu %-20llu", row, (unsigned long long)cur, (unsigned long long)max);
	int found = 0;
	while (f && fgets(line, sizeof line, f))
		found |= strncmp(line, want, strlen(want)) == 0;
	if (f)
		fclose(f);
	printf(", /proc/self/limits shows them %d\n", found);
}

/* limits: what setrlimit and prlimit64 set is read back, by the process
 * and its child; a hard limit raised is EPERM. */
static void limits(void)
{
	struct rlimit rl = {100, 200}, old;
	show("setrlimit NOFILE 100 200", setrlimit(RLIMIT_NOFILE, &rl));
	readlimit("NOFILE after setrlimit", RLIMIT_NOFILE, 100, 200, "Max open files");
	rl.rlim_max = 300;
	show("setrlimit NOFILE max raised to 300", setrlimit(RLIMIT_NOFILE, &rl));
	/* The soft limit bounds the descriptors. */
	int last = -1, fd;
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		last = fd;
	printf("open until it fails: %s, the last descriptor is 99: %d\n", ename(errno), last == 99);
	show("dup2 0 to 150", dup2(0, 150));
	show("dup2 0 to 99", dup2(0, 99));
	show("F_DUPFD 100", fcntl(0, F_DUPFD, 100));
	show("F_DUPFD -1", fcntl(0, F_DUPFD, -1));
	for (fd = 3; fd <= last; fd++)
		close(fd);
	show("F_DUPFD 99", fcntl(0, F_DUPFD, 99));
	close(99);
	struct pollfd pfd[101];
	memset(pfd, 0, sizeof pfd);
	for (int i = 0; i < 101; i++)
		pfd[i].fd = -1;
	show("poll 100 descriptors", poll(pfd, 100, 0));
	show("poll 101 descriptors", poll(pfd, 101, 0));
	rl = (struct rlimit){0, 0};
	show("prlimit64 self CORE 0 0", syscall(SYS_prlimit64, getpid(), RLIMIT_CORE, &rl, &old));
	readlimit("CORE after prlimit64", RLIMIT_CORE, 0, 0, "Max core file size");
	struct rlimit back;
	show("prlimit64 CORE old", syscall(SYS_prlimit64, 0, RLIMIT_CORE, NULL, &back));
	printf("prlimit64 CORE old is what was set: %d\n", back.rlim_cur == 0 && back.rlim_max == 0);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		readlimit("child: NOFILE", RLIMIT_NOFILE, 100, 200, "Max open files");
		rl = (struct rlimit){50, 200};
		show("child: setrlimit NOFILE 50 200", setrlimit(RLIMIT_NOFILE, &rl));
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	readlimit("parent after the child's", RLIMIT_NOFILE, 100, 200, "Max open files");
}

int main(int argc, char **argv)
{
	start(argc, argv);
	bad = unmapped();
	ids();
	sessions();
	limits();
	printf("done\n");
	return 0;
}
