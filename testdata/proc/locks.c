/* File locks (kernel/sys_lock.go): fcntl's POSIX record locks, the
 * open-file-description (OFD) locks and flock(2), in one process and
 * between forked ones, in the directory argv[1] (or the working
 * directory). cmd/icount/locks_test.go compares the output natively (or
 * under qemu-aarch64) and under icount. Every line is a call and its
 * result, "ok" or the errno's name, and what F_GETLK answers (l_pid as
 * self, parent, child or -1); the processes take turns through pipes, so
 * that the output does not depend on scheduling. Run as root, it first
 * becomes uid and gid 1000, which icount's guest is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../c/conformance.h"

#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

static pid_t parent_pid, child_pid;

static const char *tname(int t)
{
	switch (t) {
	case F_RDLCK: return "F_RDLCK";
	case F_WRLCK: return "F_WRLCK";
	case F_UNLCK: return "F_UNLCK";
	}
	return "?";
}

static const char *pidname(pid_t pid)
{
	if (pid == -1)
		return "-1";
	if (pid == getpid())
		return "self";
	if (pid == parent_pid)
		return "parent";
	if (pid == child_pid)
		return "child";
	if (pid == 0)
		return "0";
	return "other";
}

/* lock_of is the struct flock of the given fields, l_pid 0. */
static struct flock lock_of(int type, int whence, long long start, long long len)
{
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = type;
	fl.l_whence = whence;
	fl.l_start = start;
	fl.l_len = len;
	return fl;
}

/* lk makes the lock call cmd with the given fields and prints its result. */
static void lk(const char *what, int fd, int cmd, int type, int whence, long long start, long long len)
{
	struct flock fl = lock_of(type, whence, start, len);
	show(what, fcntl(fd, cmd, &fl));
}

/* getlk asks (F_GETLK or F_OFD_GETLK) for a lock of type on start..len
 * and prints the answer. */
static void getlk(const char *what, int fd, int cmd, int type, long long start, long long len)
{
	struct flock fl = lock_of(type, SEEK_SET, start, len);
	if (fcntl(fd, cmd, &fl) < 0) {
		printf("%s: %s\n", what, ename(errno));
		return;
	}
	if (fl.l_type == F_UNLCK)
		printf("%s: F_UNLCK (start %lld len %lld kept)\n", what, (long long)fl.l_start, (long long)fl.l_len);
	else
		printf("%s: %s whence %d start %lld len %lld pid %s\n", what, tname(fl.l_type), fl.l_whence,
		       (long long)fl.l_start, (long long)fl.l_len, pidname(fl.l_pid));
}

/* dump prints every lock another owner sees on the file, in order: it
 * asks probe (another open file description) with F_OFD_GETLK for a
 * write lock from each end found onwards. */
static void dump(const char *what, int probe)
{
	long long from = 0;
	printf("%s:", what);
	for (int i = 0; i < 16; i++) {
		struct flock fl = lock_of(F_WRLCK, SEEK_SET, from, 0);
		if (fcntl(probe, F_OFD_GETLK, &fl) < 0) {
			printf(" %s", ename(errno));
			break;
		}
		if (fl.l_type == F_UNLCK)
			break;
		printf(" %c[%lld", fl.l_type == F_RDLCK ? 'R' : 'W', (long long)fl.l_start);
		if (fl.l_len == 0) {
			printf("-EOF]%s", pidname(fl.l_pid));
			break;
		}
		printf("-%lld]%s", (long long)(fl.l_start + fl.l_len - 1), pidname(fl.l_pid));
		from = fl.l_start + fl.l_len;
	}
	printf("\n");
}

static int openf(const char *name, int flags)
{
	int fd = open(name, flags | O_CREAT, 0644);
	if (fd < 0) {
		perror(name);
		exit(1);
	}
	return fd;
}

/* The processes take turns: each waits for a byte from the other. */
static int to_child[2], to_parent[2];

