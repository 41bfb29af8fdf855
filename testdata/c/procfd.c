/* /proc/self/fd lists the process's own descriptors (kernel/procfd.go):
 * through readdir and through getdents64 in small pieces, after a close
 * and a rewind, in a forked child, with the errors Linux gives; and
 * /proc/self/task its threads, with a second one and after it ends; and
 * /proc/PID, /proc/PID/fd and /proc/PID/exe by the pid, its own and its
 * parent's from a child. Every
 * line is compared with the native run's (cmd/icount/procfd_test.go). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "errname.h"

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* list prints the descriptors d lists, in order, from its start. */
static void list(const char *what, DIR *d)
{
	int fds[256], n = 0, dots = 0;
	struct dirent *e;
	rewinddir(d);
	while ((e = readdir(d)) != NULL && n < 256) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
			dots += e->d_type == DT_DIR;
			continue;
		}
		if (e->d_type != DT_LNK)
			printf("%s: %s is not a link (type %d)\n", what, e->d_name, e->d_type);
		fds[n++] = atoi(e->d_name);
	}
	qsort(fds, n, sizeof fds[0], cmp);
	printf("%s: %d dot directories, descriptors", what, dots);
	for (int i = 0; i < n; i++)
		printf(" %d", fds[i]);
	printf("\n");
}

static int ready[2], quit[2];
static pid_t thread_tid;

/* waiter tells its thread id, then waits until told to end. */
static void *waiter(void *arg)
{
	char c;
	(void)arg;
	thread_tid = (pid_t)syscall(SYS_gettid);
	write(ready[1], "t", 1);
	read(quit[0], &c, 1);
	return NULL;
}

/* tasks prints how many threads /proc/self/task lists, and whether the
 * process's own id and the second thread's are among them. With settle,
 * it first waits (up to 2 s) until no more than settle are listed: Linux
 * takes an ended thread out of the list after pthread_join returns, once
 * the thread is released, and a busy machine makes that late. */
static void tasks(const char *what, int settle)
{
	int n, self, other;
	for (int tries = 0;; tries++) {
		DIR *d = opendir("/proc/self/task");
		n = 0, self = 0, other = 0;
		for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
			if (e->d_name[0] == '.')
				continue;
			n++;
			self += atoi(e->d_name) == getpid() && e->d_type == DT_DIR;
			other += thread_tid && atoi(e->d_name) == thread_tid;
		}
		if (d)
			closedir(d);
		if (!settle || n <= settle || tries == 2000)
			break;
		usleep(1000);
	}
	printf("%s: %d threads, the process %d, the second thread %d\n", what, n, self, other);
}

/* by_pid stats /proc/PID and /proc/PID/fd by the number and reads the
 * name of /proc/PID/exe (its last part: the directory is the host's). */
static void by_pid(const char *who, int pid)
{
	char path[64], link[256] = "";
	struct stat st;
	snprintf(path, sizeof path, "/proc/%d", pid);
	const char *dir = err(stat(path, &st));
	printf("%s: stat /proc/PID %s, directory %d", who, dir, S_ISDIR(st.st_mode));
	snprintf(path, sizeof path, "/proc/%d/fd", pid);
	const char *fd = err(stat(path, &st));
	printf(", /proc/PID/fd %s, directory %d", fd, S_ISDIR(st.st_mode));
	snprintf(path, sizeof path, "/proc/%d/exe", pid);
	ssize_t n = readlink(path, link, sizeof link - 1);
	link[n > 0 ? n : 0] = 0;
	const char *base = strrchr(link, '/');
	printf(", exe %s\n", n < 0 ? ename(errno) : base ? base + 1 : link);
}

int main(void)
{
	/* Only the standard descriptors, whatever the judge inherited. */
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	int p[2];
	if (pipe(p) != 0 || dup2(p[0], 9) != 9)
		return 1;
	int null = open("/dev/null", O_RDONLY);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 2;
	list("opened", d);
	close(9);
	list("after closing 9", d);

	/* The directory itself: a directory, and its link names the process. */
	struct stat st;
	const char *stat_result = err(fstat(dirfd(d), &st));
	printf("fstat: %s, directory %d\n", stat_result, S_ISDIR(st.st_mode));
	char link[64], want[64], got[64] = "";
	snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd(d));
	snprintf(want, sizeof want, "/proc/%d/fd", getpid());
	ssize_t n = readlink(link, got, sizeof got - 1);
	got[n > 0 ? n : 0] = 0;
	printf("readlink of its descriptor: %s\n", strcmp(got, want) == 0 ? "/proc/PID/fd" : got);

	/* getdents64 in pieces of 64 bytes, as a caller with a small buffer. */
	int fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY);
	char buf[64];
	int entries = 0, calls = 0;
	long r;
	while ((r = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		calls++;
		for (long off = 0; off < r;) {
			unsigned short reclen = *(unsigned short *)(buf + off + 16);
			entries++;
			off += reclen;
		}
	}
	printf("getdents64 by 64 bytes: %d entries in %d calls, last %s\n", entries, calls, err(r));
	printf("lseek to 0: %s\n", err(lseek(fd, 0, SEEK_SET)));
	printf("getdents64 into 8 bytes: %s\n", err(syscall(SYS_getdents64, fd, buf, 8)));
	printf("lseek to the end: %ld\n", (long)lseek(fd, 0, SEEK_END));
	printf("lseek by 2: %ld\n", (long)lseek(fd, 2, SEEK_CUR));
	printf("lseek by -5: %s\n", err(lseek(fd, -5, SEEK_CUR)));
	r = syscall(SYS_getdents64, fd, buf, sizeof buf);
	printf("getdents64 after it: %s, first %s\n", err(r), r > 0 ? buf + 19 : "none");
	close(fd);
	printf("open for writing: %s\n", err(open("/proc/self/fd", O_WRONLY)));
	printf("open with O_RDWR|O_DIRECTORY: %s\n", err(open("/proc/self/fd", O_RDWR | O_DIRECTORY)));

	/* A child sees its own descriptors. */
	fflush(stdout);
	by_pid("itself", getpid());
	int parent = getpid();
	fflush(stdout); /* the child prints only its own lines */
	pid_t pid = fork();
	if (pid == 0) {
		close(null);
		DIR *c = opendir("/proc/self/fd");
		list("child", c);
		by_pid("the child's parent", parent);
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	list("parent after the child", d);
	closedir(d);

	tasks("task, one thread", 0);
	pthread_t th;
	char c;
	if (pipe(ready) != 0 || pipe(quit) != 0 || pthread_create(&th, NULL, waiter, NULL) != 0 ||
	    read(ready[0], &c, 1) != 1)
		return 3;
	tasks("task, two threads", 0);
	write(quit[1], "q", 1);
	pthread_join(th, NULL);
	tasks("task, after the join", 1);
	return 0;
}