static void tell(int fd)
{
	fflush(stdout);
	if (write(fd, "x", 1) != 1)
		exit(2);
}

static void await(int fd)
{
	char c;
	if (read(fd, &c, 1) != 1)
		exit(3);
}

static void errors(void)
{
	int rw = openf("errors", O_RDWR), ro = openf("errors", O_RDONLY), wo = openf("errors", O_WRONLY);
	int path = open("errors", O_PATH);
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	show("F_SETLK bad fd", fcntl(-1, F_SETLK, &fl));
	show("F_SETLK closed fd", fcntl(99, F_SETLK, &fl));
	show("F_SETLK NULL", fcntl(rw, F_SETLK, NULL));
	show("F_GETLK bad pointer", fcntl(rw, F_GETLK, (void *)16));
	show("F_OFD_SETLK bad pointer", fcntl(rw, F_OFD_SETLK, (void *)16));
	lk("F_SETLK O_PATH", path, F_SETLK, F_RDLCK, SEEK_SET, 0, 0);
	lk("F_GETLK O_PATH", path, F_GETLK, F_RDLCK, SEEK_SET, 0, 0);
	lk("F_SETLK type 7", rw, F_SETLK, 7, SEEK_SET, 0, 0);
	lk("F_SETLK whence 3", rw, F_SETLK, F_RDLCK, 3, 0, 0);
	lk("F_SETLK whence 3 on O_RDONLY write lock", ro, F_SETLK, F_WRLCK, 3, 0, 0);
	lk("F_SETLK start -1", rw, F_SETLK, F_RDLCK, SEEK_SET, -1, 1);
	lk("F_SETLK start 5 len -6", rw, F_SETLK, F_RDLCK, SEEK_SET, 5, -6);
	lk("F_SETLK start 5 len -5", rw, F_SETLK, F_RDLCK, SEEK_SET, 5, -5);
	lk("F_SETLK unlock", rw, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	lk("F_SETLK start max len 2", rw, F_SETLK, F_RDLCK, SEEK_SET, 0x7fffffffffffffffLL, 2);
	lk("F_SETLK start max len 1", rw, F_SETLK, F_RDLCK, SEEK_SET, 0x7fffffffffffffffLL, 1);
	lk("F_SETLK unlock max", rw, F_SETLK, F_UNLCK, SEEK_SET, 0x7fffffffffffffffLL, 1);
	if (write(rw, "0123456789", 10) != 10)
		exit(4);
	lk("F_SETLK SEEK_END start max", rw, F_SETLK, F_RDLCK, SEEK_END, 0x7fffffffffffffffLL, 0);
	lk("F_SETLK SEEK_END start -11", rw, F_SETLK, F_RDLCK, SEEK_END, -11, 1);
	lk("F_SETLK write lock on O_RDONLY", ro, F_SETLK, F_WRLCK, SEEK_SET, 0, 0);
	lk("F_SETLK read lock on O_WRONLY", wo, F_SETLK, F_RDLCK, SEEK_SET, 0, 0);
	lk("F_SETLK unlock on O_RDONLY", ro, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	lk("F_GETLK write lock on O_RDONLY", ro, F_GETLK, F_WRLCK, SEEK_SET, 0, 0);
	getlk("F_GETLK F_UNLCK", rw, F_GETLK, F_UNLCK, 0, 0);
	getlk("F_GETLK type 9", rw, F_GETLK, 9, 0, 0);
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_RDLCK;
	fl.l_pid = 1;
	show("F_OFD_SETLK l_pid 1", fcntl(rw, F_OFD_SETLK, &fl));
	show("F_OFD_GETLK l_pid 1", fcntl(rw, F_OFD_GETLK, &fl));
	show("F_SETLK l_pid 1", fcntl(rw, F_SETLK, &fl));
	fl.l_type = F_WRLCK;
	fl.l_pid = 1;
	show("F_OFD_SETLK l_pid 1 write lock on O_RDONLY", fcntl(ro, F_OFD_SETLK, &fl));
	fl.l_type = F_UNLCK;
	show("F_SETLK unlock all", fcntl(rw, F_SETLK, &fl));
	show("flock bad fd", flock(-1, LOCK_SH));
	show("flock bad op, bad fd", flock(-1, 3));
	show("flock 0", flock(rw, 0));
	show("flock LOCK_NB", flock(rw, LOCK_NB));
	show("flock LOCK_SH|LOCK_EX", flock(rw, LOCK_SH | LOCK_EX));
	show("flock LOCK_EX|16", flock(rw, LOCK_EX | 16));
	show("flock LOCK_MAND, bad fd", flock(-1, 32 | LOCK_EX));
	show("flock O_PATH", flock(path, LOCK_SH));
	show("flock O_PATH LOCK_UN", flock(path, LOCK_UN));
	show("flock LOCK_UN unlocked", flock(rw, LOCK_UN));
	show("flock LOCK_EX on O_RDONLY", flock(ro, LOCK_EX));
	show("flock LOCK_UN|LOCK_NB", flock(ro, LOCK_UN | LOCK_NB));
	close(rw), close(ro), close(wo), close(path);
}

/* ranges: one process's POSIX locks split, merge and end as Linux's do. */
static void ranges(void)
{
	int fd = openf("ranges", O_RDWR), probe = openf("ranges", O_RDWR);
	lk("write lock 0..9", fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
	dump("  locks", probe);
	lk("read lock 3..4", fd, F_SETLK, F_RDLCK, SEEK_SET, 3, 2);
	dump("  locks", probe);
	getlk("  read probe from 3", probe, F_OFD_GETLK, F_RDLCK, 3, 0);
	lk("read lock 20..24", fd, F_SETLK, F_RDLCK, SEEK_SET, 20, 5);
	lk("read lock 25..29", fd, F_SETLK, F_RDLCK, SEEK_SET, 25, 5);
	dump("  locks", probe);
	lk("unlock 22..23", fd, F_SETLK, F_UNLCK, SEEK_SET, 22, 2);
	dump("  locks", probe);
	lk("write lock 2..21", fd, F_SETLK, F_WRLCK, SEEK_SET, 2, 20);
	dump("  locks", probe);
	lk("read lock 50 len -5", fd, F_SETLK, F_RDLCK, SEEK_SET, 50, -5);
	dump("  locks", probe);
	if (lseek(fd, 60, SEEK_SET) != 60)
		exit(4);
	lk("write lock SEEK_CUR -2 len 4", fd, F_SETLK, F_WRLCK, SEEK_CUR, -2, 4);
	if (write(fd, "0123456789", 10) != 10)
		exit(4);
	lk("read lock SEEK_END 30 len 0", fd, F_SETLK, F_RDLCK, SEEK_END, 30, 0);
	dump("  locks", probe);
	lk("write lock 99 len 0", fd, F_SETLK, F_WRLCK, SEEK_SET, 99, 0);
	dump("  locks", probe);
	getlk("  F_GETLK of the owner", fd, F_GETLK, F_WRLCK, 0, 0);
	lk("unlock 0..47", fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 48);
	dump("  locks", probe);
	int other = openf("ranges", O_RDONLY);
	lk("read lock through another descriptor", other, F_SETLK, F_RDLCK, SEEK_SET, 0, 1);
	dump("  locks", probe);
	if (dup2(fd, fd) != fd)
		exit(4);
	dump("  after dup2 of the descriptor onto itself", probe);
	int dup_fd = dup(fd);
	if (dup2(fd, dup_fd) != dup_fd)
		exit(4);
	dump("  after dup2 onto its dup", probe);
	lk("read lock 0..0 anew", fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 1);
	close(dup_fd);
	dump("  after closing a dup", probe);
	lk("read lock 0..0 again", fd, F_SETLK, F_RDLCK, SEEK_SET, 0, 1);
	close(other);
	dump("  after closing another descriptor", probe);
	lk("OFD write lock 10..19", probe, F_OFD_SETLK, F_WRLCK, SEEK_SET, 10, 10);
	lk("POSIX write lock 15 over it", fd, F_SETLK, F_WRLCK, SEEK_SET, 15, 1);
	getlk("  F_GETLK sees the OFD lock", fd, F_GETLK, F_RDLCK, 0, 0);
	lk("OFD unlock", probe, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	lk("POSIX write lock 15 now", fd, F_SETLK, F_WRLCK, SEEK_SET, 15, 1);
	lk("OFD read lock over it", probe, F_OFD_SETLK, F_RDLCK, SEEK_SET, 0, 0);
	getlk("  F_OFD_GETLK sees the POSIX lock", probe, F_OFD_GETLK, F_RDLCK, 0, 0);
	close(fd);
	dump("  after closing", probe);
	close(probe);
}

/* ofd: OFD locks belong to the open file description. */
static void ofd(void)
{
	int fd = openf("ofd", O_RDWR), probe = openf("ofd", O_RDWR);
	lk("OFD write lock 0..4", fd, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 5);
	lk("OFD read lock 5..9", fd, F_OFD_SETLK, F_RDLCK, SEEK_SET, 5, 5);
	lk("OFD read lock 10..14 (merges)", fd, F_OFD_SETLK, F_RDLCK, SEEK_SET, 10, 5);
	dump("  locks", probe);
	lk("OFD write lock on another description", probe, F_OFD_SETLK, F_WRLCK, SEEK_SET, 7, 1);
	lk("POSIX read lock 0 in the same process", probe, F_SETLK, F_RDLCK, SEEK_SET, 0, 1);
	lk("POSIX read lock 7", probe, F_SETLK, F_RDLCK, SEEK_SET, 7, 1);
	lk("POSIX unlock", probe, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	int d = dup(fd);
	close(fd);
	dump("  after closing the original, the dup open", probe);
	lk("OFD write lock through the dup", d, F_OFD_SETLK, F_WRLCK, SEEK_SET, 0, 15);
	dump("  locks", probe);
	close(d);
	dump("  after closing the dup", probe);
	close(probe);
}

/* flocks: flock(2) locks of one process's descriptions. */
static void flocks(void)
{
	int a = openf("flock", O_RDWR), b = openf("flock", O_RDONLY), c = openf("flock", O_WRONLY);
	int a2 = dup(a);
	show("a LOCK_EX", flock(a, LOCK_EX));
	show("a LOCK_EX again", flock(a, LOCK_EX));
	show("b LOCK_SH|LOCK_NB", flock(b, LOCK_SH | LOCK_NB));
	show("b LOCK_EX|LOCK_NB", flock(b, LOCK_EX | LOCK_NB));
	show("dup of a LOCK_SH (converts)", flock(a2, LOCK_SH));
	show("b LOCK_SH|LOCK_NB", flock(b, LOCK_SH | LOCK_NB));
	show("a LOCK_EX|LOCK_NB (drops its lock first)", flock(a, LOCK_EX | LOCK_NB));
	show("c LOCK_EX|LOCK_NB", flock(c, LOCK_EX | LOCK_NB));
	show("b LOCK_UN", flock(b, LOCK_UN));
	show("c LOCK_EX|LOCK_NB", flock(c, LOCK_EX | LOCK_NB));
	lk("fcntl write lock beside it", a, F_SETLK, F_WRLCK, SEEK_SET, 0, 0);
	lk("OFD write lock beside it", b, F_OFD_SETLK, F_RDLCK, SEEK_SET, 0, 0);
	lk("OFD unlock", b, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	lk("fcntl unlock", a, F_SETLK, F_UNLCK, SEEK_SET, 0, 0);
	int c2 = dup(c);
	close(c);
	show("a LOCK_SH|LOCK_NB (c's dup holds it)", flock(a, LOCK_SH | LOCK_NB));
	close(c2);
	show("a LOCK_SH|LOCK_NB (c closed)", flock(a, LOCK_SH | LOCK_NB));
	close(a), close(a2), close(b);
}

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) { (void)sig; alarms++; }

/* between: locks between a parent and its child. The descriptions the
 * parent opens to look (dump) stay open: closing one would end its POSIX
 * locks on the file. */
static void between(void)
{
	int fd = openf("between", O_RDWR), probe = openf("between", O_RDWR);
	int fl = openf("between.flock", O_RDWR);
	lk("parent: write lock 0..9", fd, F_SETLK, F_WRLCK, SEEK_SET, 0, 10);
	lk("parent: OFD read lock 20..29", probe, F_OFD_SETLK, F_RDLCK, SEEK_SET, 20, 10);
	show("parent: flock LOCK_EX", flock(fl, LOCK_EX));
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		exit(5);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_pid = getpid();
		int own = openf("between", O_RDWR), ownfl = openf("between.flock", O_RDWR);
		getlk("child: F_GETLK write 0..", fd, F_GETLK, F_WRLCK, 0, 0);
		getlk("child: F_GETLK read 10..", fd, F_GETLK, F_RDLCK, 10, 0);
		getlk("child: F_OFD_GETLK on its own description", own, F_OFD_GETLK, F_WRLCK, 10, 0);
		getlk("child: F_OFD_GETLK on the inherited one", probe, F_OFD_GETLK, F_WRLCK, 10, 0);
		lk("child: read lock 5", fd, F_SETLK, F_RDLCK, SEEK_SET, 5, 1);
		lk("child: unlock 0..9 (not its lock)", fd, F_SETLK, F_UNLCK, SEEK_SET, 0, 10);
		lk("child: write lock 10..19", fd, F_SETLK, F_WRLCK, SEEK_SET, 10, 10);
		lk("child: write lock 20 (the OFD lock's)", own, F_SETLK, F_WRLCK, SEEK_SET, 20, 1);
		lk("child: OFD write lock 20 on the inherited description", probe, F_OFD_SETLK, F_WRLCK, SEEK_SET, 20, 1);
		show("child: flock LOCK_EX|LOCK_NB, inherited", flock(fl, LOCK_EX | LOCK_NB));
		show("child: flock LOCK_SH|LOCK_NB, its own", flock(ownfl, LOCK_SH | LOCK_NB));
		tell(to_parent[1]);

		/* A wait the parent ends. */
		await(to_child[0]);
		printf("child: waits for 0..9\n");
		tell(to_parent[1]);
		lk("child: F_SETLKW write 0..9", fd, F_SETLKW, F_WRLCK, SEEK_SET, 0, 10);
		tell(to_parent[1]);

		/* A cycle: each waits for the other's lock; one gets EDEADLK. */
		await(to_child[0]);
		struct flock w = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 41, .l_len = 1};
		if (fcntl(fd, F_SETLK, &w) < 0)
			exit(6);
		tell(to_parent[1]);
		w.l_start = 40;
		int r = fcntl(fd, F_SETLKW, &w);
		char res = r == 0 ? 'o' : errno == EDEADLK ? 'd' : 'e';
		if (res == 'd') {
			w.l_type = F_UNLCK, w.l_start = 41;
			fcntl(fd, F_SETLK, &w);
		}
		if (write(to_parent[1], &res, 1) != 1)
			exit(2);
		await(to_child[0]);
		lk("child: unlock 40..41", fd, F_SETLK, F_UNLCK, SEEK_SET, 40, 2);

		/* Waits a signal without SA_RESTART ends: EINTR. */
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_alarm;
		sigaction(SIGALRM, &sa, NULL);
		struct itimerval it = {.it_value = {.tv_usec = 20000}};
		setitimer(ITIMER_REAL, &it, NULL);
		lk("child: F_SETLKW 50 until SIGALRM", fd, F_SETLKW, F_WRLCK, SEEK_SET, 50, 1);
		printf("child: alarms %d\n", (int)alarms);
		setitimer(ITIMER_REAL, &it, NULL);
		show("child: flock LOCK_EX until SIGALRM", flock(ownfl, LOCK_EX));
		printf("child: alarms %d\n", (int)alarms);

		/* A flock wait the parent ends. */
		printf("child: waits for the flock\n");
		tell(to_parent[1]);
		show("child: flock LOCK_EX", flock(ownfl, LOCK_EX));
		lk("child: write lock 60 (held at exit)", fd, F_SETLK, F_WRLCK, SEEK_SET, 60, 1);
		tell(to_parent[1]);
		await(to_child[0]);
		_exit(0);
	}
	child_pid = pid;
	await(to_parent[0]);
	getlk("parent: F_GETLK write 10..", fd, F_GETLK, F_WRLCK, 10, 0);
	getlk("parent: F_GETLK read 0..", fd, F_GETLK, F_RDLCK, 0, 0);
	dump("parent: what another description sees", openf("between", O_RDONLY));
	tell(to_child[1]);
	await(to_parent[0]);
	struct flock un = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
	int r = fcntl(fd, F_SETLK, &un);
	await(to_parent[0]); /* the child's wait ended: it printed first */
	show("parent: unlock 0..9", r);
	getlk("parent: F_GETLK write 0..", fd, F_GETLK, F_WRLCK, 0, 0);

	lk("parent: write lock 40", fd, F_SETLK, F_WRLCK, SEEK_SET, 40, 1);
	lk("parent: write lock 50", fd, F_SETLK, F_WRLCK, SEEK_SET, 50, 1);
	tell(to_child[1]);
	await(to_parent[0]);
	struct flock w = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 41, .l_len = 1};
	r = fcntl(fd, F_SETLKW, &w);
	char mine = r == 0 ? 'o' : errno == EDEADLK ? 'd' : 'e', theirs;
	if (mine == 'd') {
		w.l_type = F_UNLCK, w.l_start = 40;
		fcntl(fd, F_SETLK, &w);
	}
	if (read(to_parent[0], &theirs, 1) != 1)
		exit(3);
	printf("parent: a cycle of waits: %s\n", mine != theirs && (mine == 'd' || theirs == 'd') && (mine == 'o' || theirs == 'o') ? "one EDEADLK, the other ok" : "wrong");
	lk("parent: unlock 40..41", fd, F_SETLK, F_UNLCK, SEEK_SET, 40, 2);
	tell(to_child[1]);

	await(to_parent[0]);
	r = flock(fl, LOCK_UN);
	await(to_parent[0]);
	show("parent: flock LOCK_UN", r);
	getlk("parent: F_GETLK 60, the child's", fd, F_GETLK, F_WRLCK, 60, 1);
	show("parent: flock LOCK_SH|LOCK_NB", flock(fl, LOCK_SH | LOCK_NB));
	tell(to_child[1]);
	int status;
	waitpid(pid, &status, 0);
	printf("parent: child exit %d\n", WEXITSTATUS(status));
	getlk("parent: F_GETLK 60 after the child's exit", fd, F_GETLK, F_WRLCK, 60, 1);
	show("parent: flock LOCK_EX|LOCK_NB", flock(fl, LOCK_EX | LOCK_NB));
	dump("parent: what another description sees", openf("between", O_RDONLY));
	close(fd), close(probe), close(fl);
}

int main(int argc, char **argv)
{
	start(argc, argv);
	parent_pid = getpid();
	errors();
	ranges();
	ofd();
	flocks();
	between();
	printf("done\n");
	return 0;
}
